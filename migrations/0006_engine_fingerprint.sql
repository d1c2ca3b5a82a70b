-- The fingerprint of the carrier answer a shipment's stored state was last built from (engine
-- version + raw events; src/engine/fingerprint.ts). A refresh whose answer has the same
-- fingerprint skips the diff, the writes and the raw-event upsert, and only reschedules. Null
-- (every row after this migration, or a row the engine never refreshed) takes the full path.

alter table shipments add column engine_fingerprint text;

-- The bookkeeping of such an unchanged refresh, in one statement (src/engine/process.ts,
-- refreshUnchanged): release the lease and reschedule, only if the row is still the version the
-- claim wrote (p_row_version = its xmin) and still leased to p_owner; false otherwise (the caller
-- then takes the full path). It records nothing: if a server crash loses this commit, the
-- shipment keeps its lease until the lease expires and is refreshed again. So, like
-- rate_limit_take, its commit does not wait for the WAL flush.
create or replace function engine_refresh_unchanged(p_id uuid, p_owner text, p_row_version xid,
                                                     p_now timestamptz, p_next timestamptz)
returns boolean language plpgsql as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  update shipments
     set line_tracking_last_attempted_at = p_now,
         line_tracking_last_succeeded_at = p_now,
         next_refresh_at = p_next,
         refresh_failures = 0,
         lease_owner = null,
         lease_expires_at = null,
         updated_at = now()
   where id = p_id and lease_owner = p_owner and xmin = p_row_version;
  return found;
end;
$$;
