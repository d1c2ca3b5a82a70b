-- The database path of the hot reads (issue 15, src/shipments/sql-documents/): a shipment's
-- containers in number order, and their ids alone for the shipment's `containers` relationship
-- (index-only). Until now containers were found by scanning the account's containers_by_number.
create index containers_by_shipment on containers (shipment_id, number) include (id, account_id);

-- A container's transport event ids in history order, read from the index alone (a container
-- resource lists them all); replaces transport_events_by_container, whose prefix it keeps.
create index transport_events_ids_by_container on transport_events (container_id, "timestamp", key)
  include (id, account_id);
drop index transport_events_by_container;
