import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { dcsaSnapshot } from '../../src/carriers/dcsa/snapshot.ts';
import { loadConfig } from '../../src/config.ts';
import type { DB } from '../../src/db/schema.ts';
import type { CarrierAdapter } from '../../src/engine/carrier.ts';
import type { ClaimedRequest, ClaimedShipment } from '../../src/engine/claims.ts';
import type { EngineDeps } from '../../src/engine/deps.ts';
import { stopShipmentTracking } from '../../src/engine/line-tracking.ts';
import { processShipmentRefresh } from '../../src/engine/refresh.ts';
import { processTrackingRequest } from '../../src/engine/request.ts';
import { ensureVessels, vesselKey } from '../../src/engine/vessels.ts';
import { terminalBySmdg } from '../../src/reference/data.ts';
import { updateShipment } from '../../src/shipments/queries.ts';
import { batchedTrackingRequestInsert } from '../../src/tracking-requests/queries.ts';
import { validateCreate } from '../../src/tracking-requests/validate.ts';
import { checkDigit } from '../../src/util/iso6346.ts';
import { carrierAnswers, VESSEL } from './seed-journey.ts';

// A realistic tracked shipment, made the way the product makes one: a tracking request created
// through the API's service function, answered by the carrier (seed-journey.ts, read by the DCSA
// adapter's pure snapshot function) and processed by the engine's own request and refresh
// functions. User attributes go through the PATCH and stop services. Only the created/updated
// timestamps tests sort and filter on are set directly (setTimestamps below): the product has no
// way to set them. For read tests of shipments and containers.

export { VESSEL };
export const POD_TERMINAL = terminalBySmdg('NLRTM', 'DDE')!;
export const POL_TERMINAL = terminalBySmdg('CNYTN', 'YICT')!;

/** A valid ISO 6346 number with the given owner code (4 letters) and a random serial. */
export function containerNumber(owner = 'HLXU'): string {
  const serial = String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0');
  const first10 = `${owner}${serial}`;
  return `${first10}${checkDigit(first10)}`;
}

export interface SeedOptions {
  scac?: string;
  /** Bill of lading (also the normalized and requested number). Random when unset. */
  number?: string;
  /** Container numbers; two random Hapag-Lloyd boxes when unset. */
  containers?: string[];
  refNumbers?: string[];
  tags?: string[];
  createdAt?: Date;
  updatedAt?: Date;
  stopped?: { at: Date; reason: 'all_containers_terminated' | 'past_arrival_window' | 'cancelled_by_user' };
}

export interface SeededShipment {
  shipmentId: string;
  number: string;
  trackingRequestId: string;
  containerIds: string[];
  containerNumbers: string[];
  /** Per container id: transport event ids in the expected history order. */
  transportEventIds: Map<string, string[]>;
  /** Per container id: the transport events' names in the expected history order. */
  transportEventNames: Map<string, string[]>;
  vesselId: string;
  /** Raw events the carrier sent: carrier event id -> payload. */
  rawPayloads: Map<string, Record<string, unknown>>;
}

// When the carrier was asked: a few days after departure, then once the first box was back.
const FIRST_ASKED = new Date('2024-03-10T00:00:00Z');
const LAST_ASKED = new Date('2024-04-16T00:00:00Z');
const OWNER = 'test-seed';

/** The shared vessel, recorded as the engine records vessels (they are not account data). */
export async function seedVessel(db: Kysely<DB>): Promise<string> {
  const ids = await ensureVessels(db, [VESSEL]);
  return ids.get(vesselKey(VESSEL))!;
}

export async function seedShipment(
  db: Kysely<DB>,
  accountId: string,
  opts: SeedOptions = {},
): Promise<SeededShipment> {
  const scac = opts.scac ?? 'HLCU';
  const number = opts.number ?? `HLCUSHA${randomBytes(4).toString('hex').toUpperCase()}`;
  const containers = opts.containers ?? [containerNumber(), containerNumber()];
  const answers = carrierAnswers(number, containers);

  const input = validateCreate({ request_type: 'bill_of_lading', request_number: number, scac });
  const tr = await batchedTrackingRequestInsert(db)(accountId, input);
  let answer = answers.first;
  const carrier: CarrierAdapter = {
    scac,
    numberTypes: ['bill_of_lading'],
    lookup: async () => ({ kind: 'found', snapshot: dcsaSnapshot(answer) }),
  };
  let now = FIRST_ASKED;
  const deps: EngineDeps = {
    db,
    carriers: new Map([[scac, carrier]]),
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    log: pino({ level: 'silent' }),
    owner: OWNER,
    now: () => now,
  };
  await processTrackingRequest(deps, await leaseRequest(db, tr.id));
  const { shipment_id: shipmentId } = await db
    .selectFrom('tracking_requests')
    .select('shipment_id')
    .where('id', '=', tr.id)
    .executeTakeFirstOrThrow();
  if (!shipmentId) throw new Error(`seed: tracking request ${tr.id} did not create a shipment`);
  answer = answers.second;
  now = LAST_ASKED;
  await processShipmentRefresh(deps, await leaseShipment(db, shipmentId));

  if (opts.refNumbers || opts.tags)
    await updateShipment(db, accountId, shipmentId, { ref_numbers: opts.refNumbers, tags: opts.tags });
  if (opts.stopped) {
    const reason = opts.stopped.reason;
    await db.transaction().execute((tx) => stopShipmentTracking(tx, accountId, shipmentId, reason));
  }
  await setTimestamps(db, shipmentId, opts);
  return describeShipment(db, shipmentId, number, tr.id, answers.second);
}

