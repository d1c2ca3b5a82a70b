-- The account counts of 0036 and 0049 in slots (issue 30): one row per account was one lock per
-- account, taken by the statement that inserts a shipment, a container or a tracking request and
-- held until its transaction commits. A worker storing a journey inserts its shipment first and
-- commits a dozen statements later, so every journey of an account waited for the one before it,
-- and every create of the API (its tracking request counted) waited behind them: measured on
-- PostgreSQL 15 with the sandbox line, 35-56 ms of lock wait per counting statement, and a
-- journey's insert of its shipment the longest step of it.
--
-- Each inserting statement now adds to the slot of its database session (pg_backend_pid() % 16),
-- so sessions rarely share a row; a reader sums the account's slots (at most 16 rows of one index
-- range). Deleting statements take away from the account's lowest slot, as before from its one
-- row: nothing when the account has no counts (its own deletion, cascading). Rows are still locked
-- in account order within a statement, so statements touching several accounts cannot deadlock.

alter table account_shipment_counts add column slot smallint not null default 0;
alter table account_shipment_counts drop constraint account_shipment_counts_pkey;
alter table account_shipment_counts add primary key (account_id, slot);

create or replace function count_inserted_shipments() returns trigger language plpgsql as $$
begin
  insert into account_shipment_counts as t (account_id, slot, shipments)
    select account_id, pg_backend_pid() % 16, count(*) from inserted_shipments group by account_id order by account_id
  on conflict (account_id, slot) do update set shipments = t.shipments + excluded.shipments;
  return null;
end
$$;

create or replace function count_inserted_containers() returns trigger language plpgsql as $$
begin
  insert into account_shipment_counts as t (account_id, slot, containers)
    select account_id, pg_backend_pid() % 16, count(*) from inserted_containers group by account_id order by account_id
  on conflict (account_id, slot) do update set containers = t.containers + excluded.containers;
  return null;
end
$$;

create or replace function count_inserted_tracking_requests() returns trigger language plpgsql as $$
begin
  insert into account_shipment_counts as t (account_id, slot, tracking_requests)
    select account_id, pg_backend_pid() % 16, count(*) from inserted_tracking_requests group by account_id order by account_id
  on conflict (account_id, slot) do update set tracking_requests = t.tracking_requests + excluded.tracking_requests;
  return null;
end
$$;

create or replace function count_deleted_shipments() returns trigger language plpgsql as $$
begin
  update account_shipment_counts t set shipments = t.shipments - d.n
    from (select account_id, count(*) as n from deleted_shipments group by account_id) d
    where t.account_id = d.account_id
      and t.slot = (select min(slot) from account_shipment_counts m where m.account_id = d.account_id);
  return null;
end
$$;

create or replace function count_deleted_containers() returns trigger language plpgsql as $$
begin
  update account_shipment_counts t set containers = t.containers - d.n
    from (select account_id, count(*) as n from deleted_containers group by account_id) d
    where t.account_id = d.account_id
      and t.slot = (select min(slot) from account_shipment_counts m where m.account_id = d.account_id);
  return null;
end
$$;

create or replace function count_deleted_tracking_requests() returns trigger language plpgsql as $$
begin
  update account_shipment_counts t set tracking_requests = t.tracking_requests - d.n
    from (select account_id, count(*) as n from deleted_tracking_requests group by account_id) d
    where t.account_id = d.account_id
      and t.slot = (select min(slot) from account_shipment_counts m where m.account_id = d.account_id);
  return null;
end
$$;
