// CarrierAdapter for carriers that publish DCSA T&T 3.0.0. Validates the number locally (the
// 2.2 adapter's check), asks the client (the one I/O file) and reads its answer into a carrier
// snapshot (snapshot.ts, pure).
//
// Change-only refreshes: 3.0.0 lets a consumer ask for the events updated since an instant
// (eventUpdatedDateTimeMin). The engine reads every answer as the carrier's whole picture, so the
// adapter remembers the last whole answer per number and merges the changes into it: an event
// with the same eventID and a later eventUpdatedDateTime replaces the earlier one, a retracted one
// (isRetracted) goes. The instant asked is the newest eventUpdatedDateTime seen, on the carrier's
// own clock (ours may differ), inclusive, so nothing published since is missed. A full read
// happens on a schedule (full_read_interval_ms), after a restart, and whenever an answer has an
// event without an eventID (such an event cannot be merged). The memory is bounded (least
// recently used numbers are forgotten and simply read in full again).

import { askEach, checkNumber, crashed, referenceQueries } from '../dcsa/adapter.ts';
import type { CarrierAdapter, LookupContext, LookupResult, NumberType } from '../types.ts';
import type { DcsaV3Client } from './client.ts';
import { eventIdOfV3, isRetracted } from './parse.ts';
import { dcsaV3Snapshot } from './snapshot.ts';

export interface DcsaV3AdapterOptions {
  scac: string;
  numberTypes: readonly NumberType[];
  client: DcsaV3Client;
  /** Refreshes ask only for changes (eventUpdatedDateTimeMin). */
  updatedSince?: boolean;
  /** With updatedSince, a full read at least this often per number; 0: every read is full. */
  fullReadIntervalMs?: number;
  /** Number types the carrier answers only together with an equipmentReference. */
  requiresEquipment?: readonly NumberType[];
  /** How many numbers' answers are remembered for change-only refreshes (default 500). */
  maxRemembered?: number;
  now?: () => number;
}

interface Remembered {
  /** The carrier's current events by eventID, in the order first received. */
  events: Map<string, unknown>;
  /** Newest eventUpdatedDateTime seen, as the carrier wrote it. */
  watermark: string | null;
  fullAt: number;
}

const updatedAt = (e: unknown): number => {
  const v = (e as { eventUpdatedDateTime?: unknown } | null)?.eventUpdatedDateTime;
  const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
};

/** Merges `incoming` into `into` (later eventUpdatedDateTime wins); false when one has no id. */
function merge(into: Remembered, incoming: readonly unknown[]): boolean {
  for (const e of incoming) {
    const id = eventIdOfV3(e);
    if (id === null) return false;
    const prev = into.events.get(id);
    if (prev !== undefined && updatedAt(prev) > updatedAt(e)) continue;
    if (isRetracted(e)) into.events.delete(id);
    else into.events.set(id, e);
    const at = updatedAt(e);
    if (at > (into.watermark === null ? Number.NEGATIVE_INFINITY : Date.parse(into.watermark)))
      into.watermark = (e as { eventUpdatedDateTime: string }).eventUpdatedDateTime;
  }
  return true;
}

export function createDcsaV3Adapter(options: DcsaV3AdapterOptions): CarrierAdapter {
  const numberTypes = [...options.numberTypes];
  const now = options.now ?? Date.now;
  const interval = options.fullReadIntervalMs ?? 0;
  const incremental = options.updatedSince === true && interval > 0;
  const max = options.maxRemembered ?? 500;
  const memory = new Map<string, Remembered>();

  function remember(key: string, r: Remembered): void {
    memory.delete(key);
    memory.set(key, r);
    if (memory.size > max) memory.delete(memory.keys().next().value as string);
  }

  function answer(r: Remembered): LookupResult {
    const events = [...r.events.values()];
    return events.length === 0 ? { kind: 'not_found' } : { kind: 'found', snapshot: dcsaV3Snapshot(events) };
  }

  async function lookup(
    numberType: NumberType,
    number: string,
    signal?: AbortSignal,
    context?: LookupContext,
  ): Promise<LookupResult> {
    const checked = checkNumber(options.scac, numberTypes, numberType, number);
    if (!checked.ok) return checked.result;
    const requires = options.requiresEquipment ?? [];
    const asked = referenceQueries(options.scac, numberType, checked.number, requires, context);
    if (!asked.ok) return asked.result;
    const fetch = (updatedMin?: string) =>
      askEach(asked.queries, (filters) =>
        options.client.fetchEvents(updatedMin ? { filters, updatedMin } : { filters }, signal),
      );
    const key = `${numberType}:${asked.queries.map((q) => Object.values(q).join('+')).join(',')}`;
    const known = incremental ? memory.get(key) : undefined;
    if (known && known.watermark !== null && now() - known.fullAt < interval) {
      const r = await fetch(known.watermark);
      // Nothing changed since: the remembered answer stands.
      if (r.kind === 'not_found') return answer(known);
      if (r.kind !== 'found') return r;
      const next: Remembered = { ...known, events: new Map(known.events) };
      if (merge(next, r.events)) {
        remember(key, next);
        return answer(next);
      }
      // An event without an id cannot be merged: read the whole answer instead.
    }
    const startedAt = now();
    const r = await fetch();
    if (r.kind !== 'found') {
      memory.delete(key);
      return r;
    }
    const fresh: Remembered = { events: new Map(), watermark: null, fullAt: startedAt };
    if (incremental && merge(fresh, r.events)) {
      remember(key, fresh);
      return answer(fresh);
    }
    memory.delete(key);
    // Retracted events are to be ignored, here as in a merge.
    const events = r.events.filter((e) => !isRetracted(e));
    return events.length === 0 ? { kind: 'not_found' } : { kind: 'found', snapshot: dcsaV3Snapshot(events) };
  }

  return {
    scac: options.scac,
    numberTypes,
    async lookup(numberType, number, signal, context) {
      try {
        return await lookup(numberType, number, signal, context);
      } catch (err) {
        return crashed(err);
      }
    },
  };
}
