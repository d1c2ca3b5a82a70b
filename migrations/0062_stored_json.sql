-- Made by scripts/migration-stored-json.ts from the resources' declarations (src/members/):
-- the stored JSON pieces, their trigger functions and triggers, and every row rendered again.

create or replace function render_transport_event_json() returns trigger language plpgsql as $$
begin
  new.resource_json := concat('{"id":', coalesce(to_json(new.id::text)::text, 'null'), ',"type":"transport_event","attributes":{"event":', coalesce(to_json(new.event)::text, 'null'), ',"created_at":', coalesce(to_char((new.created_at) at time zone 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z\"'), 'null'), ',"voyage_number":', coalesce(to_json(new.voyage_number)::text, 'null'), ',"timestamp":', coalesce(to_char((new."timestamp") at time zone 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z\"'), 'null'), ',"timezone":', coalesce(to_json(new.timezone)::text, 'null'), ',"location_locode":', coalesce(to_json(new.location_locode)::text, 'null'), ',"data_source":', coalesce(to_json(new.data_source)::text, 'null'), ',"invalidated_at":', coalesce(to_char((new.invalidated_at) at time zone 'UTC', '\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z\"'), 'null'), ',"value":null},"links":{"self":"/v2', '/transport_events/' || new.id, '"},"relationships":{"shipment":{"data":', coalesce('{"id":"' || (new.shipment_id) || '","type":"shipment"}', 'null'), '},"container":{"data":', coalesce('{"id":"' || (new.container_id) || '","type":"container"}', 'null'), '},"location":{"data":', case when (new.location_locode) is null then 'null' else concat('"', chr(1), 'pd:', new.location_locode, '"') end, '},"terminal":{"data":', coalesce('{"id":"' || (new.terminal_id) || '","type":"terminal"}', 'null'), '},"vessel":{"data":', coalesce('{"id":"' || (new.vessel_id) || '","type":"vessel"}', 'null'), '}}}');
  return new;
end $$;
drop trigger if exists transport_events_render_json on transport_events;
create trigger transport_events_render_json before insert or update of container_id, created_at, data_source, event, id, invalidated_at, location_locode, shipment_id, terminal_id, "timestamp", timezone, vessel_id, voyage_number on transport_events
  for each row execute function render_transport_event_json();
update transport_events set container_id = container_id;
