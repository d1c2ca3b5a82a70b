import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { ApiError, type ErrorCode, invalidAttribute } from '../../errors.ts';
import { isKnownEvent } from '../catalogue.ts';
import { getAddressPolicy } from '../delivery/outbound.ts';
import { FRAMING_HEADERS } from '../framing-headers.ts';
import type { WebhookHeader } from './queries.ts';

// Validation of a webhook's attributes beyond their JSON shape (the route schemas check that): known
// event names, header names and values the service can send, and receiver URLs the outbound guard
// allows. Errors are 422s pointing at the attribute (`/data/attributes/...` in the JSON:API body).
// They come from http/errors.ts for now; the error catalogue will give them a neutral home.

/** Where the attributes sit in a create or edit request's body. */
export const ATTRS = '/data/attributes';

// Names the service sets itself (or that would corrupt the request framing).
const RESERVED = new Set([...FRAMING_HEADERS, 'user-agent']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VALUE = /^[\t\x20-\x7e]*$/;

export function reservedHeader(name: string, config: Config): boolean {
  const n = name.toLowerCase();
  const signature = config.webhooks.signatureHeader.toLowerCase();
  return RESERVED.has(n) || n.startsWith('webhook-') || n === signature || n === `${signature}-previous`;
}

export function validateHeaders(
  headers: WebhookHeader[] | null | undefined,
  config: Config,
): WebhookHeader[] {
  if (!headers) return [];
  const errors: Array<{ source: { pointer: string }; detail: string; code: ErrorCode }> = [];
  const seen = new Set<string>();
  headers.forEach((h, i) => {
    const at = `${ATTRS}/headers/${i}`;
    if (!TOKEN.test(h.name)) {
      errors.push({
        source: { pointer: `${at}/name` },
        detail: `"${h.name}" is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only).`,
        code: 'invalid_header_name',
      });
    } else if (reservedHeader(h.name, config)) {
      errors.push({
        source: { pointer: `${at}/name` },
        detail: `${h.name} is set by the service and cannot be overridden.`,
        code: 'reserved_header',
      });
    } else if (seen.has(h.name.toLowerCase())) {
      errors.push({
        source: { pointer: `${at}/name` },
        detail: `${h.name} is given more than once (header names are case-insensitive).`,
        code: 'duplicate',
      });
    }
    seen.add(h.name.toLowerCase());
    if (!VALUE.test(h.value)) {
      errors.push({
        source: { pointer: `${at}/value` },
        detail: 'Header values may hold printable ASCII characters, spaces and tabs only.',
        code: 'invalid_header_value',
      });
    }
  });
  if (errors.length) throw new ApiError(422, errors);
  return headers.map((h) => ({ name: h.name, value: h.value }));
}

export function validateEvents(events: string[], pointer: string): string[] {
  const errors = events.flatMap((ev, i) =>
    isKnownEvent(ev)
      ? []
      : [
          {
            source: { pointer: `${pointer}/${i}` },
            detail: `Unknown event "${ev}". GET /v2/webhooks/events lists them.`,
            code: 'unknown_event' as const,
          },
        ],
  );
  if (errors.length) throw new ApiError(422, errors);
  return events;
}

/** Where a refusal's detail goes when the answer leaves it out (the request's log). */
export type RefusalLog = Pick<Logger, 'warn'>;

/**
 * Refuses URLs the outbound address policy would not deliver to, with the guard's reason. What a
 * host name resolved to (or that it did not) is logged for the operator, never answered.
 */
export async function checkUrl(
  config: Config,
  url: string,
  pointer: string,
  log: RefusalLog,
): Promise<string> {
  const trimmed = url.trim();
  const verdict = await getAddressPolicy(config).checkUrl(trimmed);
  if (!verdict.ok) {
    if (verdict.detail !== verdict.message) {
      log.warn({ url: trimmed, reason: verdict.reason, detail: verdict.detail }, 'webhook URL refused');
    }
    throw invalidAttribute(
      pointer,
      `The URL is refused: ${verdict.message} (${verdict.reason}).`,
      verdict.reason,
    );
  }
  return trimmed;
}
