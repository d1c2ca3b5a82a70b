// Typed readers of environment variables for the configuration schema (src/config/schema-*.ts). A bad
// value never throws here: it is recorded in `problems`, naming the variable and the value, and the
// default is returned, so that every problem of a configuration is reported at once (and the process
// exits 2, see bootstrap.ts).

import { accessSync, constants, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';

export type Env = Record<string, string | undefined>;

// Header names are RFC 9110 tokens.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

export type Readers = ReturnType<typeof readers>;

export function readers(env: Env, problems: string[]) {
  const raw = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v;
  };
  const str = (name: string, def: string): string => {
    const v = env[name];
    if (v === undefined || v === '') return def;
    if (/[\0\r\n]/.test(v)) {
      problems.push(`${name} must be a single line without NUL, got ${JSON.stringify(v)}`);
      return def;
    }
    return v;
  };
  // `label` names the variable in messages when a command-line flag can also set it.
  const int = (name: string, def: number, min = 0, max = Number.MAX_SAFE_INTEGER, label = name): number => {
    const v = raw(name);
    if (v === undefined) return def;
    // Digits only: Number() would also take "0x10", "1e3" and " 12 ", which are more likely mistakes.
    const n = /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${label} must be an integer between ${min} and ${max}, got "${v}"`);
      return def;
    }
    return n;
  };
  const optionalInt = (name: string, min: number, max: number): number | null =>
    raw(name) === undefined ? null : int(name, min, min, max);
  const bool = (name: string, def: boolean): boolean => {
    const v = raw(name);
    if (v === undefined) return def;
    if (['true', '1', 'yes'].includes(v.trim().toLowerCase())) return true;
    if (['false', '0', 'no'].includes(v.trim().toLowerCase())) return false;
    problems.push(`${name} must be true or false, got "${v}"`);
    return def;
  };
  const oneOf = <T extends string>(name: string, def: T, values: readonly T[], label = name): T => {
    const v = raw(name);
    if (v === undefined) return def;
    if (!(values as readonly string[]).includes(v)) {
      problems.push(`${label} must be one of ${values.join(', ')}, got "${v}"`);
      return def;
    }
    return v as T;
  };
  /** Comma list; `check` returns why an item is bad, or null. */
  const csv = (name: string, check?: (item: string) => string | null): string[] => {
    const items = (env[name] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const item of items) {
      const why = check?.(item);
      if (why) problems.push(`${name} entry "${item}": ${why}`);
    }
    return items;
  };
  const headerName = (name: string, def: string): string => {
    const v = str(name, def);
    if (!TOKEN.test(v)) {
      problems.push(`${name} must be an HTTP header name (letters, digits, - and _), got "${v}"`);
      return def;
    }
    return v;
  };
  /** An absolute URL with one of `protocols`; null when unset. A `secret` value (it may carry a
   * password) is never echoed. */
  const url = (name: string, protocols: string[], example: string, secret = false): URL | null => {
    const v = raw(name);
    if (v === undefined) return null;
    const got = secret ? '' : `, got "${v}"`;
    let u: URL;
    try {
      u = new URL(v.trim());
    } catch {
      problems.push(`${name} must be a URL like ${example}${got}`);
      return null;
    }
    if (!protocols.includes(u.protocol)) {
      problems.push(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}${got}`);
      return null;
    }
    return u;
  };
  /** An http(s) origin (no path, query or credentials), without a trailing slash; null when unset. */
  const origin = (name: string, example: string): string | null => {
    const u = url(name, ['http:', 'https:'], example);
    if (!u) return null;
    if (u.pathname !== '/' || u.search || u.hash || u.username || u.password) {
      problems.push(`${name} must be an origin like ${example}, got "${env[name]}"`);
      return null;
    }
    return u.origin;
  };
  const hostName = (name: string, def: string): string => {
    const v = str(name, def);
    if (!isIP(v) && !HOST.test(v)) {
      problems.push(`${name} must be an IP address or a host name, got "${v}"`);
      return def;
    }
    return v;
  };
  return { raw, str, int, optionalInt, bool, oneOf, csv, headerName, hostName, origin, url };
}

/** A directory the process will create files in: it, or its nearest existing ancestor, must be a writable
 * directory. Read-only checks (nothing is created here); the database reports anything subtler. */
export function dirProblem(name: string, path: string, problems: string[]): void {
  let dir = resolve(path);
  for (;;) {
    try {
      if (!statSync(dir).isDirectory()) {
        problems.push(`${name}: ${dir} is not a directory (from "${path}")`);
        return;
      }
      accessSync(dir, constants.W_OK | constants.X_OK);
      return;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOENT' && dirname(dir) !== dir) {
        dir = dirname(dir);
        continue;
      }
      problems.push(`${name}: ${dir} is not usable (${code ?? (err as Error).message}), from "${path}"`);
      return;
    }
  }
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const UNIT_MS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };

/** WEBHOOK_RETRY_SCHEDULE: parses `5s,30s,2m,1h` or `10ms,20ms` into ms; throws naming the offending entry and its 1-based position. */
export function parseScheduleConfig(text: string): number[] {
  if (text.trim() === '') throw new Error('retry schedule is empty: expected a comma list such as 5s,30s,2m');
  const out: number[] = [];
  text.split(',').forEach((raw, i) => {
    const entry = raw.trim();
    const where = `retry schedule entry ${i + 1}`;
    if (entry === '') throw new Error(`${where} is empty (stray comma?)`);
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(entry);
    if (!m) throw new Error(`${where} "${entry}" is not a duration: expected a number and ms, s, m, h or d`);
    const ms = Math.round(Number(m[1]) * UNIT_MS[m[2]!]!);
    if (ms < 1) throw new Error(`${where} "${entry}" must be at least 1ms`);
    if (ms > 7 * DAY) throw new Error(`${where} "${entry}" exceeds the 7d maximum`);
    out.push(ms);
  });
  if (out.length > 100) throw new Error(`retry schedule has ${out.length} entries; at most 100 are allowed`);
  return out;
}
