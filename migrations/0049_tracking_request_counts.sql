-- meta.total of the unfiltered tracking-request list, kept beside the shipment and container counts
-- of 0036 by the same kind of statement-level triggers: one upsert per inserting statement (a batch
-- of creates is one statement), one update per deleting statement.
--
-- Counting on every page read all of an account's tracking requests: 20 ms per page at 22,000 of
-- them when PostgreSQL had no fresh statistics or visibility map, and in proportion to the account
-- at best (issue 15). Filtered lists still count what they match.

alter table account_shipment_counts add column tracking_requests integer not null default 0;

-- Inserts wait until this transaction commits: none is missed between the count below and the
-- triggers taking over.
lock table tracking_requests in share row exclusive mode;

create function count_inserted_tracking_requests() returns trigger language plpgsql as $$
begin
  insert into account_shipment_counts as t (account_id, tracking_requests)
    select account_id, count(*) from inserted_tracking_requests group by account_id order by account_id
  on conflict (account_id) do update set tracking_requests = t.tracking_requests + excluded.tracking_requests;
  return null;
end
$$;

create function count_deleted_tracking_requests() returns trigger language plpgsql as $$
begin
  update account_shipment_counts t set tracking_requests = t.tracking_requests - d.n
    from (select account_id, count(*) as n from deleted_tracking_requests group by account_id) d
    where t.account_id = d.account_id;
  return null;
end
$$;

create trigger tracking_requests_count_inserted after insert on tracking_requests
  referencing new table as inserted_tracking_requests for each statement
  execute function count_inserted_tracking_requests();
create trigger tracking_requests_count_deleted after delete on tracking_requests
  referencing old table as deleted_tracking_requests for each statement
  execute function count_deleted_tracking_requests();

insert into account_shipment_counts as t (account_id, tracking_requests)
  select account_id, count(*) from tracking_requests group by account_id
on conflict (account_id) do update set tracking_requests = excluded.tracking_requests;
