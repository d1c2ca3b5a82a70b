-- Accounts, API keys, tracking requests and rate-limit counters.
-- Every stored record belongs to an account; queries always filter by account_id.

create table accounts (
  id uuid primary key,
  name text not null,
  created_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  -- The recognisable, non-secret start of the key ("trk_live_ab12cd34"): the look-up key.
  prefix text not null unique,
  -- SHA-256 of the whole key; compared in constant time after the prefix look-up.
  secret_hash bytea not null,
  name text,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_account on api_keys (account_id, created_at);

create table tracking_requests (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  request_number text not null,
  request_type text not null check (request_type in ('bill_of_lading', 'booking_number', 'container')),
  scac text not null,
  ref_numbers text[] not null default '{}',
  shipment_tags text[] not null default '{}',
  status text not null default 'pending'
    check (status in ('pending', 'awaiting_manifest', 'created', 'failed', 'tracking_stopped')),
  failed_reason text,
  is_retrying boolean not null default false,
  retry_count integer,
  shipment_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Engine scheduling: due when next_attempt_at <= now() and no live lease.
  next_attempt_at timestamptz,
  lease_owner text,
  lease_expires_at timestamptz,
  last_attempt_at timestamptz,
  awaiting_manifest_since timestamptz
);
-- The duplicate rule lives in the database so it holds under concurrent creates and across processes.
create unique index tracking_requests_one_active on tracking_requests (account_id, scac, request_number)
  where status in ('pending', 'awaiting_manifest', 'created');
create index tracking_requests_by_created on tracking_requests (account_id, created_at desc, id desc);
create index tracking_requests_by_updated on tracking_requests (account_id, updated_at);
create index tracking_requests_due on tracking_requests (next_attempt_at) where next_attempt_at is not null;

-- Rolling-window rate limits: one row per (account, bucket, second) with a count.
create table rate_limit_counts (
  account_id uuid not null,
  bucket text not null,
  slot bigint not null,
  count integer not null,
  primary key (account_id, bucket, slot)
);

-- Takes one unit from a bucket if the last p_window seconds hold fewer than p_limit.
-- Returns the units left (>= 0), or minus the seconds until one frees up. The advisory lock
-- makes check-and-increment atomic across every process sharing the database.
create function rate_limit_take(p_account uuid, p_bucket text, p_limit integer, p_window integer)
returns integer language plpgsql as $$
declare
  now_s bigint := floor(extract(epoch from clock_timestamp()));
  used integer;
  oldest bigint;
begin
  perform pg_advisory_xact_lock(hashtextextended(p_account::text || ':' || p_bucket, 0));
  select coalesce(sum(count), 0)::integer, min(slot) into used, oldest
    from rate_limit_counts
    where account_id = p_account and bucket = p_bucket and slot > now_s - p_window;
  if used >= p_limit then
    return -greatest(1, (oldest + p_window - now_s)::integer);
  end if;
  insert into rate_limit_counts (account_id, bucket, slot, count) values (p_account, p_bucket, now_s, 1)
    on conflict (account_id, bucket, slot) do update set count = rate_limit_counts.count + 1;
  delete from rate_limit_counts
    where account_id = p_account and bucket = p_bucket and slot <= now_s - p_window;
  return p_limit - used - 1;
end;
$$;
