-- What a container's document reads from its transport events, stored in the container (issue
-- 15), kept by statement-level triggers on transport_events for the containers whose events a
-- statement inserted, deleted or changed (one update per container and statement, so a bulk load
-- stays one pass):
--
-- transport_event_ids_json  the identifier array of its `transport_events` relationship in history
--                           order ("timestamp" nulls last, key), as resources in `included` write it:
--                           `[{"type":"transport_event","id":"…"},…]` (a shipment's containers, the
--                           hottest read; `data` rewrites it to id-first). Null without events.
-- empty_in_timezone         the zone of its last empty return (the latest
--                           container.transport.empty_in), served as empty_terminated_timezone.
--
-- Reading both from the events at every request (a uuid-to-text and a concatenation per event,
-- ~34 per container; a sort of the container's events for the zone) was about half of the
-- database's work for a shipment with its containers.

alter table containers add column transport_event_ids_json text, add column empty_in_timezone text;

create or replace function container_transport_event_ids_json(container uuid) returns text
language sql stable as $$
  select '[{"type":"transport_event","id":"' || nullif(array_to_string(array(
    select id from transport_events where container_id = container order by "timestamp" nulls last, key
  ), '"},{"type":"transport_event","id":"'), '') || '"}]'
$$;

create or replace function container_empty_in_timezone(container uuid) returns text
language sql stable as $$
  select e.timezone from transport_events e
  where e.container_id = container and e.event = 'container.transport.empty_in'
  order by e."timestamp" desc nulls first, e.key desc limit 1
$$;

create or replace function render_container_event_facts() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    update containers c set transport_event_ids_json = container_transport_event_ids_json(c.id),
        empty_in_timezone = container_empty_in_timezone(c.id)
      where c.id in (select distinct container_id from new_rows);
  elsif TG_OP = 'DELETE' then
    update containers c set transport_event_ids_json = container_transport_event_ids_json(c.id),
        empty_in_timezone = container_empty_in_timezone(c.id)
      where c.id in (select distinct container_id from old_rows);
  else
    -- Only what orders, places or names an event, or its zone: an invalidation changes neither
    -- value and writes no container. (A trigger with transition tables cannot name columns.)
    update containers c set transport_event_ids_json = container_transport_event_ids_json(c.id),
        empty_in_timezone = container_empty_in_timezone(c.id)
      where c.id in (
        select x.container_id from new_rows n join old_rows o on o.id = n.id,
          lateral (values (n.container_id), (o.container_id)) as x(container_id)
        where (n."timestamp", n.key, n.container_id, n.event, n.timezone)
          is distinct from (o."timestamp", o.key, o.container_id, o.event, o.timezone));
  end if;
  return null;
end $$;

create trigger transport_events_facts_ins after insert on transport_events
  referencing new table as new_rows for each statement execute function render_container_event_facts();
create trigger transport_events_facts_del after delete on transport_events
  referencing old table as old_rows for each statement execute function render_container_event_facts();
create trigger transport_events_facts_upd after update on transport_events
  referencing old table as old_rows new table as new_rows
  for each statement execute function render_container_event_facts();

-- Both columns change only with the container's events, whose own notification on the change feed
-- (0037) names the container and its shipment: for the container's trigger they are bookkeeping,
-- so keeping them sends no second notification.
drop trigger containers_changes_upd on containers;
create trigger containers_changes_upd after update on containers
  referencing old table as old_rows new table as new_rows
  for each statement execute function
  notify_resource_changes('{transport_event_ids_json,empty_in_timezone}', 'id', 'shipment_id');

update containers c set transport_event_ids_json = container_transport_event_ids_json(c.id),
  empty_in_timezone = container_empty_in_timezone(c.id);
