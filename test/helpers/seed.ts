import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.ts';
import { terminalBySmdg } from '../../src/reference/data.ts';
import { checkDigit } from '../../src/util/iso6346.ts';

// Inserts a realistic tracked shipment straight through Kysely, as the engine would leave it:
// Yantian (CNYTN) -> Rotterdam (NLRTM, ECT Delta DDE) -> Duisburg (DEDUI) on the Rotterdam
// Express, with containers, their transport events, the carrier's raw DCSA events, the vessel and
// the tracking request that asked for it. For read tests of shipments and containers.

export const VESSEL = { imo: '9501368', name: 'Rotterdam Express' };
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
  stopped?: { at: Date; reason: string };
  /** Status of the linked tracking request; null = no tracking request. Default `created`. */
  trackingRequestStatus?: string | null;
  /** Insert raw events and transport events (default true). */
  events?: boolean;
}

export interface SeededShipment {
  shipmentId: string;
  number: string;
  trackingRequestId: string | null;
  containerIds: string[];
  containerNumbers: string[];
  /** Per container id: transport event ids in the expected history order. */
  transportEventIds: Map<string, string[]>;
  /** Per container id: the transport events' names in the expected history order. */
  transportEventNames: Map<string, string[]>;
  vesselId: string;
  /** Raw event rows inserted: carrier event id -> payload. */
  rawPayloads: Map<string, Record<string, unknown>>;
}

const at = (s: string) => new Date(s);

/** The journey each container makes. A null timestamp sorts last; equal timestamps sort by key. */
const JOURNEY: Array<{
  event: string;
  key: string;
  timestamp: string | null;
  locode: string | null;
  terminal: 'pol' | 'pod' | null;
  vessel: boolean;
  voyage: string | null;
}> = [
  {
    event: 'empty_out',
    key: 'a:empty_out:CNYTN',
    timestamp: '2024-03-01T01:00:00Z',
    locode: 'CNYTN',
    terminal: null,
    vessel: false,
    voyage: null,
  },
  {
    event: 'full_in',
    key: 'b:full_in:CNYTN',
    timestamp: '2024-03-04T06:00:00Z',
    locode: 'CNYTN',
    terminal: 'pol',
    vessel: false,
    voyage: null,
  },
  {
    event: 'vessel_loaded',
    key: 'c:vessel_loaded:CNYTN',
    timestamp: '2024-03-06T14:10:00Z',
    locode: 'CNYTN',
    terminal: 'pol',
    vessel: true,
    voyage: '412W',
  },
  {
    event: 'vessel_departed',
    key: 'd:vessel_departed:CNYTN',
    timestamp: '2024-03-07T02:00:00Z',
    locode: 'CNYTN',
    terminal: 'pol',
    vessel: true,
    voyage: '412W',
  },
  // Same instant: ordered by key (arrived before berthed).
  {
    event: 'vessel_berthed',
    key: 'f:vessel_berthed:NLRTM',
    timestamp: '2024-04-08T06:00:00Z',
    locode: 'NLRTM',
    terminal: 'pod',
    vessel: true,
    voyage: '412W',
  },
  {
    event: 'vessel_arrived',
    key: 'e:vessel_arrived:NLRTM',
    timestamp: '2024-04-08T06:00:00Z',
    locode: 'NLRTM',
    terminal: 'pod',
    vessel: true,
    voyage: '412W',
  },
  {
    event: 'vessel_discharged',
    key: 'g:vessel_discharged:NLRTM',
    timestamp: '2024-04-08T20:00:00Z',
    locode: 'NLRTM',
    terminal: 'pod',
    vessel: true,
    voyage: '412W',
  },
  // No timestamp: last.
  {
    event: 'available',
    key: 'a0:available:NLRTM',
    timestamp: null,
    locode: 'NLRTM',
    terminal: 'pod',
    vessel: false,
    voyage: null,
  },
  {
    event: 'full_out',
    key: 'h:full_out:NLRTM',
    timestamp: '2024-04-10T09:00:00Z',
    locode: 'NLRTM',
    terminal: 'pod',
    vessel: false,
    voyage: null,
  },
  {
    event: 'empty_in',
    key: 'i:empty_in:NLRTM',
    timestamp: '2024-04-15T12:30:00Z',
    locode: 'NLRTM',
    terminal: null,
    vessel: false,
    voyage: null,
  },
];

