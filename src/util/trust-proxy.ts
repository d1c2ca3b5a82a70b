import ipaddr from 'ipaddr.js';

/** Fastify's `trustProxy`: false, true, a hop count, or the proxies' addresses and CIDRs. */
export type TrustProxy = boolean | number | string[];

/** TRUST_PROXY: false (default), true, a hop count, or a comma list of addresses/CIDRs. */
export function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || /^(false|0|no)$/i.test(value)) return false;
  if (/^(true|yes)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = entries.filter((e) => !ipaddr.isValid(e) && !ipaddr.isValidCIDR(e));
  if (bad.length > 0) {
    problems.push(
      `TRUST_PROXY must be false, true, a hop count or a comma list of addresses/CIDRs, got "${bad.join(', ')}"`,
    );
    return false;
  }
  return entries;
}
