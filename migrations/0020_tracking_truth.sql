-- Tracking truth (issue 12). A transport event that later data shows was read wrongly (a
-- transshipment port first taken for the port of discharge, a re-plan) is kept, marked
-- invalidated, and stops counting for milestones; the original departure and destination
-- estimates are kept like pod_original_eta_at; the container's own export-side milestones and
-- its delivery are stored beside the import-side ones.
alter table transport_events add column invalidated_at timestamptz;

alter table shipments add column pol_original_etd_at timestamptz;
alter table shipments add column destination_original_eta_at timestamptz;

alter table containers add column empty_out_at timestamptz;
alter table containers add column pol_full_in_at timestamptz;
alter table containers add column pol_vessel_loaded_at timestamptz;
alter table containers add column pol_vessel_departed_at timestamptz;
alter table containers add column delivered_at timestamptz;
