-- A refresh that finds nothing new writes nothing a reader sees (issue 12). Two changes:
--
-- 1. The change feed (0008) notified on every statement that updated a shipment, including the
--    engine's own bookkeeping (lease claims and releases, the next refresh time, the answer
--    fingerprint, the line-tracking attempt times), so every refresh emptied the account's
--    response cache. Shipments now notify only when a column other than those changed.
--    line_tracking_last_attempted_at / _succeeded_at are among them: a cached GET may show them
--    up to the response cache's TTL old (docs/operations.md), the price of not discarding every
--    cached document of the account at each refresh.
-- 2. The unchanged-answer release (0006) no longer sets updated_at: updated_at moves only when
--    the shipment's data does.

create or replace function notify_shipment_changes() returns trigger language plpgsql as $$
declare
  a uuid;
  bookkeeping constant text[] := array['lease_owner', 'lease_expires_at', 'next_refresh_at',
    'refresh_failures', 'engine_fingerprint', 'last_changed_at', 'line_tracking_last_attempted_at',
    'line_tracking_last_succeeded_at', 'updated_at'];
begin
  for a in
    select distinct n.account_id
      from new_rows n join old_rows o on o.id = n.id
     where (to_jsonb(n) - bookkeeping) is distinct from (to_jsonb(o) - bookkeeping)
  loop
    perform pg_notify('tracker_changes', a::text);
  end loop;
  return null;
end;
$$;

drop trigger shipments_changes_upd on shipments;
create trigger shipments_changes_upd after update on shipments
  referencing old table as old_rows new table as new_rows
  for each statement execute function notify_shipment_changes();

create or replace function engine_release_unchanged(p_owner text, p_ids uuid[], p_row_versions xid[],
                                                    p_attempted timestamptz[], p_next timestamptz[])
returns setof uuid language plpgsql as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  return query
    update shipments s
       set line_tracking_last_attempted_at = u.attempted_at,
           line_tracking_last_succeeded_at = u.attempted_at,
           next_refresh_at = u.next_at,
           refresh_failures = 0,
           lease_owner = null,
           lease_expires_at = null
      from unnest(p_ids, p_row_versions, p_attempted, p_next) as u(id, row_version, attempted_at, next_at)
     where s.id = u.id and s.lease_owner = p_owner and s.xmin = u.row_version
    returning s.id;
end;
$$;
