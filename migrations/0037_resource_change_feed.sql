-- The change feed names the resources that changed (issue 15), so the API processes' response
-- caches drop only the entries that show them instead of every entry of the account.
--
-- Payload on `tracker_changes`, one notification per account and statement:
--   '<account> <table> <id>,<id>,...'  the rows of <table> whose ids (and owner ids) are listed
--                                      changed; the account's lists of that table's kind change
--                                      too (src/http/cache-subscriber.ts maps tables to lists)
--   '<account>'                        anything of the account may have changed (too many ids for
--                                      one payload, or a table the cache cannot follow per row)
--   '*'                                anything of every account (shared tables: vessels)
-- NOTIFY payloads are limited to 8000 bytes; a statement whose id list would not fit (more than 200
-- ids), or that wrote more than 2000 rows (a bulk load, seeding), falls back to the bare account
-- id, which empties the account's entries as before.
--
-- Which ids a row names: its own id on update and delete (an inserted row is in no cached
-- document yet, only in lists), and the ids of the resources whose documents show it (a container
-- shows in its shipment, an event in its container and shipment). An update names only the rows
-- whose served columns changed: the engine's bookkeeping on shipments (lease, next refresh time,
-- fingerprint, line-tracking attempt times, see 0021) is not a change a reader sees, so a refresh
-- that found nothing new notifies nothing.

create or replace function notify_resource_changes() returns trigger language plpgsql as $$
declare
  -- Trigger arguments: the bookkeeping columns (a text[] literal), then the id columns to name.
  bookkeeping text[] := TG_ARGV[0]::text[];
  id_cols text[] := TG_ARGV[1:TG_NARGS - 1];
  ids_expr text;
  rows_sql text;
  q text;
  r record;
  payload text;
  bulk boolean;
begin
  if TG_OP = 'INSERT' then
    id_cols := array_remove(id_cols, 'id');
  end if;
  -- A statement of thousands of rows is a bulk load (seeding, a restore): naming its resources
  -- would cost more than it saves, so it names its accounts only, as 0008 did.
  execute format('select count(*) > 2000 from %I', case when TG_OP = 'UPDATE' then 'new_rows' else 'changed_rows' end)
    into bulk;
  if bulk then
    for r in execute format('select distinct account_id from %I', case when TG_OP = 'UPDATE' then 'new_rows' else 'changed_rows' end) loop
      perform pg_notify('tracker_changes', r.account_id::text);
    end loop;
    return null;
  end if;
  -- Every id column is a uuid: distinct over uuids is cheaper than over their text.
  select coalesce(string_agg(format('x.%I', c), ', '), '') into ids_expr from unnest(id_cols) as c;
  if TG_OP = 'UPDATE' then
    -- Old and new owner ids both: a row that moved (a request linked to a shipment) changes both.
    rows_sql := 'select n.* from new_rows n join old_rows o on o.id = n.id
                  where (to_jsonb(n) - $1) is distinct from (to_jsonb(o) - $1)
                 union all
                 select o.* from old_rows o join new_rows n on n.id = o.id
                  where (to_jsonb(n) - $1) is distinct from (to_jsonb(o) - $1)';
  else
    rows_sql := 'select * from changed_rows where $1 is not null';
  end if;
  q := format('select x.account_id, coalesce(array_agg(distinct v) filter (where v is not null), ''{}'') as ids
                 from (%s) x left join lateral unnest(array[%s]::uuid[]) as v on true
                group by x.account_id', rows_sql, ids_expr);
  for r in execute q using bookkeeping loop
    if cardinality(r.ids) > 200 then
      payload := r.account_id::text;
    else
      payload := r.account_id::text || ' ' || TG_TABLE_NAME || ' ' || array_to_string(r.ids, ',');
      if octet_length(payload) > 7900 then
        payload := r.account_id::text;
      end if;
    end if;
    perform pg_notify('tracker_changes', payload);
  end loop;
  return null;
end;
$$;

drop trigger shipments_changes_upd on shipments;
drop function notify_shipment_changes();

do $$
declare
  t record;
begin
  for t in
    select * from (values
      ('shipments', '{lease_owner,lease_expires_at,next_refresh_at,refresh_failures,engine_fingerprint,last_changed_at,line_tracking_last_attempted_at,line_tracking_last_succeeded_at,updated_at}', '''id'''),
      ('containers', '{}', '''id'', ''shipment_id'''),
      ('transport_events', '{}', '''id'', ''container_id'', ''shipment_id'''),
      ('estimated_events', '{}', '''id'', ''container_id'', ''shipment_id'''),
      ('raw_events', '{}', '''id'', ''shipment_id'''),
      ('tracking_requests', '{}', '''id'', ''shipment_id'''),
      ('custom_field_values', '{}', '''id'', ''entity_id''')
    ) as v(tbl, bookkeeping, cols)
  loop
    execute format('drop trigger if exists %1$s_changes_ins on %1$I', t.tbl);
    execute format('drop trigger if exists %1$s_changes_upd on %1$I', t.tbl);
    execute format('drop trigger if exists %1$s_changes_del on %1$I', t.tbl);
    execute format('create trigger %1$s_changes_ins after insert on %1$I referencing new table as changed_rows
                    for each statement execute function notify_resource_changes(%2$L, %3$s)', t.tbl, t.bookkeeping, t.cols);
    execute format('create trigger %1$s_changes_upd after update on %1$I
                    referencing old table as old_rows new table as new_rows
                    for each statement execute function notify_resource_changes(%2$L, %3$s)', t.tbl, t.bookkeeping, t.cols);
    execute format('create trigger %1$s_changes_del after delete on %1$I referencing old table as changed_rows
                    for each statement execute function notify_resource_changes(%2$L, %3$s)', t.tbl, t.bookkeeping, t.cols);
  end loop;
end;
$$;
