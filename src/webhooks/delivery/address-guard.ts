// Outbound address guard: webhook URLs are chosen by clients, so without this they could make the service
// POST to its own network (SSRF). Checked twice: once on the URL (checkUrl, for a clear error at
// configuration time) and again inside the connector at every connection, on the address actually dialled,
// so a DNS answer that changes after the check (DNS rebinding) cannot slip through.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent, buildConnector } from 'undici';
import { parseAllowlist } from '../../config/allowlist.ts';
import { addressAllowed, hostAllowed } from './allowlist.ts';
import { undici } from './undici.ts';

type IP = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [IP, number];

const cidr = (s: string): Range => ipaddr.parseCIDR(s);

// Checked before ipaddr.js's own range(), for precise reason names. Order matters: broadcast before 240/4.
const V4_BLOCKED: [string, Range][] = [
  ['unspecified', cidr('0.0.0.0/8')],
  ['private', cidr('10.0.0.0/8')],
  ['carrier_grade_nat', cidr('100.64.0.0/10')],
  ['loopback', cidr('127.0.0.0/8')],
  ['link_local', cidr('169.254.0.0/16')],
  ['private', cidr('172.16.0.0/12')],
  ['ietf_protocol_assignments', cidr('192.0.0.0/24')],
  ['documentation', cidr('192.0.2.0/24')],
  ['6to4_relay_anycast', cidr('192.88.99.0/24')],
  ['private', cidr('192.168.0.0/16')],
  ['benchmarking', cidr('198.18.0.0/15')],
  ['documentation', cidr('198.51.100.0/24')],
  ['documentation', cidr('203.0.113.0/24')],
  ['multicast', cidr('224.0.0.0/4')],
  ['broadcast', cidr('255.255.255.255/32')],
  ['reserved', cidr('240.0.0.0/4')],
];

const V6_BLOCKED: [string, Range][] = [
  ['documentation', cidr('2001:db8::/32')],
  ['documentation', cidr('3fff::/20')],
  ['benchmarking', cidr('2001:2::/48')],
  ['nat64_local', cidr('64:ff9b:1::/48')],
  ['site_local', cidr('fec0::/10')],
  ['unique_local', cidr('fc00::/7')],
  ['link_local', cidr('fe80::/10')],
  ['multicast', cidr('ff00::/8')],
  ['discard', cidr('100::/64')],
];

function classifyV4(a: ipaddr.IPv4): string {
  for (const [reason, range] of V4_BLOCKED) if (a.match(range)) return reason;
  const r = a.range();
  return r === 'unicast' ? 'public' : r;
}

