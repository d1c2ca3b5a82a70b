// Row types of every table, for Kysely. They never leave the query modules: services map rows
// to domain objects at that boundary.
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface AccountsTable {
  id: string;
  name: string;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  prefix: string;
  secret_hash: Buffer;
  name: string | null;
  created_at: Generated<Date>;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface TrackingRequestsTable {
  id: string;
  account_id: string;
  request_number: string;
  request_type: string;
  /** Null while auto_detect_vocc_scac has not decided it yet (migrations/0034). */
  scac: string | null;
  ref_numbers: Generated<string[]>;
  shipment_tags: Generated<string[]>;
  status: Generated<string>;
  failed_reason: string | null;
  is_retrying: Generated<boolean>;
  retry_count: number | null;
  shipment_id: string | null;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  next_attempt_at: Timestamp | null;
  lease_owner: string | null;
  lease_expires_at: Timestamp | null;
  last_attempt_at: Timestamp | null;
  awaiting_manifest_since: Timestamp | null;
  /** The party named in relationships.customer (migrations/0030). */
  customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Staged custom field values (migrations/0031), JSON. */
  initial_custom_fields: ColumnType<unknown, string | null | undefined, string | null>;
}

export interface RateLimitCountsTable {
  account_id: string;
  bucket: string;
  slot: number;
  count: number;
}

type Ts = ColumnType<Date, Date | string, Date | string>;
type TsNull = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export interface VesselsTable {
  id: string;
  imo: string | null;
  name: string;
  name_key: string | null;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

export interface ShipmentsTable {
  id: string;
  account_id: string;
  scac: string;
  request_type: string;
  normalized_number: string;
  bill_of_lading_number: string;
  ref_numbers: Defaulted<string[]>;
  tags: Defaulted<string[]>;
  customer_name: string | null;
  /** The party of the tracking request that created it (migrations/0030). */
  customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  port_of_lading_locode: string | null;
  port_of_discharge_locode: string | null;
  destination_locode: string | null;
  transshipment_locodes: Defaulted<string[]>;
  pod_terminal_id: string | null;
  destination_terminal_id: string | null;
  pod_vessel_id: string | null;
  pod_voyage_number: string | null;
  pol_etd_at: TsNull;
  pol_atd_at: TsNull;
  pod_eta_at: TsNull;
  pod_original_eta_at: TsNull;
  pod_ata_at: TsNull;
  /** First departure estimate the line gave (migrations/0020). */
  pol_original_etd_at: TsNull;
  /** First inland-destination estimate the line gave (migrations/0020). */
  destination_original_eta_at: TsNull;
  destination_eta_at: TsNull;
  destination_ata_at: TsNull;
  line_tracking_last_attempted_at: TsNull;
  line_tracking_last_succeeded_at: TsNull;
  line_tracking_stopped_at: TsNull;
  line_tracking_stopped_reason: string | null;
  last_changed_at: TsNull;
  /** Carrier answer the stored state was built from (migrations/0006; src/engine/fingerprint.ts). */
  engine_fingerprint: Defaulted<string | null>;
  next_refresh_at: TsNull;
  refresh_failures: Defaulted<number>;
  lease_owner: string | null;
  lease_expires_at: TsNull;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

export interface PartiesTable {
  id: string;
  account_id: string;
  company_name: string;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

type Json = ColumnType<unknown, string | null | undefined, string | null>;

export interface CustomFieldDefinitionsTable {
  id: string;
  account_id: string;
  entity_type: string;
  api_slug: string;
  display_name: string;
  description: string | null;
  data_type: string;
  reference_type: string | null;
  validation: Json;
  default_format: string | null;
  default_value: Json;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

export interface CustomFieldOptionsTable {
  id: string;
  account_id: string;
  definition_id: string;
  label: string;
  value: string;
  position: number | null;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

export interface CustomFieldValuesTable {
  id: string;
  account_id: string;
  definition_id: string;
  entity_type: string;
  entity_id: string;
  value: Json;
  /** Given by the definition's default_value (migrations/0041), not by a user. */
  defaulted: Defaulted<boolean>;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

export interface ContainersTable {
  id: string;
  account_id: string;
  shipment_id: string;
  number: string;
  ref_numbers: Defaulted<string[]>;
  equipment_type: string | null;
  equipment_length: number | null;
  equipment_height: string | null;
  iso_equipment_code: string | null;
  seal_number: string | null;
  weight_in_lbs: string | null;
  pod_terminal_id: string | null;
  pod_arrived_at: TsNull;
  pod_discharged_at: TsNull;
  pod_full_out_at: TsNull;
  empty_terminated_at: TsNull;
  pod_rail_loaded_at: TsNull;
  pod_rail_departed_at: TsNull;
  ind_eta_at: TsNull;
  ind_ata_at: TsNull;
  ind_rail_unloaded_at: TsNull;
  final_destination_full_out_at: TsNull;
  empty_out_at: TsNull;
  pol_full_in_at: TsNull;
  pol_vessel_loaded_at: TsNull;
  pol_vessel_departed_at: TsNull;
  delivered_at: TsNull;
  current_status: Defaulted<string>;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
  availability_known: Defaulted<boolean>;
  available_for_pickup: boolean | null;
  location_at_pod_terminal: string | null;
  pod_full_out_chassis_number: string | null;
  holds_at_pod_terminal: Defaulted<unknown>;
  fees_at_pod_terminal: Defaulted<unknown>;
  pickup_lfd_line: TsNull;
  pickup_lfd_terminal: TsNull;
  pickup_lfd_rail: TsNull;
  pickup_appointment_at: TsNull;
  pod_berthed_at: TsNull;
  terminal_full_out_at: TsNull;
}

export interface ContainerTerminalChecksTable {
  container_id: string;
  account_id: string;
  next_check_at: Defaulted<Date>;
  checked_at: TsNull;
  failures: Defaulted<number>;
}

export interface TransportEventsTable {
  id: string;
  account_id: string;
  shipment_id: string;
  container_id: string;
  key: string;
  event: string;
  timestamp: TsNull;
  timestamp_inferred_zone: Defaulted<boolean>;
  timezone: string | null;
  location_locode: string | null;
  terminal_id: string | null;
  vessel_id: string | null;
  voyage_number: string | null;
  data_source: string;
  /** Set when later data showed this reading was wrong (migrations/0020): kept, not counted. */
  invalidated_at: TsNull;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

export interface EstimatedEventsTable {
  id: string;
  account_id: string;
  shipment_id: string;
  container_id: string | null;
  event: string;
  estimated_timestamp: Ts;
  previous_timestamp: TsNull;
  location_locode: string | null;
  timezone: string | null;
  vessel_id: string | null;
  voyage_number: string | null;
  data_source: Defaulted<string>;
  created_at: Defaulted<Date>;
}

export interface RawEventsTable {
  id: string;
  account_id: string;
  shipment_id: string;
  carrier_event_id: string;
  equipment_reference: string | null;
  event_type: string | null;
  event_code: string | null;
  classifier: string | null;
  event_at: TsNull;
  event_created_at: TsNull;
  location_locode: string | null;
  vessel_name: string | null;
  vessel_imo: string | null;
  voyage_number: string | null;
  payload: ColumnType<unknown, string, string>;
  created_at: Defaulted<Date>;
}

export interface DomainEventsTable {
  seq: Generated<string>;
  id: string;
  account_id: string;
  event: string;
  tracking_request_id: string | null;
  shipment_id: string | null;
  container_id: string | null;
  reference_type: string;
  reference_id: string;
  changeset: ColumnType<unknown, string | null, string | null>;
  created_at: Defaulted<Date>;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  active: Defaulted<boolean>;
  headers: ColumnType<Array<{ name: string; value: string }>, string | undefined, string>;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: TsNull;
  description: string | null;
  failing_since: TsNull;
  last_success_at: TsNull;
  last_failure_at: TsNull;
  deactivated_at: TsNull;
  deactivation_reason: string | null;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

export interface WebhookNotificationsTable {
  id: string;
  account_id: string;
  webhook_id: string;
  domain_event_id: string;
  event: string;
  delivery_status: Defaulted<string>;
  body: string | null;
  attempt_count: Defaulted<number>;
  next_attempt_at: TsNull;
  last_attempt_at: TsNull;
  delivered_at: TsNull;
  lease_owner: string | null;
  lease_expires_at: TsNull;
  created_at: Defaulted<Date>;
  updated_at: Defaulted<Date>;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  notification_id: string;
  attempted_at: Defaulted<Date>;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_excerpt: string | null;
}

export interface DB {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  tracking_requests: TrackingRequestsTable;
  rate_limit_counts: RateLimitCountsTable;
  vessels: VesselsTable;
  shipments: ShipmentsTable;
  containers: ContainersTable;
  container_terminal_checks: ContainerTerminalChecksTable;
  parties: PartiesTable;
  custom_field_definitions: CustomFieldDefinitionsTable;
  custom_field_options: CustomFieldOptionsTable;
  custom_field_values: CustomFieldValuesTable;
  transport_events: TransportEventsTable;
  estimated_events: EstimatedEventsTable;
  raw_events: RawEventsTable;
  domain_events: DomainEventsTable;
  webhooks: WebhooksTable;
  webhook_notifications: WebhookNotificationsTable;
  webhook_attempts: WebhookAttemptsTable;
}

export type { CreatedAt };
