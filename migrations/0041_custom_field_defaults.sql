-- Custom field default values (issue 13). The reference document has `default_value` on a
-- definition and says nothing more; we give it the meaning of a column DEFAULT: a shipment,
-- container or tracking request created after the definition gets the default as its value
-- (a real custom_field it can read, filter and search on, and edit), unless a value is given.
-- Entities that existed before are not touched (docs/api-notes.md). A defaulted value is marked
-- so that a value the user gives (POST, initial_custom_fields) replaces it instead of colliding.
alter table custom_field_values add column defaulted boolean not null default false;

-- Statement-level, with the inserted rows as a table: one INSERT per statement however many
-- entities it creates (the engine creates containers in bulk).
create or replace function apply_custom_field_defaults() returns trigger language plpgsql as $$
declare
  kind text := case tg_table_name when 'shipments' then 'Shipment' when 'containers' then 'Container'
                                  else 'TrackingRequest' end;
  entity text := case tg_table_name when 'shipments' then 'shipment' when 'containers' then 'container'
                                    else 'tracking_request' end;
begin
  -- Most accounts have no defaults: then no INSERT at all, so custom_field_values' own statement
  -- triggers (the change feed) do not fire for every shipment, container and request created.
  if not exists (select 1 from custom_field_definitions d
                  where d.entity_type = kind and d.default_value is not null
                    and d.account_id in (select account_id from new_entities)) then
    return null;
  end if;
  insert into custom_field_values (id, account_id, definition_id, entity_type, entity_id, value, defaulted)
  select gen_random_uuid(), e.account_id, d.id, entity, e.id, d.default_value, true
    from new_entities e
    join custom_field_definitions d on d.account_id = e.account_id and d.entity_type = kind
   where d.default_value is not null and jsonb_typeof(d.default_value) <> 'null'
  on conflict (definition_id, entity_id) do nothing;
  return null;
end;
$$;

create trigger shipments_custom_field_defaults after insert on shipments
  referencing new table as new_entities for each statement execute function apply_custom_field_defaults();
create trigger containers_custom_field_defaults after insert on containers
  referencing new table as new_entities for each statement execute function apply_custom_field_defaults();
create trigger tracking_requests_custom_field_defaults after insert on tracking_requests
  referencing new table as new_entities for each statement execute function apply_custom_field_defaults();

-- Definitions with a default, per account and type: what the trigger looks up for every insert.
create index custom_field_definitions_defaults on custom_field_definitions (account_id, entity_type)
  where default_value is not null;

-- initial_custom_fields replace a default (the shipment's defaults exist before its request is
-- linked to it); a value the user set is still kept.
create or replace function apply_initial_custom_fields(tr_account uuid, fields jsonb, p_shipment uuid,
                                                       p_container uuid) returns void language plpgsql as $$
begin
  if p_container is null then
    insert into custom_field_values (id, account_id, definition_id, entity_type, entity_id, value)
      select distinct on (d.id) gen_random_uuid(), tr_account, d.id, 'shipment', p_shipment, e->'value'
        from jsonb_array_elements(coalesce(fields->'shipment', '[]'::jsonb)) e
        join custom_field_definitions d
          on d.account_id = tr_account and d.api_slug = e->>'api_slug' and d.entity_type = 'Shipment'
       order by d.id
      on conflict (definition_id, entity_id) do update
        set value = excluded.value, defaulted = false, updated_at = now()
        where custom_field_values.defaulted;
  end if;
  insert into custom_field_values (id, account_id, definition_id, entity_type, entity_id, value)
    -- One row per (field, container), an entry naming the container before a general one: DO
    -- UPDATE may not touch a row twice in one statement.
    select distinct on (d.id, c.id) gen_random_uuid(), tr_account, d.id, 'container', c.id, e->'value'
      from jsonb_array_elements(coalesce(fields->'containers', '[]'::jsonb)) e
      join custom_field_definitions d
        on d.account_id = tr_account and d.api_slug = e->>'api_slug' and d.entity_type = 'Container'
      join containers c
        on c.account_id = tr_account and c.shipment_id = p_shipment
       and (p_container is null or c.id = p_container)
       and (e->>'number' is null or c.number = upper(e->>'number'))
     order by d.id, c.id, (e->>'number') is null
    on conflict (definition_id, entity_id) do update
      set value = excluded.value, defaulted = false, updated_at = now()
      where custom_field_values.defaulted;
end;
$$;
