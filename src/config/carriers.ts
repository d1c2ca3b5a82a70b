// Carrier connections, from the file named by CARRIERS_CONFIG (JSON or YAML). Secrets stay out of
// the file: any `${ENV_NAME}` inside a string value is replaced from the environment. Every
// field is validated and every problem is reported at once, each naming the entry and field.

import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  type AdapterName,
  type CarrierProtocol,
  PROTOCOL_KEYS,
  SUPPORTED_ADAPTERS,
  show,
  validateProtocol,
} from './carrier-protocol.ts';
import { parseYaml } from './yaml.ts';

/** How a carrier connection authenticates (carriers/auth.ts implements each kind). */
export type AuthConfig =
  | { type: 'headers'; headers: Record<string, string> }
  | {
      type: 'oauth2_client_credentials';
      token_url: string;
      client_id: string;
      client_secret: string;
      scope?: string;
      /** Extra static headers sent with every API request (e.g. Maersk's Consumer-Key). */
      headers?: Record<string, string>;
    }
  | {
      /** OAuth2 client credentials with a signed client assertion (RFC 7523 private_key_jwt). */
      type: 'oauth2_private_key_jwt';
      token_url: string;
      client_id: string;
      /** The private key (PEM), read from private_key_file when the config is loaded. */
      private_key: string;
      /** `kid` of the key as registered on the carrier's portal. */
      key_id?: string;
      /** The assertion's `aud` (default: token_url). */
      audience?: string;
      scope?: string;
      headers?: Record<string, string>;
    };

/** The number types a connection may be asked for (the engine's NumberType). */
export type NumberType = 'bill_of_lading' | 'booking_number' | 'container';

export { type AdapterName, SUPPORTED_ADAPTERS } from './carrier-protocol.ts';

export interface CarrierConfigEntry {
  scac: string;
  adapter: AdapterName;
  base_url: string;
  auth: AuthConfig;
  requests_per_minute: number;
  number_types: NumberType[];
  timeout_ms?: number;
  /** How this carrier differs from the standard; absent: the standard's (PROTOCOL_DEFAULTS). */
  protocol?: CarrierProtocol;
}

export class CarrierConfigError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`${source}: ${problems.length === 1 ? problems[0] : `\n  - ${problems.join('\n  - ')}`}`);
    this.name = 'CarrierConfigError';
    this.problems = problems;
  }
}

export interface ParseConfigOptions {
  /** Defaults to the extension of `source`, then YAML (a superset of JSON). */
  format?: 'json' | 'yaml';
  /** Where `${VAR}` references resolve (the caller passes the environment; none when absent). */
  env?: Record<string, string | undefined>;
  /** Where the text came from, for messages. */
  source?: string;
}

const NUMBER_TYPES: readonly NumberType[] = ['bill_of_lading', 'booking_number', 'container'];
const ENTRY_KEYS = [
  'scac',
  'adapter',
  'base_url',
  'auth',
  'requests_per_minute',
  'number_types',
  'timeout_ms',
  ...PROTOCOL_KEYS,
];
const HEADERS_KEYS = ['type', 'headers'];
const OAUTH_KEYS = ['type', 'token_url', 'client_id', 'client_secret', 'scope', 'headers'];
const JWT_KEYS = [
  'type',
  'token_url',
  'client_id',
  'private_key_file',
  'key_id',
  'audience',
  'scope',
  'headers',
];
const AUTH_TYPES = '"headers", "oauth2_client_credentials" or "oauth2_private_key_jwt"';
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const MAX_TIMEOUT_MS = 300_000;

/** Reads CARRIERS_CONFIG. Unset or empty means "no configured carriers" (the sandbox remains). */
export function loadCarriersConfig(env: Record<string, string | undefined>): CarrierConfigEntry[] {
  const file = env.CARRIERS_CONFIG;
  return file ? loadCarriersConfigFile(file, env) : [];
}

/** Reads and validates one config file; `${ENV}` references are resolved from `env`. */
export function loadCarriersConfigFile(
  file: string,
  env: Record<string, string | undefined>,
): CarrierConfigEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CarrierConfigError(`CARRIERS_CONFIG ${file}`, [
      `cannot read the file: ${(err as Error).message}`,
    ]);
  }
  return parseCarriersConfig(text, { env, source: `CARRIERS_CONFIG ${file}` });
}

