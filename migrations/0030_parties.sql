-- Parties (issue 13): an account's customers. A tracking request may name one
-- (relationships.customer); the shipment it creates then carries the party and shows its
-- company_name as customer_name. Names are unique per account, ignoring case and outer spaces.
create table parties (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  company_name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index parties_name_unique on parties (account_id, lower(company_name));
create index parties_by_created on parties (account_id, created_at desc, id desc);

alter table tracking_requests add column customer_id uuid references parties (id) on delete set null;
alter table shipments add column customer_id uuid references parties (id) on delete set null;
create index shipments_by_customer on shipments (account_id, customer_id) where customer_id is not null;

-- The engine links a request to its shipment (insert or update of shipment_id) without knowing
-- parties: this trigger hands the request's customer to the shipment at that moment, so the
-- engine stays unaware of them.
create or replace function tracking_request_customer_to_shipment() returns trigger language plpgsql as $$
begin
  if new.customer_id is not null and new.shipment_id is not null then
    update shipments s set customer_id = new.customer_id, customer_name = p.company_name, updated_at = now()
      from parties p
      where s.id = new.shipment_id and p.id = new.customer_id
        and s.customer_id is distinct from new.customer_id;
  end if;
  return null;
end;
$$;
create trigger tracking_requests_customer after insert or update of shipment_id, customer_id on tracking_requests
  for each row execute function tracking_request_customer_to_shipment();

create trigger parties_changes_ins after insert on parties referencing new table as changed_rows
  for each statement execute function notify_account_changes_new();
create trigger parties_changes_upd after update on parties referencing new table as changed_rows
  for each statement execute function notify_account_changes_new();
