// Configuration of webhook delivery: signing, the outbound address policy, retries, time-outs, deactivation.
import ipaddr from 'ipaddr.js';
import { parseAllowlist } from './allowlist.ts';
import { parseScheduleConfig } from './readers.ts';
import { boolean, custom, integer } from './setting.ts';

const DEFAULT_RETRY_SCHEDULE = '5s,30s,2m,5m,30m,1h,2h,5h,10h,14h,20h,24h';

export const WEBHOOK_SCHEMA = {
  WEBHOOK_SIGNATURE_HEADER: custom(
    'HTTP header name',
    'X-SERVICE-Webhook-Signature',
    'Header carrying the hex HMAC-SHA256 of the body.',
    ({ name, read }) => read.headerName(name, 'X-SERVICE-Webhook-Signature'),
  ),
  WEBHOOK_ALLOW_HTTP: boolean(false, 'Allow http:// webhook URLs.'),
  WEBHOOK_ALLOWLIST: custom(
    'comma list',
    '(empty)',
    'Comma list of receivers webhooks may reach even if private/loopback: ADDRESS, CIDR or HOST, each optionally with :PORT (IPv6 in brackets: [::1]:9000, [fd00::/8]:443); with a port only that port is open. Their answer bodies are never stored or shown.',
    ({ name, problems, read }) => {
      const allowlist = read.csv(name);
      for (const p of parseAllowlist(allowlist).problems) problems.push(`WEBHOOK_ALLOWLIST ${p}`);
      return allowlist;
    },
  ),
  WEBHOOK_SOURCE_IPS: custom(
    'comma list of addresses or CIDRs',
    '(empty)',
    'Comma list of addresses (or CIDRs) deliveries come from, served at GET /v2/webhooks/ips.',
    ({ name, read }) =>
      read.csv(name, (ip) =>
        ipaddr.IPv4.isValidFourPartDecimal(ip) || ipaddr.IPv6.isValid(ip) || ipaddr.isValidCIDR(ip)
          ? null
          : 'not an IP address or CIDR',
      ),
  ),
  WEBHOOK_RETRY_SCHEDULE: custom(
    'comma list of durations',
    DEFAULT_RETRY_SCHEDULE,
    'Delays before retries 1..N (N = retries).',
    ({ name, problems, read }): number[] => {
      try {
        return parseScheduleConfig(read.str(name, DEFAULT_RETRY_SCHEDULE));
      } catch (err) {
        problems.push(`WEBHOOK_RETRY_SCHEDULE: ${(err as Error).message}`);
        return [];
      }
    },
  ),
  WEBHOOK_CONNECT_TIMEOUT_MS: integer(5000, 'Connect time-out of one delivery.', { min: 1 }),
  WEBHOOK_TIMEOUT_MS: integer(15000, 'Total time-out of one delivery.', { min: 1 }),
  WEBHOOK_CONCURRENCY: integer(64, 'Deliveries in flight per worker process.', { min: 1, max: 10000 }),
  WEBHOOK_PER_ENDPOINT_CONCURRENCY: integer(4, 'Deliveries in flight per webhook per worker process.', {
    min: 1,
    max: 1000,
  }),
  WEBHOOK_DEACTIVATE_AFTER_MS: integer(
    5 * 86_400_000,
    'Deactivate a webhook whose every attempt has failed for this long (5 days)…',
    { min: 1 },
  ),
  WEBHOOK_DEACTIVATE_MIN_SPAN_MS: integer(
    12 * 3_600_000,
    '…with failures spanning at least this long (12 h). A 410 Gone deactivates at once.',
    { min: 0 },
  ),
  WEBHOOK_SECRET_GRACE_MS: integer(
    86_400_000,
    'After a secret rotation, the old secret also signs for this long.',
    {
      min: 0,
    },
  ),
};
