-- The database path of the hot reads (issue 15, src/shipments/sql-documents/): a shipment's
-- containers in number order, and their ids alone for the shipment's `containers` relationship
-- (index-only). Until now containers were found by scanning the account's containers_by_number.
create index containers_by_shipment on containers (shipment_id, number) include (id, account_id);