function expectedOrder(): typeof JOURNEY {
  return [...JOURNEY].sort((a, b) => {
    if (a.timestamp === null || b.timestamp === null) {
      return a.timestamp === b.timestamp ? a.key.localeCompare(b.key) : a.timestamp === null ? 1 : -1;
    }
    return a.timestamp.localeCompare(b.timestamp) || a.key.localeCompare(b.key);
  });
}

const transportCall = (locode: string, facility: string) => ({
  transportCallID: `TC-${locode}-ROTEX-412W`,
  carrierServiceCode: 'FE2',
  exportVoyageNumber: '412W',
  importVoyageNumber: '411E',
  UNLocationCode: locode,
  facilityCode: facility,
  facilityCodeListProvider: 'SMDG',
  modeOfTransport: 'VESSEL',
  vessel: { vesselIMONumber: VESSEL.imo, vesselName: VESSEL.name, vesselFlag: 'DE' },
  location: { locationName: locode === 'CNYTN' ? 'Yantian International Container Terminal' : 'ECT Delta' },
});

function rawEvents(number: string, containers: string[]) {
  const first = containers[0]!;
  const ev = (
    id: string,
    type: 'SHIPMENT' | 'EQUIPMENT' | 'TRANSPORT',
    classifier: 'ACT' | 'EST' | 'PLN',
    when: string,
    extra: Record<string, unknown>,
  ) => ({
    eventID: id,
    eventType: type,
    eventClassifierCode: classifier,
    eventDateTime: when,
    eventCreatedDateTime: when,
    ...extra,
    documentReferences: [{ documentReferenceType: 'TRD', documentReferenceValue: number }],
  });
  const out: Array<{
    payload: Record<string, unknown>;
    equipment: string | null;
    type: string;
    code: string;
    classifier: string;
    at: string;
    locode: string | null;
    vessel: boolean;
  }> = [
    {
      payload: ev(`${number}-1`, 'SHIPMENT', 'ACT', '2024-02-20T09:12:00+08:00', {
        shipmentEventTypeCode: 'CONF',
        documentTypeCode: 'BKG',
        documentID: number,
      }),
      equipment: null,
      type: 'SHIPMENT',
      code: 'CONF',
      classifier: 'ACT',
      at: '2024-02-20T01:12:00Z',
      locode: null,
      vessel: false,
    },
    {
      payload: ev(`${number}-2`, 'EQUIPMENT', 'ACT', '2024-03-01T09:00:00+08:00', {
        equipmentEventTypeCode: 'GTOT',
        equipmentReference: first,
        ISOEquipmentCode: '45G1',
        emptyIndicatorCode: 'EMPTY',
        eventLocation: { locationName: 'Yantian Empty Depot', UNLocationCode: 'CNYTN' },
      }),
      equipment: first,
      type: 'EQUIPMENT',
      code: 'GTOT EMPTY',
      classifier: 'ACT',
      at: '2024-03-01T01:00:00Z',
      locode: 'CNYTN',
      vessel: false,
    },
    {
      payload: ev(`${number}-3`, 'EQUIPMENT', 'ACT', '2024-03-06T22:10:00+08:00', {
        equipmentEventTypeCode: 'LOAD',
        equipmentReference: first,
        ISOEquipmentCode: '45G1',
        emptyIndicatorCode: 'LADEN',
        transportCall: transportCall('CNYTN', 'YICT'),
        seals: [{ sealNumber: 'HL4471223', sealSource: 'CAR', sealType: 'BLT' }],
      }),
      equipment: first,
      type: 'EQUIPMENT',
      code: 'LOAD LADEN',
      classifier: 'ACT',
      at: '2024-03-06T14:10:00Z',
      locode: 'CNYTN',
      vessel: true,
    },
    {
      payload: ev(`${number}-4`, 'TRANSPORT', 'ACT', '2024-03-07T10:00:00+08:00', {
        transportEventTypeCode: 'DEPA',
        transportCall: transportCall('CNYTN', 'YICT'),
      }),
      equipment: null,
      type: 'TRANSPORT',
      code: 'DEPA',
      classifier: 'ACT',
      at: '2024-03-07T02:00:00Z',
      locode: 'CNYTN',
      vessel: true,
    },
    {
      payload: ev(`${number}-5`, 'TRANSPORT', 'EST', '2024-04-08T08:00:00+02:00', {
        transportEventTypeCode: 'ARRI',
        transportCall: transportCall('NLRTM', 'DDE'),
      }),
      equipment: null,
      type: 'TRANSPORT',
      code: 'ARRI',
      classifier: 'EST',
      at: '2024-04-08T06:00:00Z',
      locode: 'NLRTM',
      vessel: true,
    },
  ];
  for (const [i, other] of containers.slice(1).entries()) {
    out.push({
      payload: ev(`${number}-c${i + 2}`, 'EQUIPMENT', 'ACT', '2024-03-06T22:20:00+08:00', {
        equipmentEventTypeCode: 'LOAD',
        equipmentReference: other,
        ISOEquipmentCode: '42U1',
        emptyIndicatorCode: 'LADEN',
        transportCall: transportCall('CNYTN', 'YICT'),
      }),
      equipment: other,
      type: 'EQUIPMENT',
      code: 'LOAD LADEN',
      classifier: 'ACT',
      at: '2024-03-06T14:20:00Z',
      locode: 'CNYTN',
      vessel: true,
    });
  }
  return out;
}

