-- Indexes found missing by the benchmark's query plans (docs/benchmarks.md): a refresh reads all
-- of a shipment's transport events by shipment_id, and notifications are listed per webhook.

create index transport_events_by_shipment on transport_events (shipment_id);
create index estimated_events_by_container on estimated_events (container_id) where container_id is not null;
