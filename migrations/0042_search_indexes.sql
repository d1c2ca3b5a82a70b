-- Search at a million containers (issue 13; bench/search.ts, docs/benchmarks.md).
-- Exact number matches of shipments and tracking requests had no b-tree to use: the planner took
-- the trigram index for `=` (18 ms at 500,000 shipments, and once per candidate request in the
-- "not found as its shipment" check).
create index shipments_by_number on shipments (account_id, normalized_number);
create index tracking_requests_by_number on tracking_requests (account_id, request_number);

-- Custom field values: one trigram index per entity type, so the shipment, container and tracking
-- request searches each read only their own values (src/search/queries.ts names the type as a
-- literal, which the planner needs to pick a partial index).
drop index custom_field_values_search;
create index custom_field_values_search_shipment on custom_field_values
  using gin ((value #>> '{}') gin_trgm_ops) where entity_type = 'shipment';
create index custom_field_values_search_container on custom_field_values
  using gin ((value #>> '{}') gin_trgm_ops) where entity_type = 'container';
create index custom_field_values_search_tracking_request on custom_field_values
  using gin ((value #>> '{}') gin_trgm_ops) where entity_type = 'tracking_request';

-- The planner's estimate of `(value #>> '{}') ILIKE ...`: partial indexes carry no statistics of
-- their expression, so without these a term in every value ("Vendor") was estimated at 160 rows of
-- 500,000 and served by a bitmap of all 500,000 (90 ms) instead of a scan that stops at 100.
create statistics custom_field_values_text on ((value #>> '{}')) from custom_field_values;
analyze custom_field_values;