export function parseCarriersConfig(text: string, options: ParseConfigOptions = {}): CarrierConfigEntry[] {
  const source = options.source ?? 'carriers config';
  const env = options.env ?? {};
  const format = options.format ?? (/\.json\b/i.test(source) ? 'json' : 'yaml');
  let doc: unknown;
  try {
    doc = format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new CarrierConfigError(source, [`not valid ${format.toUpperCase()}: ${(err as Error).message}`]);
  }
  // A bare list is the documented form; `{carriers: [...]}` is accepted for readability.
  const list = isObject(doc) && Object.keys(doc).length === 1 && 'carriers' in doc ? doc.carriers : doc;
  if (doc == null) return [];
  if (!Array.isArray(list)) {
    throw new CarrierConfigError(source, ['must be a list of carrier entries (or {carriers: [...]})']);
  }
  const problems: string[] = [];
  const entries: CarrierConfigEntry[] = [];
  const seen = new Map<string, number>();
  list.forEach((raw, i) => {
    const label = `carriers[${i}]${isObject(raw) && typeof raw.scac === 'string' ? ` (${raw.scac})` : ''}`;
    const before = problems.length;
    const substituted = substitute(raw, label, env, problems);
    if (problems.length > before) return; // do not also report the unset values as invalid
    const entry = validateEntry(substituted, label, problems);
    if (!entry) return;
    const dup = seen.get(entry.scac);
    if (dup !== undefined)
      problems.push(`${label}.scac: ${entry.scac} is already configured by carriers[${dup}]`);
    seen.set(entry.scac, i);
    entries.push(entry);
  });
  if (problems.length > 0) throw new CarrierConfigError(source, problems);
  return entries;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function substitute(
  v: unknown,
  path: string,
  env: Record<string, string | undefined>,
  problems: string[],
): unknown {
  if (typeof v === 'string') {
    return v.replace(ENV_REF, (_m, name: string) => {
      const value = env[name];
      if (value === undefined || value === '') {
        problems.push(`${path}: environment variable ${name} is not set`);
        return '';
      }
      return value;
    });
  }
  if (Array.isArray(v)) return v.map((x, i) => substitute(x, `${path}[${i}]`, env, problems));
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = substitute(x, `${path}.${k}`, env, problems);
    return out;
  }
  return v;
}

export function unknownKeys(o: Record<string, unknown>, allowed: string[], path: string, problems: string[]) {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) problems.push(`${path}.${k}: unknown field (allowed: ${allowed.join(', ')})`);
  }
}

export function httpUrl(v: unknown, path: string, problems: string[]): string | null {
  if (typeof v !== 'string' || v.trim() === '') {
    problems.push(`${path}: required, an http(s) URL`);
    return null;
  }
  let url: URL;
  try {
    url = new URL(v.trim());
  } catch {
    problems.push(`${path}: not a valid URL: ${show(v)}`);
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push(`${path}: must be an http or https URL, got ${show(v)}`);
    return null;
  }
  if (url.username || url.password) {
    problems.push(`${path}: must not carry credentials (use auth)`);
    return null;
  }
  return v.trim();
}

function nonEmpty(v: unknown, path: string, problems: string[]): string | null {
  if (typeof v !== 'string' || v.trim() === '') {
    problems.push(`${path}: required, a non-empty string${v === undefined ? '' : `, got ${show(v)}`}`);
    return null;
  }
  return v;
}

function headerMap(
  v: unknown,
  path: string,
  problems: string[],
  required: boolean,
): Record<string, string> | null {
  if (v === undefined && !required) return {};
  if (!isObject(v) || (required && Object.keys(v).length === 0)) {
    problems.push(`${path}: required, a non-empty map of header name to value`);
    return null;
  }
  const out: Record<string, string> = {};
  let ok = true;
  for (const [name, value] of Object.entries(v)) {
    if (!HEADER_NAME.test(name)) {
      problems.push(`${path}: ${show(name)} is not a valid header name`);
      ok = false;
    } else if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      problems.push(`${path}.${name}: must be a single-line string, got ${show(value)}`);
      ok = false;
    } else out[name] = value;
  }
  return ok ? out : null;
}

export function validateAuth(v: unknown, path: string, problems: string[]): AuthConfig | null {
  if (!isObject(v)) {
    problems.push(`${path}: required, an object with a type of ${AUTH_TYPES}`);
    return null;
  }
  if (v.type === 'headers') {
    unknownKeys(v, HEADERS_KEYS, path, problems);
    const headers = headerMap(v.headers, `${path}.headers`, problems, true);
    return headers ? { type: 'headers', headers } : null;
  }
  if (v.type === 'oauth2_client_credentials') {
    unknownKeys(v, OAUTH_KEYS, path, problems);
    const token_url = httpUrl(v.token_url, `${path}.token_url`, problems);
    const client_id = nonEmpty(v.client_id, `${path}.client_id`, problems);
    const client_secret = nonEmpty(v.client_secret, `${path}.client_secret`, problems);
    let scope: string | undefined;
    if (v.scope !== undefined) {
      if (typeof v.scope === 'string') scope = v.scope;
      else problems.push(`${path}.scope: must be a string, got ${show(v.scope)}`);
    }
    const headers = headerMap(v.headers, `${path}.headers`, problems, false);
    if (!token_url || !client_id || !client_secret || !headers) return null;
    const auth: AuthConfig = { type: 'oauth2_client_credentials', token_url, client_id, client_secret };
    if (scope !== undefined) auth.scope = scope;
    if (Object.keys(headers).length > 0) auth.headers = headers;
    return auth;
  }
  if (v.type === 'oauth2_private_key_jwt') return validateJwtAuth(v, path, problems);
  problems.push(`${path}.type: must be ${AUTH_TYPES}, got ${show(v.type)}`);
  return null;
}

