-- The fingerprint of the carrier answer a shipment's stored state was last built from (engine
-- version + raw events; src/engine/fingerprint.ts). A refresh whose answer has the same
-- fingerprint skips the diff, the writes and the raw-event upsert, and only reschedules. Null
-- (every row after this migration, or a row the engine never refreshed) takes the full path.

alter table shipments add column engine_fingerprint text;

-- The bookkeeping of such unchanged refreshes, several shipments in one statement
-- (src/engine/process.ts, refreshUnchanged): release the lease and reschedule each shipment that
-- is still the row version its claim wrote (xmin) and still leased to p_owner; returns the ids it
-- updated (the caller takes the full path for the others). It records nothing: if a server crash
-- loses this commit, the shipments keep their leases until they expire and are refreshed again.
-- So, like rate_limit_take, its commit does not wait for the WAL flush.
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
           lease_expires_at = null,
           updated_at = now()
      from unnest(p_ids, p_row_versions, p_attempted, p_next) as u(id, row_version, attempted_at, next_at)
     where s.id = u.id and s.lease_owner = p_owner and s.xmin = u.row_version
    returning s.id;
end;
$$;
