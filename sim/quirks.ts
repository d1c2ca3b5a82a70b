import type { Reply } from './dcsa-http.ts';

// Simulator modes that behave like real carriers rather than the DCSA standard (CARRIER-NOTES §1
// and §8): each one is something a connection's per-carrier options (docs/carriers.md) exist for,
// so every option can be tested against a carrier that needs it. A mode applies to the whole
// simulator (option `quirks`, CLI flags); start one simulator per mode.

export interface CarrierQuirks {
  /**
   * Reference filters the carrier answers only together with `equipmentReference` (HMM wants a
   * booking and a container): a request with one of these alone gets a 400.
   */
  requireEquipmentWith?: ('carrierBookingReference' | 'transportDocumentReference')[];
  /** Every request must carry exactly this `API-Version` header (Hapag-Lloyd sends "1"); else 400. */
  apiVersion?: string;
  /** The response header that names the next page, instead of the standard's. */
  pagingHeader?: string;
  /** Requests per window (default window: a minute) over every events request; beyond it 429. */
  requestsPerMinute?: number;
  /** The rate limit's window, shortened in tests (default 60 000 ms). */
  rateWindowMs?: number;
}

type ErrorReply = (
  status: number,
  reason: string,
  message: string,
  headers?: Record<string, string>,
) => Reply;

const STANDARD_PAGING = ['Next-Page', 'Next-Page-Cursor'];

/** A checker of one simulator's quirks; its rate window is the simulator's own state. */
export function createQuirks(quirks: CarrierQuirks = {}, now: () => number = Date.now) {
  const window = quirks.rateWindowMs ?? 60_000;
  const recent: number[] = [];
  return {
    /** The refusal a quirky carrier answers before looking at the query, if any. */
    refuse(params: URLSearchParams, headers: Record<string, unknown>, error: ErrorReply): Reply | undefined {
      if (quirks.requestsPerMinute !== undefined) {
        const t = now();
        while (recent.length > 0 && recent[0]! <= t - window) recent.shift();
        if (recent.length >= quirks.requestsPerMinute) {
          const seconds = Math.max(1, Math.ceil((recent[0]! + window - t) / 1000));
          return error(
            429,
            'tooManyRequests',
            `Rate limit of ${quirks.requestsPerMinute} requests exceeded`,
            {
              'Retry-After': String(seconds),
            },
          );
        }
        recent.push(t);
      }
      if (quirks.apiVersion !== undefined && headers['api-version'] !== quirks.apiVersion) {
        const sent = headers['api-version'] === undefined ? 'none' : String(headers['api-version']);
        return error(
          400,
          'unsupportedApiVersion',
          `API-Version ${quirks.apiVersion} is required (received ${sent})`,
        );
      }
      // A later page's cursor stands for filters its first page already passed.
      if (params.has('cursor')) return undefined;
      for (const name of quirks.requireEquipmentWith ?? []) {
        if (params.has(name) && !params.has('equipmentReference'))
          return error(400, 'invalidQuery', `${name} must be combined with equipmentReference`);
      }
      return undefined;
    },
    /** The answer with the paging headers renamed to the carrier's own. */
    rename(reply: Reply): Reply {
      const name = quirks.pagingHeader;
      if (name === undefined || reply.status !== 200) return reply;
      const headers = { ...reply.headers };
      // The bare cursor when there is one (a carrier's own header rarely carries a full link).
      const next = headers['Next-Page-Cursor'] ?? headers['Next-Page'];
      for (const h of STANDARD_PAGING) delete headers[h];
      if (next !== undefined) headers[name] = next;
      return { ...reply, headers };
    },
  };
}
