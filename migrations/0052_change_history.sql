-- Change history (issue 32): GET /v2/shipments/{id}/changes and /v2/containers/{id}/changes read
-- the changesets the engine already records as domain events, one row per attribute; no second
-- copy of the facts is kept. `source` says where a change came from: 'shipping_line' (a carrier
-- look-up), 'terminal' (a terminal check) or 'user' (an edit through the API).

alter table domain_events add column source text
  check (source in ('shipping_line', 'terminal', 'user'));

-- Existing changesets of tracked facts. The terminal's container updates name only terminal
-- attributes (engine/terminal-diff.ts) and the carrier's only carrier ones (engine/facts.ts), so the
-- keys tell them apart.
update domain_events
   set source = case
         when event <> 'container.updated'
           or changeset ?| array['availability_known', 'available_for_pickup', 'location_at_pod_terminal',
                                 'holds_at_pod_terminal', 'fees_at_pod_terminal', 'pickup_appointment_at',
                                 'pickup_lfd']
         then 'terminal'
         else 'shipping_line'
       end
 where changeset is not null
   and event in ('container.updated', 'container.pickup_lfd.changed', 'container.pickup_lfd_line.changed',
                 'container.pickup_lfd_terminal.changed', 'container.pickup_lfd_rail.changed',
                 'container.pickup_appointment.changed');
update domain_events set source = 'shipping_line'
 where changeset is not null and event = 'container.pod_terminal_changed';

-- Arrival estimates moved before this migration were announced by estimated events, which keep the
-- value before and after: their domain events get the changeset the engine now writes (the POD ETA
-- of the shipment, the inland ETA of a container), so existing shipments show a history.
update domain_events d
   set source = 'shipping_line',
       changeset = jsonb_build_object(
         case d.event when 'shipment.estimated.arrival' then 'pod_eta_at' else 'ind_eta_at' end,
         jsonb_build_array(
           to_char(e.previous_timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           to_char(e.estimated_timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
  from estimated_events e
 where e.id = d.reference_id
   and d.reference_type = 'estimated_event'
   and d.changeset is null
   and d.event in ('shipment.estimated.arrival',
                   'container.transport.estimated.arrived_at_inland_destination');

-- A shipment's or container's history, newest first, without reading the rest of the log.
create index domain_events_changes_by_shipment on domain_events (shipment_id, created_at)
  where source is not null and changeset is not null;
create index domain_events_changes_by_container on domain_events (container_id, created_at)
  where source is not null and changeset is not null;