function optionalString(v: unknown, path: string, problems: string[]): string | undefined {
  if (v === undefined || typeof v === 'string') return v;
  problems.push(`${path}: must be a string, got ${show(v)}`);
  return undefined;
}

/** The key never sits in the config: it is read from its file, and checked to be a private key. */
function validateJwtAuth(v: Record<string, unknown>, path: string, problems: string[]): AuthConfig | null {
  unknownKeys(v, JWT_KEYS, path, problems);
  const token_url = httpUrl(v.token_url, `${path}.token_url`, problems);
  const client_id = nonEmpty(v.client_id, `${path}.client_id`, problems);
  const file = nonEmpty(v.private_key_file, `${path}.private_key_file`, problems);
  let private_key: string | null = null;
  if (file) {
    try {
      private_key = readFileSync(file, 'utf8');
      const type = createPrivateKey(private_key).asymmetricKeyType;
      if (type !== 'rsa' && type !== 'ec') {
        problems.push(`${path}.private_key_file: an RSA or EC private key is needed, got ${type}`);
        private_key = null;
      }
    } catch (err) {
      // The message names the file, never its content.
      const why = private_key === null ? (err as NodeJS.ErrnoException).code : 'not a PEM private key';
      problems.push(`${path}.private_key_file: cannot use ${file}: ${why}`);
      private_key = null;
    }
  }
  const key_id = optionalString(v.key_id, `${path}.key_id`, problems);
  const audience = optionalString(v.audience, `${path}.audience`, problems);
  const scope = optionalString(v.scope, `${path}.scope`, problems);
  const headers = headerMap(v.headers, `${path}.headers`, problems, false);
  if (!token_url || !client_id || !private_key || !headers) return null;
  const auth: AuthConfig = { type: 'oauth2_private_key_jwt', token_url, client_id, private_key };
  if (key_id !== undefined) auth.key_id = key_id;
  if (audience !== undefined) auth.audience = audience;
  if (scope !== undefined) auth.scope = scope;
  if (Object.keys(headers).length > 0) auth.headers = headers;
  return auth;
}

function validateEntry(raw: unknown, label: string, problems: string[]): CarrierConfigEntry | null {
  if (!isObject(raw)) {
    problems.push(`${label}: must be an object, got ${show(raw)}`);
    return null;
  }
  const before = problems.length;
  unknownKeys(raw, ENTRY_KEYS, label, problems);

  let scac: string | null = null;
  if (typeof raw.scac === 'string' && /^[A-Za-z]{2,4}$/.test(raw.scac.trim()))
    scac = raw.scac.trim().toUpperCase();
  else problems.push(`${label}.scac: required, 2 to 4 letters, got ${show(raw.scac)}`);

  if (!SUPPORTED_ADAPTERS.includes(raw.adapter as AdapterName)) {
    problems.push(
      `${label}.adapter: must be one of ${SUPPORTED_ADAPTERS.join(', ')}, got ${show(raw.adapter)}`,
    );
  }
  const base_url = httpUrl(raw.base_url, `${label}.base_url`, problems);
  const auth = validateAuth(raw.auth, `${label}.auth`, problems);

  const rpm = raw.requests_per_minute;
  if (typeof rpm !== 'number' || !Number.isFinite(rpm) || rpm <= 0 || rpm > 100_000) {
    problems.push(
      `${label}.requests_per_minute: required, a number above 0 (at most 100000), got ${show(rpm)}`,
    );
  }

  const types = raw.number_types;
  if (!Array.isArray(types) || types.length === 0) {
    problems.push(`${label}.number_types: required, a non-empty list of ${NUMBER_TYPES.join(', ')}`);
  } else {
    types.forEach((t, i) => {
      if (!NUMBER_TYPES.includes(t as NumberType)) {
        problems.push(
          `${label}.number_types[${i}]: must be one of ${NUMBER_TYPES.join(', ')}, got ${show(t)}`,
        );
      } else if (types.indexOf(t) !== i) problems.push(`${label}.number_types[${i}]: ${t} is listed twice`);
    });
  }

  const timeout = raw.timeout_ms;
  if (
    timeout !== undefined &&
    (!Number.isInteger(timeout) || (timeout as number) < 1 || (timeout as number) > MAX_TIMEOUT_MS)
  ) {
    problems.push(
      `${label}.timeout_ms: must be an integer from 1 to ${MAX_TIMEOUT_MS}, got ${show(timeout)}`,
    );
  }

  const adapter = raw.adapter as AdapterName;
  const protocol = SUPPORTED_ADAPTERS.includes(adapter)
    ? validateProtocol(raw, adapter, label, problems)
    : null;
  if (problems.length > before || !scac || !base_url || !auth || !protocol) return null;
  const entry: CarrierConfigEntry = {
    scac,
    adapter: raw.adapter as AdapterName,
    base_url,
    auth,
    requests_per_minute: rpm as number,
    number_types: [...(types as NumberType[])],
  };
  if (PROTOCOL_KEYS.some((k) => raw[k] !== undefined)) entry.protocol = protocol;
  if (timeout !== undefined) entry.timeout_ms = timeout as number;
  return entry;
}
