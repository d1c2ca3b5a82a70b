-- Webhooks, their notifications (one per domain event per subscribed active webhook, written in
-- the transaction that recorded the event) and the attempt log.

create table webhooks (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  url text not null,
  events text[] not null,
  active boolean not null default true,
  -- [{name, value}] sent with every delivery.
  headers jsonb not null default '[]',
  secret text not null,
  -- During a rotation's grace period the previous secret signs too.
  previous_secret text,
  previous_secret_expires_at timestamptz,
  description text,
  -- Delivery health, for the deactivation rule.
  failing_since timestamptz,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  deactivated_at timestamptz,
  deactivation_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_by_account on webhooks (account_id, created_at desc, id desc);
create index webhooks_active on webhooks (account_id) where active;

create table webhook_notifications (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  webhook_id uuid not null references webhooks (id) on delete cascade,
  domain_event_id uuid not null references domain_events (id) on delete cascade,
  event text not null,
  delivery_status text not null default 'pending' check (delivery_status in ('pending', 'succeeded', 'failed')),
  -- The exact JSON delivered, rendered once at the first attempt and reused by every retry.
  body text,
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_notifications_due on webhook_notifications (next_attempt_at) where delivery_status = 'pending';
create index webhook_notifications_by_account on webhook_notifications (account_id, created_at desc, id desc);
create index webhook_notifications_by_webhook on webhook_notifications (webhook_id, created_at);

create table webhook_attempts (
  id bigserial primary key,
  notification_id uuid not null references webhook_notifications (id) on delete cascade,
  attempted_at timestamptz not null default now(),
  status_code integer,
  error text,
  duration_ms integer not null,
  response_excerpt text
);
create index webhook_attempts_by_notification on webhook_attempts (notification_id, id);
