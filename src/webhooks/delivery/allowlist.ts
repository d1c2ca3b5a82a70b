// Matching WEBHOOK_ALLOWLIST entries (parsed by config-allowlist.ts) against a receiver's host name
// or addresses and port, for the outbound address guard.
import type ipaddr from 'ipaddr.js';
import { type AllowEntry, normHost } from '../../config/allowlist.ts';

type IP = ipaddr.IPv4 | ipaddr.IPv6;

const portMatches = (e: AllowEntry, port: number | undefined): boolean => e.port === null || e.port === port;

/** A HOST entry allows `hostname` on `port` (an unknown port matches only entries without one). */
export function hostAllowed(entries: readonly AllowEntry[], hostname: string, port?: number): boolean {
  const h = normHost(hostname);
  return entries.some((e) => e.kind === 'host' && e.host === h && portMatches(e, port));
}

/** An ADDRESS or CIDR entry covers one of `forms` (the address and, for ::ffff:a.b.c.d, its IPv4) on `port`. */
export function addressAllowed(entries: readonly AllowEntry[], forms: readonly IP[], port?: number): boolean {
  return entries.some(
    (e) =>
      e.kind === 'range' &&
      portMatches(e, port) &&
      forms.some((f) => f.kind() === e.range[0].kind() && f.match(e.range)),
  );
}
