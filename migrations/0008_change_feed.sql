-- Change feed for the API processes' caches (src/db/change-feed.ts). Every committed write to a
-- table that a cached GET response reads sends the account's id on `tracker_changes`; a write to
-- a table shared by all accounts (vessels) sends '*'; a revoked or deleted API key sends its id on
-- `tracker_keys`. Notifications are transactional: they reach listeners only after the commit,
-- and PostgreSQL folds duplicates within one transaction. Statement-level triggers with
-- transition tables keep bulk loads (COPY, seeding) at one notification per account and statement.

create or replace function notify_account_changes_new() returns trigger language plpgsql as $$
declare
  a uuid;
begin
  for a in select distinct account_id from changed_rows loop
    perform pg_notify('tracker_changes', a::text);
  end loop;
  return null;
end;
$$;

-- Statement-level triggers fire even when the statement changed nothing (an upsert that found
-- the vessel already there): only a statement that did change rows empties every cache.
create or replace function notify_all_accounts_changed() returns trigger language plpgsql as $$
begin
  if exists (select 1 from changed_rows) then
    perform pg_notify('tracker_changes', '*');
  end if;
  return null;
end;
$$;

create or replace function notify_api_key_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('tracker_keys', coalesce(old.id, new.id)::text);
  return null;
end;
$$;

do $$
declare
  t text;
begin
  foreach t in array array['tracking_requests', 'shipments', 'containers', 'transport_events',
                           'estimated_events', 'raw_events'] loop
    execute format('create trigger %1$s_changes_ins after insert on %1$I referencing new table as changed_rows
                    for each statement execute function notify_account_changes_new()', t);
    execute format('create trigger %1$s_changes_upd after update on %1$I referencing new table as changed_rows
                    for each statement execute function notify_account_changes_new()', t);
    execute format('create trigger %1$s_changes_del after delete on %1$I referencing old table as changed_rows
                    for each statement execute function notify_account_changes_new()', t);
  end loop;
end;
$$;

create trigger vessels_changes_ins after insert on vessels referencing new table as changed_rows
  for each statement execute function notify_all_accounts_changed();
create trigger vessels_changes_upd after update on vessels referencing new table as changed_rows
  for each statement execute function notify_all_accounts_changed();
create trigger vessels_changes_del after delete on vessels referencing old table as changed_rows
  for each statement execute function notify_all_accounts_changed();

create trigger api_keys_changes after update of revoked_at, secret_hash, account_id or delete on api_keys
  for each row execute function notify_api_key_changed();

-- Rate limits reserved in batches (src/http/rate-limiter.ts): like rate_limit_take, but grants
-- up to p_max requests at once, never more than a tenth of what is left (so within the last ten
-- requests of a window every request is counted here, one by one), and always at least the one
-- asked for. Returns {granted, left after the grant}, or {0, -seconds to wait} when none is left.
create or replace function rate_limit_reserve(p_account uuid, p_bucket text, p_limit integer, p_window integer,
                                              p_max integer)
returns integer[] language plpgsql as $$
declare
  now_s bigint := floor(extract(epoch from clock_timestamp()));
  used integer;
  oldest bigint;
  grant_n integer;
begin
  perform set_config('synchronous_commit', 'off', true);
  perform pg_advisory_xact_lock(hashtextextended(p_account::text || ':' || p_bucket, 0));
  select coalesce(sum(count), 0)::integer, min(slot) into used, oldest
    from rate_limit_counts
    where account_id = p_account and bucket = p_bucket and slot > now_s - p_window;
  if used >= p_limit then
    return array[0, -greatest(1, (oldest + p_window - now_s)::integer)];
  end if;
  grant_n := greatest(1, least(p_max, (p_limit - used) / 10));
  insert into rate_limit_counts (account_id, bucket, slot, count) values (p_account, p_bucket, now_s, grant_n)
    on conflict (account_id, bucket, slot) do update set count = rate_limit_counts.count + grant_n;
  if now_s % 10 = 0 then
    delete from rate_limit_counts
      where account_id = p_account and bucket = p_bucket and slot <= now_s - p_window;
  end if;
  return array[grant_n, p_limit - used - grant_n];
end;
$$;
