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
  scac: string;
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
}

export interface RateLimitCountsTable {
  account_id: string;
  bucket: string;
  slot: number;
  count: number;
}

export interface DB {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  tracking_requests: TrackingRequestsTable;
  rate_limit_counts: RateLimitCountsTable;
}

export type { CreatedAt };
