-- Search (GET /v2/search, issue 13): case-insensitive partial matching of numbers, reference
-- numbers, tags and custom field values with trigram GIN indexes (pg_trgm; PGlite ships it as a
-- contrib extension, loaded in src/db/database.ts). Every ILIKE '%term%' of src/search/queries.ts
-- has an index here.
create extension if not exists pg_trgm;

-- array_to_string is only STABLE; for text[] it is immutable in fact, which an index needs.
create or replace function search_text(text[]) returns text language sql immutable parallel safe
  as $$ select array_to_string($1, ' ') $$;

create index shipments_search_bl on shipments using gin (bill_of_lading_number gin_trgm_ops);
create index shipments_search_number on shipments using gin (normalized_number gin_trgm_ops);
create index shipments_search_refs on shipments using gin (search_text(ref_numbers) gin_trgm_ops);
create index shipments_search_tags on shipments using gin (search_text(tags) gin_trgm_ops);
create index containers_search_number on containers using gin (number gin_trgm_ops);
create index containers_search_refs on containers using gin (search_text(ref_numbers) gin_trgm_ops);
create index tracking_requests_search_number on tracking_requests using gin (request_number gin_trgm_ops);
create index tracking_requests_search_refs on tracking_requests using gin (search_text(ref_numbers) gin_trgm_ops);
create index custom_field_values_search on custom_field_values using gin ((value #>> '{}') gin_trgm_ops);
