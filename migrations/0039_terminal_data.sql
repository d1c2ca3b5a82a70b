-- Terminal data (issue 12, item 6): what the POD terminal says about a container, read through a
-- terminal adapter (src/terminals/) and normalized by the engine (src/engine/terminal-*.ts).
-- The served attributes live on the container; the polling schedule and the last answer's
-- fingerprint live beside it, in container_terminal_checks, so that a poll that finds nothing new
-- writes no container row (no updated_at move, no change-feed notification).

alter table containers add column availability_known boolean not null default false;
alter table containers add column available_for_pickup boolean;
alter table containers add column location_at_pod_terminal text;
alter table containers add column pod_full_out_chassis_number text;
-- [{name, status, description}] and [{type, amount, currency_code}], as served.
alter table containers add column holds_at_pod_terminal jsonb not null default '[]';
alter table containers add column fees_at_pod_terminal jsonb not null default '[]';
alter table containers add column pickup_lfd_line timestamptz;
alter table containers add column pickup_lfd_terminal timestamptz;
alter table containers add column pickup_lfd_rail timestamptz;
alter table containers add column pickup_appointment_at timestamptz;
alter table containers add column pod_berthed_at timestamptz;
-- When the terminal reported the box gone (gate-out full, or handed over to the consignee).
alter table containers add column terminal_full_out_at timestamptz;

create table container_terminal_checks (
  container_id uuid primary key references containers (id) on delete cascade,
  account_id uuid not null references accounts (id) on delete cascade,
  -- Due when next_check_at <= now(); a claim moves it a lease length ahead.
  next_check_at timestamptz not null default now(),
  checked_at timestamptz,
  failures integer not null default 0
);
create index container_terminal_checks_due on container_terminal_checks (next_check_at);
