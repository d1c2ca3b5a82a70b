-- Custom fields (issue 13): per-account definitions for shipments, containers and tracking
-- requests, options of the enum types, and values. A value keeps its JSON type (jsonb), is
-- validated by src/custom-fields against its definition, and belongs to one entity (polymorphic:
-- entity_type + entity_id, so no foreign key to the entity; deleting an entity leaves nothing a
-- user can reach, and the value goes with its definition).
create table custom_field_definitions (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  entity_type text not null check (entity_type in ('Shipment', 'Container', 'TrackingRequest')),
  api_slug text not null,
  display_name text not null,
  description text,
  data_type text not null
    check (data_type in ('short_text', 'number', 'date', 'datetime', 'boolean', 'enum', 'enum_multi', 'reference')),
  reference_type text,
  validation jsonb,
  default_format text,
  default_value jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- One slug per account: the nested paths and initial_custom_fields name a field by slug alone.
create unique index custom_field_definitions_slug on custom_field_definitions (account_id, api_slug);
create index custom_field_definitions_by_created on custom_field_definitions (account_id, created_at, id);

create table custom_field_options (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  definition_id uuid not null references custom_field_definitions (id) on delete cascade,
  label text not null,
  value text not null,
  position integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index custom_field_options_value on custom_field_options (definition_id, value);

create table custom_field_values (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  definition_id uuid not null references custom_field_definitions (id) on delete cascade,
  entity_type text not null check (entity_type in ('shipment', 'container', 'tracking_request')),
  entity_id uuid not null,
  value jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index custom_field_values_one on custom_field_values (definition_id, entity_id);
create index custom_field_values_by_entity on custom_field_values (account_id, entity_id);
create index custom_field_values_by_created on custom_field_values (account_id, created_at, id);

-- initial_custom_fields of a tracking request, applied when its shipment exists.
alter table tracking_requests add column initial_custom_fields jsonb;

do $$
declare
  t text;
begin
  foreach t in array array['custom_field_definitions', 'custom_field_options', 'custom_field_values'] loop
    execute format('create trigger %1$s_changes_ins after insert on %1$I referencing new table as changed_rows
                    for each statement execute function notify_account_changes_new()', t);
    execute format('create trigger %1$s_changes_upd after update on %1$I referencing new table as changed_rows
                    for each statement execute function notify_account_changes_new()', t);
    execute format('create trigger %1$s_changes_del after delete on %1$I referencing old table as changed_rows
                    for each statement execute function notify_account_changes_new()', t);
  end loop;
end;
$$;
