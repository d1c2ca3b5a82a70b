-- meta.total of the unfiltered shipment and container lists (issue 15, src/shipments/sql-documents/):
-- counting an account's shipments on every page read all of its index entries (about 14 ms per page
-- at 100,000 shipments, index-only; three times that for their containers). The counts per account
-- are kept here instead, by statement-level triggers: one upsert per inserting or deleting
-- statement, however many rows it touches. Rows are locked in account order, so statements touching
-- several accounts cannot deadlock on them.
create table account_shipment_counts (
  account_id uuid primary key references accounts (id) on delete cascade,
  shipments integer not null default 0,
  containers integer not null default 0
);

insert into account_shipment_counts (account_id, shipments, containers)
  select a.id, (select count(*) from shipments s where s.account_id = a.id),
    (select count(*) from containers c where c.account_id = a.id)
  from accounts a
  where exists (select from shipments s where s.account_id = a.id);

create function count_inserted_shipments() returns trigger language plpgsql as $$
begin
  insert into account_shipment_counts as t (account_id, shipments)
    select account_id, count(*) from inserted_shipments group by account_id order by account_id
  on conflict (account_id) do update set shipments = t.shipments + excluded.shipments;
  return null;
end
$$;

create function count_deleted_shipments() returns trigger language plpgsql as $$
begin
  update account_shipment_counts t set shipments = t.shipments - d.n
    from (select account_id, count(*) as n from deleted_shipments group by account_id) d
    where t.account_id = d.account_id;
  return null;
end
$$;

create trigger shipments_count_inserted after insert on shipments
  referencing new table as inserted_shipments for each statement execute function count_inserted_shipments();
create trigger shipments_count_deleted after delete on shipments
  referencing old table as deleted_shipments for each statement execute function count_deleted_shipments();

create function count_inserted_containers() returns trigger language plpgsql as $$
begin
  insert into account_shipment_counts as t (account_id, containers)
    select account_id, count(*) from inserted_containers group by account_id order by account_id
  on conflict (account_id) do update set containers = t.containers + excluded.containers;
  return null;
end
$$;

create function count_deleted_containers() returns trigger language plpgsql as $$
begin
  update account_shipment_counts t set containers = t.containers - d.n
    from (select account_id, count(*) as n from deleted_containers group by account_id) d
    where t.account_id = d.account_id;
  return null;
end
$$;

create trigger containers_count_inserted after insert on containers
  referencing new table as inserted_containers for each statement execute function count_inserted_containers();
create trigger containers_count_deleted after delete on containers
  referencing old table as deleted_containers for each statement execute function count_deleted_containers();