/**
 * What claimDueRequests does, for this one request only: the engine writes only under its lease,
 * and claiming every due request would also take other tests' queued ones.
 */
async function leaseRequest(db: Kysely<DB>, id: string): Promise<ClaimedRequest> {
  return db
    .updateTable('tracking_requests')
    .set({ lease_owner: OWNER, lease_expires_at: new Date(Date.now() + 60_000) })
    .where('id', '=', id)
    .returning([
      'id',
      'account_id',
      'request_number',
      'request_type',
      'scac',
      'retry_count',
      'awaiting_manifest_since',
      'ref_numbers',
      'shipment_tags',
    ])
    .executeTakeFirstOrThrow() as Promise<ClaimedRequest>;
}

/** What claimDueShipments does, for this one shipment; no fingerprint, so the refresh runs in full. */
async function leaseShipment(db: Kysely<DB>, id: string): Promise<ClaimedShipment> {
  const s = await db
    .updateTable('shipments')
    .set({ lease_owner: OWNER, lease_expires_at: new Date(Date.now() + 60_000) })
    .where('id', '=', id)
    .returning([
      'id',
      'account_id',
      'scac',
      'request_type',
      'normalized_number',
      'refresh_failures',
      'ref_numbers',
    ])
    .executeTakeFirstOrThrow();
  return {
    ...(s as Pick<ClaimedShipment, 'id' | 'account_id' | 'scac' | 'request_type' | 'normalized_number'>),
    refresh_failures: s.refresh_failures,
    ref_numbers: s.ref_numbers,
    engine_fingerprint: null,
    row_version: '',
    pod_eta_at: null,
    pod_ata_at: null,
    last_changed_at: null,
    container_times: [],
  };
}

/**
 * Test-only: the product stamps created_at/updated_at (and a stop's time) with now(), and has no
 * way to set them; tests that sort and filter on them need fixed values.
 */
async function setTimestamps(db: Kysely<DB>, shipmentId: string, opts: SeedOptions): Promise<void> {
  const created = opts.createdAt ?? new Date();
  const stamps = { created_at: created, updated_at: opts.updatedAt ?? created };
  await db
    .updateTable('shipments')
    .set({ ...stamps, ...(opts.stopped ? { line_tracking_stopped_at: opts.stopped.at } : {}) })
    .where('id', '=', shipmentId)
    .execute();
  await db.updateTable('containers').set(stamps).where('shipment_id', '=', shipmentId).execute();
}

/** Reads back what the engine stored, in the order the API must list it. */
async function describeShipment(
  db: Kysely<DB>,
  shipmentId: string,
  number: string,
  trackingRequestId: string,
  answer: Record<string, unknown>[],
): Promise<SeededShipment> {
  const shipment = await db
    .selectFrom('shipments')
    .select('pod_vessel_id')
    .where('id', '=', shipmentId)
    .executeTakeFirstOrThrow();
  const containers = await db
    .selectFrom('containers')
    .select(['id', 'number'])
    .where('shipment_id', '=', shipmentId)
    .orderBy('number')
    .execute();
  const events = await db
    .selectFrom('transport_events')
    .select(['id', 'container_id', 'event', 'key', 'timestamp'])
    .where('shipment_id', '=', shipmentId)
    .execute();
  // History order: by time, a null time last, equal times by key.
  const time = (t: Date | null) => t?.getTime() ?? Number.POSITIVE_INFINITY;
  events.sort((a, b) => time(a.timestamp) - time(b.timestamp) || a.key.localeCompare(b.key));
  const of = (id: string) => events.filter((e) => e.container_id === id);
  const numbers = answer.flatMap((e) =>
    typeof e.equipmentReference === 'string' ? [e.equipmentReference] : [],
  );
  const ordered = [...new Set(numbers)].map((n) => containers.find((c) => c.number === n)!);
  return {
    shipmentId,
    number,
    trackingRequestId,
    containerIds: ordered.map((c) => c.id),
    containerNumbers: ordered.map((c) => c.number),
    transportEventIds: new Map(ordered.map((c) => [c.id, of(c.id).map((e) => e.id)])),
    transportEventNames: new Map(ordered.map((c) => [c.id, of(c.id).map((e) => e.event)])),
    vesselId: shipment.pod_vessel_id!,
    rawPayloads: new Map(answer.map((e) => [String(e.eventID), e])),
  };
}
