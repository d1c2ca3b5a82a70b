import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { sampleBody } from '../notifications/samples.ts';
import { attemptDelivery, DEFAULT_USER_AGENT } from './http-attempt.ts';
import { getAddressPolicy } from './outbound.ts';
import { signatureHeaders } from './sign.ts';

// A test delivery (POST /v2/webhooks/trigger): one sample notification, sent once through the same
// guard, signing and attempt code as real deliveries. Nothing is stored.

export interface TestDelivery {
  url: string;
  event: string;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  request_headers: Record<string, string>;
  request_body: string;
}

/** Sends a sample of `event` to `url` (already checked against the address policy), signed with `secret` if given. */
export async function sendTestDelivery(
  config: Config,
  input: { url: string; event: string; secret?: string },
  log: Pick<Logger, 'warn'>,
): Promise<TestDelivery> {
  const { url, event, secret } = input;
  const notificationId = randomUUID();
  const body = sampleBody(event, { notificationId, webhookId: null });
  // No secret: webhook-id and webhook-timestamp only, no signature.
  const signed = signatureHeaders({
    secrets: secret === undefined ? [] : [secret],
    legacyHeaderName: config.webhooks.signatureHeader,
    msgId: notificationId,
    timestamp: Math.floor(Date.now() / 1000),
    body,
  });
  const outcome = await attemptDelivery({
    url,
    body,
    headers: signed,
    ...(await getAddressPolicy(config).route(url)),
    totalTimeoutMs: config.webhooks.totalTimeoutMs,
    maxExcerptBytes: 0, // the answer body is never returned, whoever the receiver is
  });
  if (outcome.detail) log.warn({ url, detail: outcome.detail }, 'webhook test delivery refused');
  // What went on the wire (attemptDelivery sends lowercase names).
  const requestHeaders: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': DEFAULT_USER_AGENT,
  };
  for (const [k, v] of Object.entries(signed)) requestHeaders[k.toLowerCase()] = v;
  return {
    url,
    event,
    succeeded: outcome.ok,
    status_code: outcome.statusCode,
    error: outcome.error,
    duration_ms: Math.round(outcome.durationMs),
    request_headers: requestHeaders,
    request_body: body,
  };
}
