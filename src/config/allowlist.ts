// WEBHOOK_ALLOWLIST entries: the operator's exceptions to the outbound address guard. Each entry is an
// ADDRESS, a CIDR or a HOST name, optionally with :PORT (IPv6 in brackets: "[::1]:9000", "[fd00::/8]:443").
// Parsed here, on the config side, so loadConfig reports a bad entry without importing webhook code;
// webhooks/delivery/allowlist.ts matches receivers against the entries. Without a port an entry opens every port; with one, only that port, so allowlisting one internal
// receiver does not open the whole host (or network) to port scans through the webhook API.
import ipaddr from 'ipaddr.js';

type IP = ipaddr.IPv4 | ipaddr.IPv6;

export type AllowEntry =
  | { kind: 'range'; range: [IP, number]; port: number | null; text: string }
  | { kind: 'host'; host: string; port: number | null; text: string };

/** A malformed entry; `message` says why, `entry` is the entry as written. */
export class AllowlistEntryError extends Error {
  readonly entry: string;
  constructor(entry: string, reason: string) {
    super(`entry "${entry}": ${reason}`);
    this.name = 'AllowlistEntryError';
    this.entry = entry;
  }
}

const FORMS = 'expected ADDRESS, CIDR or HOST, optionally with :PORT (IPv6 in brackets, e.g. [::1]:9000)';
const LABEL = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^${LABEL}(\\.${LABEL})*\\.?$`, 'i');

export const normHost = (h: string): string => h.toLowerCase().replace(/\.$/, '');

function parsePort(entry: string, raw: string): number {
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= 65535)) throw new AllowlistEntryError(entry, `port must be 1 to 65535, got "${raw}"`);
  return n;
}

function prefix(entry: string, raw: string | undefined, max: number): number {
  if (raw === undefined) return max;
  const n = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 0 && n <= max)) throw new AllowlistEntryError(entry, `prefix length must be 0 to ${max}`);
  return n;
}

function v6Range(entry: string, body: string): [IP, number] {
  const [addr, len, extra] = body.split('/');
  if (extra !== undefined || !addr || !ipaddr.IPv6.isValid(addr) || addr.includes('%')) {
    throw new AllowlistEntryError(entry, `"${body}" is not an IPv6 address or CIDR; ${FORMS}`);
  }
  return [ipaddr.IPv6.parse(addr), prefix(entry, len, 128)];
}

function v4Range(entry: string, body: string): [IP, number] {
  const [addr, len, extra] = body.split('/');
  // Four-part decimal only: "10.1" or "0x7f.1" are valid to inet_aton but too easy to misread.
  if (extra !== undefined || !addr || !ipaddr.IPv4.isValidFourPartDecimal(addr)) {
    throw new AllowlistEntryError(entry, `"${body}" is not an IPv4 address or CIDR; ${FORMS}`);
  }
  return [ipaddr.IPv4.parse(addr), prefix(entry, len, 32)];
}

/** Parses one entry; throws AllowlistEntryError naming the entry and what is wrong with it. */
export function parseAllowlistEntry(raw: string): AllowEntry {
  const text = raw.trim();
  if (text.startsWith('[')) {
    const m = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
    if (!m) throw new AllowlistEntryError(text, `unbalanced brackets; ${FORMS}`);
    const port = m[2] === undefined ? null : parsePort(text, m[2]);
    return { kind: 'range', range: v6Range(text, m[1]!), port, text };
  }
  const colons = text.split(':').length - 1;
  // Two or more colons: a bare IPv6 address or CIDR, which cannot carry a port without brackets.
  if (colons >= 2) return { kind: 'range', range: v6Range(text, text), port: null, text };
  const [body, portText] = colons === 1 ? text.split(':') : [text, undefined];
  const port = portText === undefined ? null : parsePort(text, portText);
  if (!body) throw new AllowlistEntryError(text, `no address or host; ${FORMS}`);
  // Digits and dots only (or a slash) is meant as an IPv4 address or CIDR, never a host name.
  if (body.includes('/') || /^[\d.]+$/.test(body)) {
    return { kind: 'range', range: v4Range(text, body), port, text };
  }
  const lastLabel = normHost(body).split('.').pop() ?? '';
  if (!HOST.test(body) || /^\d+$/.test(lastLabel)) {
    throw new AllowlistEntryError(text, `"${body}" is not a valid host name; ${FORMS}`);
  }
  return { kind: 'host', host: normHost(body), port, text };
}

/** Splits a comma list (empty items ignored) and parses every entry; every problem is reported. */
export function parseAllowlist(entries: readonly string[]): { entries: AllowEntry[]; problems: string[] } {
  const out: AllowEntry[] = [];
  const problems: string[] = [];
  for (const raw of entries.flatMap((e) => e.split(','))) {
    if (raw.trim() === '') continue;
    try {
      out.push(parseAllowlistEntry(raw));
    } catch (err) {
      if (!(err instanceof AllowlistEntryError)) throw err;
      problems.push(err.message);
    }
  }
  return { entries: out, problems };
}
