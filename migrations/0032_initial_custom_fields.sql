-- initial_custom_fields of a tracking request (issue 13), staged as JSON on the request and
-- applied by the database when the entities appear: the shipment's entries once the request is
-- linked to its shipment, the containers' entries to each of its containers (an entry with a
-- number to that container only, one without to every container), whichever of request link and
-- container insert comes first. The engine that creates them knows nothing of custom fields.
-- A value already set is kept (on conflict do nothing): what a user set wins.

create or replace function apply_initial_custom_fields(tr_account uuid, fields jsonb, p_shipment uuid,
                                                       p_container uuid) returns void language plpgsql as $$
begin
  if p_container is null then
    insert into custom_field_values (id, account_id, definition_id, entity_type, entity_id, value)
      select gen_random_uuid(), tr_account, d.id, 'shipment', p_shipment, e->'value'
        from jsonb_array_elements(coalesce(fields->'shipment', '[]'::jsonb)) e
        join custom_field_definitions d
          on d.account_id = tr_account and d.api_slug = e->>'api_slug' and d.entity_type = 'Shipment'
      on conflict (definition_id, entity_id) do nothing;
  end if;
  insert into custom_field_values (id, account_id, definition_id, entity_type, entity_id, value)
    select gen_random_uuid(), tr_account, d.id, 'container', c.id, e->'value'
      from jsonb_array_elements(coalesce(fields->'containers', '[]'::jsonb)) e
      join custom_field_definitions d
        on d.account_id = tr_account and d.api_slug = e->>'api_slug' and d.entity_type = 'Container'
      join containers c
        on c.account_id = tr_account and c.shipment_id = p_shipment
       and (p_container is null or c.id = p_container)
       and (e->>'number' is null or c.number = upper(e->>'number'))
    on conflict (definition_id, entity_id) do nothing;
end;
$$;

create or replace function tracking_request_initial_custom_fields() returns trigger language plpgsql as $$
begin
  if new.shipment_id is not null and new.initial_custom_fields is not null then
    perform apply_initial_custom_fields(new.account_id, new.initial_custom_fields, new.shipment_id, null);
  end if;
  return null;
end;
$$;
create trigger tracking_requests_initial_custom_fields
  after insert or update of shipment_id on tracking_requests
  for each row execute function tracking_request_initial_custom_fields();

create or replace function container_initial_custom_fields() returns trigger language plpgsql as $$
declare
  tr record;
begin
  for tr in select account_id, initial_custom_fields from tracking_requests
             where shipment_id = new.shipment_id and initial_custom_fields is not null loop
    perform apply_initial_custom_fields(tr.account_id, tr.initial_custom_fields, new.shipment_id, new.id);
  end loop;
  return null;
end;
$$;
create trigger containers_initial_custom_fields after insert on containers
  for each row execute function container_initial_custom_fields();

create index tracking_requests_staged_fields on tracking_requests (shipment_id)
  where initial_custom_fields is not null;
