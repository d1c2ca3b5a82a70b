-- Rate-limit counters are taken on every request: make them cheap. They need no durability (a
-- crash forgets at most a minute of counts), so the table is unlogged and the function's commit
-- does not wait for the WAL flush. Old slots are swept only now and then, not on every call.

alter table rate_limit_counts set unlogged;

create or replace function rate_limit_take(p_account uuid, p_bucket text, p_limit integer, p_window integer)
returns integer language plpgsql as $$
declare
  now_s bigint := floor(extract(epoch from clock_timestamp()));
  used integer;
  oldest bigint;
begin
  perform set_config('synchronous_commit', 'off', true);
  perform pg_advisory_xact_lock(hashtextextended(p_account::text || ':' || p_bucket, 0));
  select coalesce(sum(count), 0)::integer, min(slot) into used, oldest
    from rate_limit_counts
    where account_id = p_account and bucket = p_bucket and slot > now_s - p_window;
  if used >= p_limit then
    return -greatest(1, (oldest + p_window - now_s)::integer);
  end if;
  insert into rate_limit_counts (account_id, bucket, slot, count) values (p_account, p_bucket, now_s, 1)
    on conflict (account_id, bucket, slot) do update set count = rate_limit_counts.count + 1;
  if now_s % 10 = 0 then
    delete from rate_limit_counts
      where account_id = p_account and bucket = p_bucket and slot <= now_s - p_window;
  end if;
  return p_limit - used - 1;
end;
$$;