/** Ensures the shared vessel exists (vessels are not account data) and returns its id. */
export async function seedVessel(db: Kysely<DB>): Promise<string> {
  const row = await db
    .insertInto('vessels')
    .values({ id: randomUUID(), imo: VESSEL.imo, name: VESSEL.name, name_key: null })
    .onConflict((oc) => oc.column('imo').doUpdateSet({ name: VESSEL.name }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function seedShipment(
  db: Kysely<DB>,
  accountId: string,
  opts: SeedOptions = {},
): Promise<SeededShipment> {
  const scac = opts.scac ?? 'HLCU';
  const number = opts.number ?? `HLCUSHA${randomBytes(4).toString('hex').toUpperCase()}`;
  const containers = opts.containers ?? [containerNumber(), containerNumber()];
  const vesselId = await seedVessel(db);
  const shipmentId = randomUUID();
  const created = opts.createdAt ?? new Date();
  await db
    .insertInto('shipments')
    .values({
      id: shipmentId,
      account_id: accountId,
      scac,
      request_type: 'bill_of_lading',
      normalized_number: number,
      bill_of_lading_number: number,
      ref_numbers: opts.refNumbers ?? [],
      tags: opts.tags ?? [],
      customer_name: null,
      port_of_lading_locode: 'CNYTN',
      port_of_discharge_locode: 'NLRTM',
      destination_locode: 'DEDUI',
      transshipment_locodes: [],
      pod_terminal_id: POD_TERMINAL.id,
      destination_terminal_id: null,
      pod_vessel_id: vesselId,
      pod_voyage_number: '412W',
      pol_etd_at: at('2024-03-06T10:00:00Z'),
      pol_atd_at: at('2024-03-07T02:00:00Z'),
      pod_eta_at: at('2024-04-08T06:00:00Z'),
      pod_original_eta_at: at('2024-04-06T06:00:00Z'),
      pod_ata_at: at('2024-04-08T06:00:00Z'),
      destination_eta_at: at('2024-04-12T06:00:00Z'),
      destination_ata_at: null,
      line_tracking_last_attempted_at: at('2024-04-16T00:00:00Z'),
      line_tracking_last_succeeded_at: at('2024-04-16T00:00:00Z'),
      line_tracking_stopped_at: opts.stopped?.at ?? null,
      line_tracking_stopped_reason: opts.stopped?.reason ?? null,
      next_refresh_at: opts.stopped ? null : at('2030-01-01T00:00:00Z'),
      created_at: created,
      updated_at: opts.updatedAt ?? created,
    })
    .execute();

  let trackingRequestId: string | null = null;
  const status = opts.trackingRequestStatus === undefined ? 'created' : opts.trackingRequestStatus;
  if (status !== null) {
    trackingRequestId = randomUUID();
    await db
      .insertInto('tracking_requests')
      .values({
        id: trackingRequestId,
        account_id: accountId,
        request_number: number,
        request_type: 'bill_of_lading',
        scac,
        status,
        shipment_id: shipmentId,
      })
      .execute();
  }

  const containerIds: string[] = [];
  const transportEventIds = new Map<string, string[]>();
  const transportEventNames = new Map<string, string[]>();
  for (const [i, cnum] of containers.entries()) {
    const id = randomUUID();
    containerIds.push(id);
    const returned = i === 0;
    await db
      .insertInto('containers')
      .values({
        id,
        account_id: accountId,
        shipment_id: shipmentId,
        number: cnum,
        ref_numbers: [],
        equipment_type: i === 0 ? 'dry' : 'open_top',
        equipment_length: 40,
        equipment_height: i === 0 ? 'high_cube' : 'standard',
        iso_equipment_code: i === 0 ? '45G1' : '42U1',
        seal_number: i === 0 ? 'HL4471223' : null,
        weight_in_lbs: i === 0 ? '20210.5' : null,
        pod_terminal_id: POD_TERMINAL.id,
        pod_arrived_at: at('2024-04-08T06:00:00Z'),
        pod_discharged_at: at('2024-04-08T20:00:00Z'),
        pod_full_out_at: at('2024-04-10T09:00:00Z'),
        empty_terminated_at: returned ? at('2024-04-15T12:30:00Z') : null,
        current_status: returned ? 'empty_returned' : 'picked_up',
        created_at: created,
        updated_at: opts.updatedAt ?? created,
      })
      .execute();
    if (opts.events === false) continue;
    // Inserted in journey order (not history order): the API must sort.
    const journey = returned ? JOURNEY : JOURNEY.filter((j) => j.event !== 'empty_in');
    const ids = new Map<string, string>();
    for (const j of journey) {
      const eid = randomUUID();
      ids.set(j.key, eid);
      await db
        .insertInto('transport_events')
        .values({
          id: eid,
          account_id: accountId,
          shipment_id: shipmentId,
          container_id: id,
          key: j.key,
          event: `container.transport.${j.event}`,
          timestamp: j.timestamp ? at(j.timestamp) : null,
          timezone: j.locode === 'CNYTN' ? 'Asia/Shanghai' : j.locode === 'NLRTM' ? 'Europe/Amsterdam' : null,
          location_locode: j.locode,
          terminal_id: j.terminal === 'pol' ? POL_TERMINAL.id : j.terminal === 'pod' ? POD_TERMINAL.id : null,
          vessel_id: j.vessel ? vesselId : null,
          voyage_number: j.voyage,
          data_source: 'shipping_line',
        })
        .execute();
    }
    const order = expectedOrder().filter((j) => ids.has(j.key));
    transportEventIds.set(
      id,
      order.map((j) => ids.get(j.key)!),
    );
    transportEventNames.set(
      id,
      order.map((j) => `container.transport.${j.event}`),
    );
  }

  const rawPayloads = new Map<string, Record<string, unknown>>();
  if (opts.events !== false) {
    for (const r of rawEvents(number, containers)) {
      const carrierEventId = String(r.payload.eventID);
      rawPayloads.set(carrierEventId, r.payload);
      await db
        .insertInto('raw_events')
        .values({
          id: randomUUID(),
          account_id: accountId,
          shipment_id: shipmentId,
          carrier_event_id: carrierEventId,
          equipment_reference: r.equipment,
          event_type: r.type,
          event_code: r.code,
          classifier: r.classifier,
          event_at: at(r.at),
          event_created_at: at(r.at),
          location_locode: r.locode,
          vessel_name: r.vessel ? VESSEL.name : null,
          vessel_imo: r.vessel ? VESSEL.imo : null,
          voyage_number: r.vessel ? '412W' : null,
          payload: JSON.stringify(r.payload),
        })
        .execute();
    }
  }

  return {
    shipmentId,
    number,
    trackingRequestId,
    containerIds,
    containerNumbers: containers,
    transportEventIds,
    transportEventNames,
    vesselId,
    rawPayloads,
  };
}