const v4At = (p: number[], i: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([p[i]! >> 8, p[i]! & 0xff, p[i + 1]! >> 8, p[i + 1]! & 0xff]);

// Forms that embed an IPv4 address are only as safe as the address they carry.
function embedded(kind: string, v4: ipaddr.IPv4): string {
  const r = classifyV4(v4);
  return r === 'public' ? 'public' : `${kind}:${r}`;
}

function classifyV6(a: ipaddr.IPv6): string {
  const p = a.parts;
  if (p.every((x) => x === 0)) return 'unspecified';
  if (p.slice(0, 7).every((x) => x === 0) && p[7] === 1) return 'loopback';
  for (const [reason, range] of V6_BLOCKED) if (a.match(range)) return reason;
  // ::ffff:a.b.c.d (mapped; also written ::ffff:7f00:1) and ::ffff:0:a.b.c.d (RFC 6145 translated).
  if (p.slice(0, 5).every((x) => x === 0) && p[5] === 0xffff) return embedded('ipv4_mapped', v4At(p, 6));
  if (p.slice(0, 4).every((x) => x === 0) && p[4] === 0xffff && p[5] === 0) {
    return embedded('ipv4_translated', v4At(p, 6));
  }
  // ::a.b.c.d, deprecated IPv4-compatible: never legitimately used, refused outright.
  if (p.slice(0, 6).every((x) => x === 0)) return 'ipv4_compatible';
  if (a.match(cidr('64:ff9b::/96'))) return embedded('nat64', v4At(p, 6));
  if (a.match(cidr('2002::/16'))) return embedded('6to4', v4At(p, 1));
  if (a.match(cidr('2001::/32'))) {
    // Teredo: server address in bits 32-63, client address in the last 32 bits, inverted.
    const server = embedded('teredo', v4At(p, 2));
    const client = embedded('teredo', v4At([p[6]! ^ 0xffff, p[7]! ^ 0xffff], 0));
    return server !== 'public' ? server : client;
  }
  // Only 2000::/3 is allocated global unicast; everything else is unassigned or special.
  if (!a.match(cidr('2000::/3'))) return 'reserved';
  const r = a.range();
  return r === 'unicast' ? 'public' : r;
}

/**
 * Parses an address literal. IPv6 goes through the WHATWG URL serializer first because ipaddr.js reads the
 * IPv4-compatible form "::10.0.0.1" (which getaddrinfo can return) as the mapped "::ffff:10.0.0.1".
 */
function parseIp(ip: string): IP | null {
  let bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  bare = bare.replace(/%.*$/, ''); // a zone id does not change what the address is
  try {
    if (bare.includes(':')) bare = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    return ipaddr.parse(bare);
  } catch {
    return null;
  }
}

/** 'public' when an outbound connection to `ip` is acceptable, else the reason it is not. */
export function classifyAddress(ip: string): string {
  const a = parseIp(ip);
  if (!a) return 'invalid_address';
  return a.kind() === 'ipv4' ? classifyV4(a as ipaddr.IPv4) : classifyV6(a as ipaddr.IPv6);
}

/** Raised (through the connector) when a connection would reach a refused address. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';
  readonly reason: string;
  readonly address: string | null;
  /** The address came from resolving a host name (not written in the URL): it must not be shown. */
  readonly resolved: boolean;
  constructor(reason: string, address: string | null, hostname: string) {
    super(`outbound connection to ${hostname}${address ? ` (${address})` : ''} refused: ${reason}`);
    this.name = 'BlockedAddressError';
    this.reason = reason;
    this.address = address;
    this.resolved = address !== null && !isIP(hostname.replace(/^\[(.*)\]$/, '$1'));
  }
}

export interface ResolvedAddress {
  address: string;
  family: number;
}
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type UrlCheck =
  | { ok: true }
  | {
      ok: false;
      reason:
        | 'invalid_url'
        | 'insecure_scheme'
        | 'unsupported_scheme'
        | 'credentials_in_url'
        | 'blocked_address';
      /** For the client: never an address a host name resolved to, nor whether it resolved. */
      message: string;
      /** For the operator's log: what `message` leaves out (the name, the address, the DNS error). */
      detail: string;
    };

/** The one answer for a host name that resolves to a refused address, to none, or not at all: telling
 * them apart would let any API key map names and addresses inside the operator's network. */
export const UNREACHABLE_HOST = "the URL's host is not a reachable public address";

export interface AddressPolicyOptions {
  allowHttp: boolean;
  /** WEBHOOK_ALLOWLIST entries (see allowlist.ts): CIDRs ("127.0.0.0/8", "[::1]/128"), single addresses,
   * or hostnames (allowed whatever they resolve to), each optionally with ":PORT". */
  allowlist: string[];
  /** DNS resolution; tests inject one. Default: dns.lookup with all addresses. */
  resolve?: Resolver;
  connectTimeoutMs?: number;
  maxConnectionsPerOrigin?: number;
}

export interface AddressPolicy {
  readonly allowHttp: boolean;
  checkUrl(url: string): Promise<UrlCheck>;
  /** 'allowed' or the reason `ip`, reached under `hostname` on `port`, is refused. Without a port only
   * allowlist entries without one apply. */
  checkAddress(ip: string, hostname?: string, port?: number): string;
  /** An undici connector enforcing the policy on every connection it opens. */
  connector(opts: { timeoutMs: number }): buildConnector.connector;
  /** A guarded Agent built with the options' connect timeout and per-origin connection bound. */
  readonly dispatcher: Agent;
  /**
   * How to reach `url`: receivers at public addresses go through an Agent that refuses every non-public
   * address (so a DNS answer that changes to an allowlisted internal one fails instead of being read);
   * the rest (reachable only through the allowlist) are `internal`, and their answers must not be shown.
   */
  route(url: string): Promise<{ dispatcher: Agent; internal: boolean }>;
}

const defaultResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, order: 'verbatim' });

/** The port a URL (or undici's connect options) reaches: the explicit one, else the scheme's default. */
function portOf(protocol: string, port: string | number | undefined): number {
  if (port !== undefined && port !== '') return Number(port);
  return protocol === 'http:' ? 80 : 443;
}

export function createAddressPolicy(opts: AddressPolicyOptions): AddressPolicy {
  const { entries, problems } = parseAllowlist(opts.allowlist);
  // Config validation reports these by name first (exit 2); this guards other callers.
  if (problems.length > 0) throw new Error(`address allowlist: ${problems.join('; ')}`);
  const resolve = opts.resolve ?? defaultResolve;

  const forms = (ip: string): IP[] => {
    const a = parseIp(ip);
    if (!a) return [];
    // An IPv4 entry also covers the mapped form ::ffff:a.b.c.d of its addresses.
    if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) {
      return [a, (a as ipaddr.IPv6).toIPv4Address()];
    }
    return [a];
  };
  const anyPort = entries.map((e) => ({ ...e, port: null }));

  const checkAddress = (ip: string, hostname?: string, port?: number): string => {
    if (hostname !== undefined && hostAllowed(entries, hostname, port)) return 'allowed';
    const reason = classifyAddress(ip);
    if (reason === 'public' || addressAllowed(entries, forms(ip), port)) return 'allowed';
    // Allowlisted on other ports only: say so, it is the operator's likely question.
    const otherPort =
      (hostname !== undefined && hostAllowed(anyPort, hostname)) || addressAllowed(anyPort, forms(ip));
    return otherPort ? `${reason}, port ${port ?? '(unknown)'} not allowlisted` : reason;
  };

  // Resolves and refuses if ANY answer is blocked: a mixed answer is exactly what a rebinding attacker sends.
  const resolveChecked = async (hostname: string, port: number): Promise<ResolvedAddress[]> => {
    const found = await resolve(hostname);
    for (const { address } of found) {
      const verdict = checkAddress(address, hostname, port);
      if (verdict !== 'allowed') throw new BlockedAddressError(verdict, address, hostname);
    }
    return found;
  };

  async function checkUrl(raw: string): Promise<UrlCheck> {
    const refuse = (reason: Exclude<UrlCheck, { ok: true }>['reason'], detail: string): UrlCheck => ({
      ok: false,
      reason,
      message: detail,
      detail,
    });
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return refuse('invalid_url', 'not an absolute URL');
    }
    if (url.protocol === 'http:' && !opts.allowHttp) return refuse('insecure_scheme', 'https is required');
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return refuse('unsupported_scheme', `${url.protocol} is not http(s)`);
    }
    if (url.username || url.password) {
      return refuse('credentials_in_url', 'user:password@ is not allowed in the URL');
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!host) return refuse('invalid_url', 'no host');
    const port = portOf(url.protocol, url.port);
    // An address written in the URL is the client's own: naming its class tells them nothing new.
    if (isIP(host)) {
      const verdict = checkAddress(host, host, port);
      return verdict === 'allowed' ? { ok: true } : refuse('blocked_address', `${host}: ${verdict}`);
    }
    if (hostAllowed(entries, host, port)) return { ok: true };
    const unreachable = (detail: string): UrlCheck => ({
      ok: false,
      reason: 'blocked_address',
      message: UNREACHABLE_HOST,
      detail,
    });
    try {
      const found = await resolveChecked(host, port);
      return found.length === 0 ? unreachable(`${host}: no address`) : { ok: true };
    } catch (err) {
      if (err instanceof BlockedAddressError) return unreachable(`${host} -> ${err.address}: ${err.reason}`);
      return unreachable(`${host}: ${(err as { code?: string }).code ?? String(err)}`);
    }
  }

  function connector({ timeoutMs }: { timeoutMs: number }): buildConnector.connector {
    // net.connect calls this for host names (never for IP literals, which are checked below). It cannot
    // see the port, so there is one base connector (and lookup) per port dialled.
    const lookupFor =
      (port: number) =>
      (
        hostname: string,
        o: { family?: number | string; all?: boolean },
        cb: (err: Error | null, address?: string | ResolvedAddress[], family?: number) => void,
      ): void => {
        resolveChecked(hostname, port).then((found) => {
          const fam = o.family === 'IPv4' ? 4 : o.family === 'IPv6' ? 6 : Number(o.family ?? 0);
          const list = fam === 4 || fam === 6 ? found.filter((a) => a.family === fam) : found;
          const first = list[0];
          if (!first) {
            return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
          }
          if (o.all) cb(null, list);
          else cb(null, first.address, first.family);
        }, cb);
      };
    const bases = new Map<number, buildConnector.connector>();
    const baseFor = (port: number): buildConnector.connector => {
      let base = bases.get(port);
      if (!base) {
        base = undici().buildConnector({
          timeout: timeoutMs,
          allowH2: false,
          lookup: lookupFor(port),
        } as buildConnector.BuildOptions);
        // Ports come from client-chosen URLs: keep the map bounded (evicting drops TLS sessions only).
        if (bases.size >= 256) bases.delete(bases.keys().next().value!);
        bases.set(port, base);
      }
      return base;
    };
    return (options, callback) => {
      const fail = (reason: string, address: string | null) =>
        queueMicrotask(() => callback(new BlockedAddressError(reason, address, options.hostname), null));
      if (options.protocol === 'http:' && !opts.allowHttp) return fail('insecure_scheme', null);
      const port = portOf(options.protocol, options.port);
      const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
      if (isIP(host)) {
        const verdict = checkAddress(host, host, port);
        if (verdict !== 'allowed') return fail(verdict, host);
      }
      baseFor(port)(options, callback);
    };
  }

  // Receivers at public addresses are reached through a policy without the allowlist, so that only
  // `internal` answers can come from an allowlisted address, whatever DNS says between check and connect.
  let publicOnly: AddressPolicy | undefined;
  async function route(raw: string): Promise<{ dispatcher: Agent; internal: boolean }> {
    if (entries.length === 0) return { dispatcher: policy.dispatcher, internal: false };
    publicOnly ??= createAddressPolicy({ ...opts, allowlist: [] });
    const internal = { dispatcher: policy.dispatcher, internal: true };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return internal;
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const publicRoute = { dispatcher: publicOnly.dispatcher, internal: false };
    if (isIP(host)) return classifyAddress(host) === 'public' ? publicRoute : internal;
    if (hostAllowed(entries, host, portOf(url.protocol, url.port))) return internal;
    try {
      const found = await resolve(host);
      if (found.length > 0 && found.every((a) => classifyAddress(a.address) === 'public')) return publicRoute;
    } catch {
      // Unresolvable: the attempt fails on its own; nothing to show either way.
    }
    return internal;
  }

  let agent: Agent | undefined;
  const policy: AddressPolicy = {
    allowHttp: opts.allowHttp,
    checkUrl,
    checkAddress,
    connector,
    route,
    // Lazy, so a policy used only for checkUrl never holds a connection pool.
    get dispatcher(): Agent {
      agent ??= createDispatcher(policy, {
        connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
        maxConnectionsPerOrigin: opts.maxConnectionsPerOrigin ?? 4,
      });
      return agent;
    },
  };
  return policy;
}

/**
 * A keep-alive Agent whose every connection goes through the policy's connector. Connections per origin are
 * bounded so one slow receiver cannot take every socket; idle sockets close before typical server timeouts.
 */
export function createDispatcher(
  policy: Pick<AddressPolicy, 'connector'>,
  opts: { connectTimeoutMs: number; maxConnectionsPerOrigin: number },
): Agent {
  return new (undici().Agent)({
    connect: policy.connector({ timeoutMs: opts.connectTimeoutMs }),
    connections: opts.maxConnectionsPerOrigin,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
  });
}
