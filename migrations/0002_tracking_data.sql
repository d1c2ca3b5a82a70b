-- Shipments, containers, transport events, raw carrier events, vessels and the durable
-- domain-event log the webhook notifications are made from.

-- Vessels are public facts shared by every account (name, IMO); nothing account-specific is stored here.
create table vessels (
  id uuid primary key,
  imo text unique,
  name text not null,
  -- Vessels without an IMO are keyed by name.
  name_key text unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table shipments (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  scac text not null,
  request_type text not null,
  normalized_number text not null,
  bill_of_lading_number text not null,
  ref_numbers text[] not null default '{}',
  tags text[] not null default '{}',
  customer_name text,
  port_of_lading_locode text,
  port_of_discharge_locode text,
  destination_locode text,
  transshipment_locodes text[] not null default '{}',
  pod_terminal_id uuid,
  destination_terminal_id uuid,
  pod_vessel_id uuid references vessels (id),
  pod_voyage_number text,
  pol_etd_at timestamptz,
  pol_atd_at timestamptz,
  pod_eta_at timestamptz,
  pod_original_eta_at timestamptz,
  pod_ata_at timestamptz,
  destination_eta_at timestamptz,
  destination_ata_at timestamptz,
  line_tracking_last_attempted_at timestamptz,
  line_tracking_last_succeeded_at timestamptz,
  line_tracking_stopped_at timestamptz,
  line_tracking_stopped_reason text,
  -- When the carrier's data last changed (for no_updates_at_line).
  last_changed_at timestamptz,
  -- Refresh scheduling: due when next_refresh_at <= now() and no live lease.
  next_refresh_at timestamptz,
  refresh_failures integer not null default 0,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (account_id, scac, normalized_number)
);
create index shipments_by_created on shipments (account_id, created_at desc, id desc);
create index shipments_by_updated on shipments (account_id, updated_at, id);
create index shipments_due on shipments (next_refresh_at) where next_refresh_at is not null;
create index shipments_by_bl on shipments (account_id, bill_of_lading_number);

alter table tracking_requests
  add constraint tracking_requests_shipment_fk foreign key (shipment_id) references shipments (id) on delete set null;
create index tracking_requests_by_shipment on tracking_requests (shipment_id) where shipment_id is not null;

create table containers (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  shipment_id uuid not null references shipments (id) on delete cascade,
  number text not null,
  ref_numbers text[] not null default '{}',
  equipment_type text,
  equipment_length integer,
  equipment_height text,
  iso_equipment_code text,
  seal_number text,
  weight_in_lbs numeric,
  pod_terminal_id uuid,
  pod_arrived_at timestamptz,
  pod_discharged_at timestamptz,
  pod_full_out_at timestamptz,
  empty_terminated_at timestamptz,
  pod_rail_loaded_at timestamptz,
  pod_rail_departed_at timestamptz,
  ind_eta_at timestamptz,
  ind_ata_at timestamptz,
  ind_rail_unloaded_at timestamptz,
  final_destination_full_out_at timestamptz,
  current_status text not null default 'new',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (shipment_id, number)
);
create index containers_by_created on containers (account_id, created_at desc, id desc);
create index containers_by_updated on containers (account_id, updated_at, id);
create index containers_by_number on containers (account_id, number);

create table transport_events (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  shipment_id uuid not null references shipments (id) on delete cascade,
  container_id uuid not null references containers (id) on delete cascade,
  -- Semantic key from the normalizer: a carrier correction updates the row with the same key.
  key text not null,
  event text not null,
  "timestamp" timestamptz,
  timestamp_inferred_zone boolean not null default false,
  timezone text,
  location_locode text,
  terminal_id uuid,
  vessel_id uuid references vessels (id),
  voyage_number text,
  data_source text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (container_id, key)
);
create index transport_events_by_container on transport_events (container_id, "timestamp", key);

create table estimated_events (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  shipment_id uuid not null references shipments (id) on delete cascade,
  container_id uuid references containers (id) on delete cascade,
  event text not null,
  estimated_timestamp timestamptz not null,
  previous_timestamp timestamptz,
  location_locode text,
  timezone text,
  vessel_id uuid references vessels (id),
  voyage_number text,
  data_source text not null default 'shipping_line',
  created_at timestamptz not null default now()
);
create index estimated_events_by_shipment on estimated_events (shipment_id, created_at);

-- The carrier's own events, kept as received (upserted by carrier event id).
create table raw_events (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  shipment_id uuid not null references shipments (id) on delete cascade,
  carrier_event_id text not null,
  -- null for events that concern every container (vessel movements, document events).
  equipment_reference text,
  event_type text,
  event_code text,
  classifier text,
  event_at timestamptz,
  event_created_at timestamptz,
  location_locode text,
  vessel_name text,
  vessel_imo text,
  voyage_number text,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  unique (shipment_id, carrier_event_id)
);
create index raw_events_by_container on raw_events (shipment_id, equipment_reference, event_at);

-- Everything that happened, in order: the source of webhook notifications and of the events feed.
create table domain_events (
  seq bigserial primary key,
  id uuid not null unique,
  account_id uuid not null references accounts (id) on delete cascade,
  event text not null,
  tracking_request_id uuid,
  shipment_id uuid,
  container_id uuid,
  -- The JSON:API resource the event is about (reference_object of a notification).
  reference_type text not null,
  reference_id uuid not null,
  changeset jsonb,
  created_at timestamptz not null default now()
);
create index domain_events_by_account on domain_events (account_id, seq);
