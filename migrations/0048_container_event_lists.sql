-- Each container's whole list of transport events, as GET /v2/containers/{id}/transport_events
-- serves it when the list fits its page (the default page of 100 holds nearly every container's):
-- the events' stored JSON (0043) joined in history order ("timestamp" nulls last, key), and what
-- the includes need from them in the same order. Kept by the statement-level triggers of 0044 and
-- 0046 for the containers whose events a statement inserted, deleted or changed.
--
-- Reading ~34 event rows and joining their JSON at every request was most of the database's work
-- for that read (issue 15). The text compresses ~10x (2.6 KB stored for 27 KB of JSON), so this
-- adds about a tenth to the events' size on disk.
--
-- A table of its own, not columns of containers: the containers' change-feed trigger turns whole
-- rows into jsonb at every update of a container (0047), and the event changes already name the
-- container on the change feed.

create table container_event_lists (
  container_id uuid primary key references containers (id) on delete cascade,
  events_json text not null,
  locodes_json text not null,
  terminals_json text not null,
  vessel_ids uuid[] not null
);

-- Rewrites the lists of the containers `ids` from their events (a container with none has no list).
create or replace function write_container_event_lists(ids uuid[]) returns void language plpgsql as $$
begin
  delete from container_event_lists l where l.container_id = any(ids)
    and not exists (select 1 from transport_events e where e.container_id = l.container_id);
  insert into container_event_lists as l (container_id, events_json, locodes_json, terminals_json, vessel_ids)
  select c.id, x.events_json, x.locodes_json, x.terminals_json, x.vessel_ids
    from containers c cross join lateral (
      select string_agg(e.resource_json, ',' order by e."timestamp" nulls last, e.key) as events_json,
        to_json(array_agg(e.location_locode order by e."timestamp" nulls last, e.key))::text as locodes_json,
        to_json(array_agg(e.terminal_id order by e."timestamp" nulls last, e.key))::text as terminals_json,
        array_agg(e.vessel_id order by e."timestamp" nulls last, e.key) as vessel_ids
      from transport_events e where e.container_id = c.id) x
    where c.id = any(ids) and x.events_json is not null
  on conflict (container_id) do update set events_json = excluded.events_json,
    locodes_json = excluded.locodes_json, terminals_json = excluded.terminals_json,
    vessel_ids = excluded.vessel_ids;
end $$;

create or replace function render_container_event_facts() returns trigger language plpgsql as $$
declare
  ids uuid[];
begin
  if TG_OP = 'INSERT' then
    ids := array(select distinct container_id from new_rows);
    perform write_container_event_facts(ids);
    perform write_container_event_lists(ids);
  elsif TG_OP = 'DELETE' then
    ids := array(select distinct container_id from old_rows);
    perform write_container_event_facts(ids);
    perform write_container_event_lists(ids);
  else
    -- The container's facts follow what orders, places or names an event, or its zone; its list
    -- follows the events' JSON too (an invalidation changes the list and nothing else, so it
    -- writes no container row). (A trigger with transition tables cannot name columns.)
    perform write_container_event_facts(array(
      select distinct x.container_id from new_rows n join old_rows o on o.id = n.id,
        lateral (values (n.container_id), (o.container_id)) as x(container_id)
      where (n."timestamp", n.key, n.container_id, n.event, n.timezone)
        is distinct from (o."timestamp", o.key, o.container_id, o.event, o.timezone)));
    perform write_container_event_lists(array(
      select distinct x.container_id from new_rows n join old_rows o on o.id = n.id,
        lateral (values (n.container_id), (o.container_id)) as x(container_id)
      where (n."timestamp", n.key, n.container_id, n.resource_json, n.location_locode, n.terminal_id, n.vessel_id)
        is distinct from (o."timestamp", o.key, o.container_id, o.resource_json, o.location_locode, o.terminal_id, o.vessel_id)));
  end if;
  return null;
end $$;

-- The existing containers' lists, in one pass over the events (the function above, given every
-- container at once, looks each one's events up in turn: fine for a statement's few, slow for all).
insert into container_event_lists (container_id, events_json, locodes_json, terminals_json, vessel_ids)
select e.container_id,
  string_agg(e.resource_json, ',' order by e."timestamp" nulls last, e.key),
  to_json(array_agg(e.location_locode order by e."timestamp" nulls last, e.key))::text,
  to_json(array_agg(e.terminal_id order by e."timestamp" nulls last, e.key))::text,
  array_agg(e.vessel_id order by e."timestamp" nulls last, e.key)
from transport_events e group by e.container_id;
