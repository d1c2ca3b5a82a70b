-- How many transport events a container has, kept in the container beside the identifiers of its
-- events (0044) by the same statement-level triggers: the `meta.total` of
-- GET /v2/containers/{id}/transport_events. Counting the container's events at every request was
-- about a tenth of the database's work for that read (issue 15).

alter table containers add column transport_event_count integer not null default 0;

-- What the events give the containers `ids`, written once for all of them. PL/pgSQL, so its plan is
-- kept for the session (a SQL function's UPDATE would be planned at every call).
create or replace function write_container_event_facts(ids uuid[]) returns void language plpgsql as $$
begin
  update containers c set transport_event_ids_json = container_transport_event_ids_json(c.id),
      empty_in_timezone = container_empty_in_timezone(c.id),
      transport_event_count = (select count(*) from transport_events e where e.container_id = c.id)
    where c.id = any(ids);
end $$;

create or replace function render_container_event_facts() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    perform write_container_event_facts(array(select distinct container_id from new_rows));
  elsif TG_OP = 'DELETE' then
    perform write_container_event_facts(array(select distinct container_id from old_rows));
  else
    -- Only what orders, places or names an event, or its zone: an invalidation changes no value
    -- and writes no container. (A trigger with transition tables cannot name columns.)
    perform write_container_event_facts(array(
      select distinct x.container_id from new_rows n join old_rows o on o.id = n.id,
        lateral (values (n.container_id), (o.container_id)) as x(container_id)
      where (n."timestamp", n.key, n.container_id, n.event, n.timezone)
        is distinct from (o."timestamp", o.key, o.container_id, o.event, o.timezone)));
  end if;
  return null;
end $$;

-- Bookkeeping for the container's own change notification, as the other two (0044).
drop trigger containers_changes_upd on containers;
create trigger containers_changes_upd after update on containers
  referencing old table as old_rows new table as new_rows
  for each statement execute function
  notify_resource_changes('{transport_event_ids_json,empty_in_timezone,transport_event_count}', 'id', 'shipment_id');

update containers c set transport_event_count = n.count
  from (select container_id, count(*)::int as count from transport_events group by container_id) n
  where n.container_id = c.id;
