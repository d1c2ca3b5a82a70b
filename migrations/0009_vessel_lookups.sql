-- Vessel future positions default to the vessel's calls in the account's shipments
-- (src/maps/queries.ts containerIdsForVessel): find them by vessel without scanning.
create index transport_events_by_vessel on transport_events (account_id, vessel_id) where vessel_id is not null;
create index shipments_by_pod_vessel on shipments (account_id, pod_vessel_id) where pod_vessel_id is not null;
