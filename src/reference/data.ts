import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { LRUCache } from 'lru-cache';
import { uuidV5 } from '../util/uuid.ts';

// Reference data shipped with the product (see NOTICE for sources and licences). Loaded once,
// lazily, and kept in memory: ~30k ports and ~1.3k terminals are a few MB and never change at
// run time. Ids are derived from the natural keys so they are stable across installs.

export interface Port {
  id: string;
  locode: string;
  name: string;
  country_code: string;
  state_abbr: string | null;
  latitude: number | null;
  longitude: number | null;
  time_zone: string | null;
}

export interface Terminal {
  id: string;
  name: string;
  nickname: string | null;
  smdg_code: string | null;
  firms_code: string | null;
  port_locode: string;
  time_zone: string | null;
}

export interface ShippingLine {
  id: string;
  scac: string;
  name: string;
  short_name: string;
  alternative_scacs: string[];
  bol_prefixes: string[];
  container_prefixes: string[];
  bill_of_lading_tracking_support: boolean;
  booking_number_tracking_support: boolean;
  container_number_tracking_support: boolean;
}

const dir = new URL('./data/', import.meta.url);

function readCsv(file: string): Record<string, string>[] {
  return parse(readFileSync(new URL(file, dir)), { columns: true, skip_empty_lines: true, bom: true });
}

const orNull = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);
const list = (v: string | undefined): string[] => (v ? v.split(';').filter(Boolean) : []);
const num = (v: string | undefined): number | null => (v ? Number(v) : null);

// Alternative SCACs accepted on create (shared/data/README.md, "alternative SCACs").
const ALTERNATIVE_SCACS: Record<string, string[]> = {
  MSCU: ['MEDU'],
  YMLU: ['YMPR', 'YMSG', 'YMJA'],
  SEAU: ['SEAL'],
  CLAM: ['CWLQ'],
  SQQY: ['SJHH'],
  SSBF: ['WWSU'],
  CHVW: ['QWJA', 'PLLU'],
  TRBR: ['TBIE', 'PYRR'],
};

// Number types a line does not support, where known. Every other line supports all three.
const UNSUPPORTED_TYPES: Record<string, Array<'bill_of_lading' | 'booking_number' | 'container'>> = {};

// The sandbox line: answers the published test numbers and the simulator's scenario numbers.
const TEST_LINE = { scac: 'TEST', name: 'Test Shipping Line (sandbox)', short_name: 'Test Line' };

let terminals: Terminal[] | undefined;
let terminalsById: Map<string, Terminal> | undefined;
let terminalsByPort: Map<string, Terminal[]> | undefined;
let lines: ShippingLine[] | undefined;
let linesByScac: Map<string, ShippingLine> | undefined;

// ~30k ports are read on demand: the file stays one string with an index of where each
// UN/LOCODE's line starts, and a port becomes an object only when something asks for it. Parsing
// them all up front cost ~20 MB of objects and ~50 MB of heap growth per process, for the few
// hundred ports a deployment ever shows.
let portsCsv: string | undefined;
let portLineAt: Map<string, number> | undefined;
let portLocodeById: Map<string, string> | undefined;
// Boxed: the cache holds no null, and an unknown locode is worth remembering too.
const portCache = new LRUCache<string, { port: Port | null }>({ max: 5000 });
const PORT_COLUMNS = ['locode', 'name', 'country_code', 'subdivision', 'latitude', 'longitude', 'time_zone'];

function portIndex(): Map<string, number> {
  if (!portLineAt) {
    const text = readFileSync(new URL('ports.csv', dir), 'utf8').replace(/^\uFEFF/, '');
    const header = text.slice(0, text.indexOf('\n')).trim();
    if (header !== PORT_COLUMNS.join(',')) throw new Error(`ports.csv: unexpected header "${header}"`);
    const index = new Map<string, number>();
    for (let at = text.indexOf('\n') + 1; at > 0 && at < text.length; at = text.indexOf('\n', at) + 1) {
      const comma = text.indexOf(',', at);
      if (comma > at) index.set(text.slice(at, comma), at);
    }
    portsCsv = text;
    portLineAt = index;
  }
  return portLineAt;
}

