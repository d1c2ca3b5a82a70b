-- The change feed's trigger (0037) with static statements instead of EXECUTEd text: PL/pgSQL keeps
-- the plans of static statements for the session, while each EXECUTE parsed and planned its
-- statement again. Measured on PostgreSQL 15 (issue 15), one single-row update of a tracking
-- request: 893 µs with the trigger as it was, 312 µs with this one, 134 µs with no trigger. The
-- payloads are the same (src/db/change-feed.ts, src/http/cache-subscriber.ts read them).
--
-- Claims are bookkeeping too: a worker leasing a tracking request (lease_owner, lease_expires_at)
-- changes nothing a reader sees, so it no longer empties the cached answers that show it.

create or replace function notify_resource_changes() returns trigger language plpgsql as $$
declare
  -- Trigger arguments: the bookkeeping columns (a text[] literal), then the id columns to name.
  bookkeeping text[] := TG_ARGV[0]::text[];
  id_cols text[] := TG_ARGV[1:TG_NARGS - 1];
  r record;
  payload text;
begin
  if TG_OP = 'INSERT' then
    id_cols := array_remove(id_cols, 'id');
  end if;
  -- Static statements (one branch per operation, as each names its own transition tables), so
  -- PL/pgSQL keeps their plans; built with format() and EXECUTEd, they were planned again at every
  -- statement, ~0.8 ms of the database's CPU per write.
  if TG_OP = 'UPDATE' then
    -- A statement of thousands of rows is a bulk load (seeding, a restore): naming its resources
    -- would cost more than it saves, so it names its accounts only, as 0008 did.
    if (select count(*) from new_rows) > 2000 then
      for r in select distinct account_id from new_rows loop
        perform pg_notify('tracker_changes', r.account_id::text);
      end loop;
      return null;
    end if;
    -- Old and new owner ids both: a row that moved (a request linked to a shipment) changes both.
    for r in
      select (x.j ->> 'account_id')::uuid as account_id,
             coalesce(array_agg(distinct v.id) filter (where v.id is not null), '{}') as ids
        from (select to_jsonb(n) as nj, to_jsonb(o) as oj from new_rows n join old_rows o on o.id = n.id) d
        cross join lateral (values (d.nj), (d.oj)) as x(j)
        left join lateral (select (x.j ->> c)::uuid as id from unnest(id_cols) as c) v on true
       where (d.nj - bookkeeping) is distinct from (d.oj - bookkeeping)
       group by 1
    loop
      perform pg_notify('tracker_changes', change_payload(r.account_id, TG_TABLE_NAME, r.ids));
    end loop;
  else
    if (select count(*) from changed_rows) > 2000 then
      for r in select distinct account_id from changed_rows loop
        perform pg_notify('tracker_changes', r.account_id::text);
      end loop;
      return null;
    end if;
    for r in
      select (x.j ->> 'account_id')::uuid as account_id,
             coalesce(array_agg(distinct v.id) filter (where v.id is not null), '{}') as ids
        from (select to_jsonb(c) as j from changed_rows c) x
        left join lateral (select (x.j ->> c)::uuid as id from unnest(id_cols) as c) v on true
       group by 1
    loop
      perform pg_notify('tracker_changes', change_payload(r.account_id, TG_TABLE_NAME, r.ids));
    end loop;
  end if;
  return null;
end;
$$;

-- The payload naming `ids` of `tbl`, or the bare account when they would not fit one notification.
create or replace function change_payload(account uuid, tbl text, ids uuid[]) returns text
language sql immutable as $$
  select case
    when cardinality(ids) > 200 then account::text
    when octet_length(account::text || ' ' || tbl || ' ' || array_to_string(ids, ',')) > 7900 then account::text
    else account::text || ' ' || tbl || ' ' || array_to_string(ids, ',')
  end
$$;

drop trigger tracking_requests_changes_upd on tracking_requests;
create trigger tracking_requests_changes_upd after update on tracking_requests
  referencing old table as old_rows new table as new_rows
  for each statement execute function notify_resource_changes('{lease_owner,lease_expires_at}', 'id', 'shipment_id');
