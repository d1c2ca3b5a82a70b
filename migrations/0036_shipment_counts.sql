-- meta.total of the unfiltered shipment list (issue 15, src/shipments/sql-documents/): counting an
-- account's shipments on every page read all of its index entries (about 14 ms per page at
-- 100,000 shipments, index-only). The count per account is kept here instead, by statement-level
-- triggers: one upsert per inserting or deleting statement, however many rows it touches. Rows are
-- locked in account order, so statements touching several accounts cannot deadlock on them.
create table account_shipment_counts (
  account_id uuid primary key references accounts (id) on delete cascade,
  shipments integer not null
);

insert into account_shipment_counts (account_id, shipments)
  select account_id, count(*) from shipments group by account_id;

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
