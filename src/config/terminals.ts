// Terminal connections, from the file named by TERMINALS_CONFIG (JSON or YAML): a list of
// {adapter, base_url, auth?, facilities, requests_per_minute, timeout_ms?}. Read like
// CARRIERS_CONFIG (config/carriers.ts, whose field checks and `${ENV}` substitution are reused):
// every problem is reported at once, each naming the entry and field.

import { readFileSync } from 'node:fs';
import { show } from './carrier-protocol.ts';
import {
  type AuthConfig,
  CarrierConfigError,
  httpUrl,
  isObject,
  substitute,
  unknownKeys,
  validateAuth,
} from './carriers.ts';
import { parseYaml } from './yaml.ts';

export const TERMINAL_ADAPTERS = ['sim-terminal'] as const;
export type TerminalAdapterName = (typeof TERMINAL_ADAPTERS)[number];

export interface TerminalConfigEntry {
  adapter: TerminalAdapterName;
  base_url: string;
  /** As for carriers; absent means no authentication. */
  auth?: AuthConfig;
  /** SMDG terminal codes (upper case), or "*" for every facility. */
  facilities: string[] | '*';
  requests_per_minute: number;
  timeout_ms?: number;
}

const ENTRY_KEYS = ['adapter', 'base_url', 'auth', 'facilities', 'requests_per_minute', 'timeout_ms'];
// SMDG terminal codes are short upper-case codes (letters, digits, a few with a dash).
const SMDG = /^[A-Z0-9-]{1,10}$/;
const MAX_TIMEOUT_MS = 300_000;

/** Reads TERMINALS_CONFIG. Unset or empty means "no configured terminals" (the sandbox feed remains). */
export function loadTerminalsConfigFile(
  file: string,
  env: Record<string, string | undefined>,
): TerminalConfigEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CarrierConfigError(`TERMINALS_CONFIG ${file}`, [
      `cannot read the file: ${(err as Error).message}`,
    ]);
  }
  return parseTerminalsConfig(text, { env, source: `TERMINALS_CONFIG ${file}` });
}

export function parseTerminalsConfig(
  text: string,
  options: { env?: Record<string, string | undefined>; source?: string; format?: 'json' | 'yaml' } = {},
): TerminalConfigEntry[] {
  const source = options.source ?? 'terminals config';
  const format = options.format ?? (/\.json\b/i.test(source) ? 'json' : 'yaml');
  let doc: unknown;
  try {
    doc = format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new CarrierConfigError(source, [`not valid ${format.toUpperCase()}: ${(err as Error).message}`]);
  }
  if (doc == null) return [];
  const list = isObject(doc) && Object.keys(doc).length === 1 && 'terminals' in doc ? doc.terminals : doc;
  if (!Array.isArray(list))
    throw new CarrierConfigError(source, ['must be a list of terminal entries (or {terminals: [...]})']);
  const problems: string[] = [];
  const entries: TerminalConfigEntry[] = [];
  list.forEach((raw, i) => {
    const label = `terminals[${i}]`;
    const before = problems.length;
    const substituted = substitute(raw, label, options.env ?? {}, problems);
    if (problems.length > before) return;
    const entry = validateEntry(substituted, label, problems);
    if (entry) entries.push(entry);
  });
  if (problems.length > 0) throw new CarrierConfigError(source, problems);
  return entries;
}

function facilitiesOf(v: unknown, path: string, problems: string[]): string[] | '*' | null {
  if (v === '*') return '*';
  if (!Array.isArray(v) || v.length === 0) {
    problems.push(`${path}: required, "*" or a non-empty list of SMDG terminal codes, got ${show(v)}`);
    return null;
  }
  const out: string[] = [];
  v.forEach((code, i) => {
    const c = typeof code === 'string' ? code.trim().toUpperCase() : '';
    if (!SMDG.test(c)) problems.push(`${path}[${i}]: not an SMDG terminal code: ${show(code)}`);
    else if (out.includes(c)) problems.push(`${path}[${i}]: ${c} is listed twice`);
    else out.push(c);
  });
  return out.length === v.length ? out : null;
}

function validateEntry(raw: unknown, label: string, problems: string[]): TerminalConfigEntry | null {
  if (!isObject(raw)) {
    problems.push(`${label}: must be an object, got ${show(raw)}`);
    return null;
  }
  const before = problems.length;
  unknownKeys(raw, ENTRY_KEYS, label, problems);
  if (!TERMINAL_ADAPTERS.includes(raw.adapter as TerminalAdapterName)) {
    problems.push(
      `${label}.adapter: must be one of ${TERMINAL_ADAPTERS.join(', ')}, got ${show(raw.adapter)}`,
    );
  }
  const base_url = httpUrl(raw.base_url, `${label}.base_url`, problems);
  const auth = raw.auth === undefined ? undefined : validateAuth(raw.auth, `${label}.auth`, problems);
  const facilities = facilitiesOf(raw.facilities, `${label}.facilities`, problems);
  const rpm = raw.requests_per_minute;
  if (typeof rpm !== 'number' || !Number.isFinite(rpm) || rpm <= 0 || rpm > 100_000) {
    problems.push(
      `${label}.requests_per_minute: required, a number above 0 (at most 100000), got ${show(rpm)}`,
    );
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
  if (problems.length > before || !base_url || !facilities || auth === null) return null;
  const entry: TerminalConfigEntry = {
    adapter: raw.adapter as TerminalAdapterName,
    base_url,
    facilities,
    requests_per_minute: rpm as number,
  };
  if (auth) entry.auth = auth;
  if (timeout !== undefined) entry.timeout_ms = timeout as number;
  return entry;
}
