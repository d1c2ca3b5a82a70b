-- Column notes, kept in the database so `npm run db:types` carries them into src/db/schema.ts.
comment on column tracking_requests.scac is 'Null while auto_detect_vocc_scac has not decided it yet (migrations/0034).';
comment on column tracking_requests.customer_id is 'The party named in relationships.customer (migrations/0030).';
comment on column tracking_requests.initial_custom_fields is 'Staged custom field values (migrations/0031), JSON.';
comment on column shipments.customer_id is 'The party of the tracking request that created it (migrations/0030).';
comment on column shipments.pol_original_etd_at is 'First departure estimate the line gave (migrations/0020).';
comment on column shipments.destination_original_eta_at is 'First inland-destination estimate the line gave (migrations/0020).';
comment on column shipments.engine_fingerprint is 'Carrier answer the stored state was built from (migrations/0006; src/engine/fingerprint.ts).';
comment on column custom_field_values.defaulted is 'Given by the definition''s default_value (migrations/0041), not by a user.';
comment on column transport_events.invalidated_at is 'Set when later data showed this reading was wrong (migrations/0020): kept, not counted.';
