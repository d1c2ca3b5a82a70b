-- Alerts by e-mail (issue 32, item 3): per-account rules naming events of the webhook catalogue,
-- recipients, and a schedule (at once, or a daily digest at daily_at in time_zone).
--
-- What is sent rides on two tables. alert_items: one row per (domain event, rule, address), written
-- in the transaction that records the event (domain-events/record.ts), unique on that triple so an
-- event reaches an address through a rule at most once. alert_messages: the outbox the worker
-- sends from, with the same lease, due time and attempt count as webhook notifications. An
-- immediate item gets its own message at once; digest items wait (message_id null) until their
-- rule's next_digest_at, when one message per address gathers them.

create table alert_rules (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  events text[] not null,
  recipients text[] not null,
  schedule text not null check (schedule in ('immediate', 'daily')),
  daily_at text check (daily_at ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  time_zone text not null default 'UTC',
  filter_tags text[] not null default '{}',
  filter_custom_fields jsonb not null default '{}',
  next_digest_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((schedule = 'daily') = (daily_at is not null))
);
create index alert_rules_by_account on alert_rules (account_id, created_at desc, id desc);
create index alert_rules_digest_due on alert_rules (next_digest_at) where schedule = 'daily';
comment on column alert_rules.filter_tags is 'Only shipments with one of these tags (empty: any shipment).';
comment on column alert_rules.filter_custom_fields is 'Only shipments whose custom fields (by slug) hold these values, JSON.';
comment on column alert_rules.next_digest_at is 'When the next daily digest is gathered (daily rules; computed from daily_at and time_zone).';

create table alert_messages (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  rule_id uuid not null references alert_rules (id) on delete cascade,
  address text not null,
  kind text not null check (kind in ('immediate', 'digest')),
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'cancelled')),
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_error text,
  sent_at timestamptz,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index alert_messages_due on alert_messages (next_attempt_at) where status = 'pending';
create index alert_messages_by_rule on alert_messages (rule_id, address) where status = 'pending';
comment on column alert_messages.last_error is 'The SMTP error of the last failed attempt (the server''s reply, never a body).';

create table alert_items (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  rule_id uuid not null references alert_rules (id) on delete cascade,
  domain_event_id uuid not null references domain_events (id) on delete cascade,
  address text not null,
  message_id uuid references alert_messages (id) on delete cascade deferrable initially deferred,
  created_at timestamptz not null default now()
);
-- The exactly-once key: one event reaches one address through one rule once.
create unique index alert_items_once on alert_items (domain_event_id, rule_id, address);
create index alert_items_by_message on alert_items (message_id);
create index alert_items_waiting on alert_items (rule_id, address) where message_id is null;
comment on column alert_items.message_id is 'The message that sends it; null while a digest item waits for its hour.';