/** Fields of one CSV line (RFC 4180 quoting; lines hold no line breaks). */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let v = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error(`unterminated quote in CSV line: ${line}`);
        v += line.slice(i, q);
        if (line[q + 1] === '"') {
          v += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(v);
      i++; // the comma
    } else {
      const c = line.indexOf(',', i);
      const end = c < 0 ? line.length : c;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

export function portByLocode(locode: string): Port | undefined {
  const key = locode.toUpperCase();
  const cached = portCache.get(key);
  if (cached) return cached.port ?? undefined;
  const at = portIndex().get(key);
  let port: Port | null = null;
  if (at !== undefined) {
    const end = portsCsv!.indexOf('\n', at);
    const f = csvFields(portsCsv!.slice(at, end < 0 ? undefined : end).replace(/\r$/, ''));
    port = {
      id: uuidV5(`port:${f[0]}`),
      locode: f[0]!,
      name: f[1]!,
      country_code: f[2]!,
      state_abbr: orNull(f[3]),
      latitude: num(f[4]),
      longitude: num(f[5]),
      time_zone: orNull(f[6]),
    };
  }
  portCache.set(key, { port });
  return port ?? undefined;
}

export function portById(id: string): Port | undefined {
  if (!portLocodeById) {
    portLocodeById = new Map();
    for (const locode of portIndex().keys()) portLocodeById.set(uuidV5(`port:${locode}`), locode);
  }
  const locode = portLocodeById.get(id);
  return locode ? portByLocode(locode) : undefined;
}

/** Every UN/LOCODE in the port list. */
export function allPortLocodes(): IterableIterator<string> {
  return portIndex().keys();
}

/** IANA zone of a UN/LOCODE, or null when unknown. */
export function zoneOfLocode(locode: string | null | undefined): string | null {
  return locode ? (portByLocode(locode)?.time_zone ?? null) : null;
}

function loadTerminals(): Terminal[] {
  if (!terminals) {
    terminals = readCsv('terminals.csv').map((r) => ({
      id: uuidV5(`terminal:${r.port_locode}:${r.smdg_code || r.firms_code || r.name}`),
      name: r.name!,
      nickname: orNull(r.nickname),
      smdg_code: orNull(r.smdg_code),
      firms_code: orNull(r.firms_code),
      port_locode: r.port_locode!,
      time_zone: orNull(r.time_zone),
    }));
    terminalsById = new Map(terminals.map((t) => [t.id, t]));
    terminalsByPort = new Map();
    for (const t of terminals)
      terminalsByPort.set(t.port_locode, [...(terminalsByPort.get(t.port_locode) ?? []), t]);
  }
  return terminals;
}

export function allTerminals(): Terminal[] {
  return loadTerminals();
}

export function terminalById(id: string): Terminal | undefined {
  loadTerminals();
  return terminalsById!.get(id);
}

/** A terminal by port UN/LOCODE and SMDG facility code (DCSA `facilityCode` with provider SMDG). */
export function terminalBySmdg(portLocode: string, smdgCode: string): Terminal | undefined {
  return loadTerminals().find((t) => t.port_locode === portLocode && t.smdg_code === smdgCode);
}

export function terminalsAtPort(portLocode: string): Terminal[] {
  loadTerminals();
  return terminalsByPort!.get(portLocode) ?? [];
}

function loadLines(): ShippingLine[] {
  if (!lines) {
    const rows = readCsv('shipping_lines.csv').map((r) => ({
      scac: r.scac!,
      name: r.name!,
      short_name: r.short_name!,
      bol: list(r.bol_prefixes),
      cont: list(r.container_prefixes),
    }));
    rows.push({ ...TEST_LINE, bol: [], cont: [] });
    lines = rows.map((r) => {
      const unsupported = UNSUPPORTED_TYPES[r.scac] ?? [];
      return {
        id: uuidV5(`shipping_line:${r.scac}`),
        scac: r.scac,
        name: r.name,
        short_name: r.short_name,
        alternative_scacs: ALTERNATIVE_SCACS[r.scac] ?? [],
        bol_prefixes: r.bol,
        container_prefixes: r.cont,
        bill_of_lading_tracking_support: !unsupported.includes('bill_of_lading'),
        booking_number_tracking_support: !unsupported.includes('booking_number'),
        container_number_tracking_support: !unsupported.includes('container'),
      };
    });
    lines.sort((a, b) => a.scac.localeCompare(b.scac));
    linesByScac = new Map();
    for (const l of lines) {
      linesByScac.set(l.scac, l);
      for (const alt of l.alternative_scacs) linesByScac.set(alt, l);
    }
  }
  return lines;
}

export function allShippingLines(): ShippingLine[] {
  return loadLines();
}

/** A line by its SCAC or one of its alternative SCACs (case-insensitive). */
export function shippingLineByScac(scac: string): ShippingLine | undefined {
  loadLines();
  return linesByScac!.get(scac.toUpperCase());
}

export function shippingLineById(id: string): ShippingLine | undefined {
  return loadLines().find((l) => l.id === id);
}
