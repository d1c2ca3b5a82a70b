import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { portByLocode, terminalsAtPort } from '../../reference/data.ts';

// Port names as printed ("SHANGHAI, CHINA", "Rotterdam (NLRTM)", "Los Angeles, CA") resolved to
// UN/LOCODEs through the shipped port list. Many places share a name; the country, when printed,
// decides, then ports with known container terminals win over villages of the same name.

export interface Place {
  name: string;
  locode: string | null;
}

let byName: Map<string, string[]> | null = null;
let countryCodes: Map<string, string> | null = null;

const norm = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function index(): Map<string, string[]> {
  if (!byName) {
    byName = new Map();
    const rows = parse(readFileSync(new URL('../../reference/data/ports.csv', import.meta.url)), {
      columns: true,
      skip_empty_lines: true,
      bom: true,
    }) as Array<{ locode: string; name: string; country_code: string }>;
    const codes = new Set<string>();
    for (const r of rows) {
      codes.add(r.country_code);
      // "Yantian Pt" is printed "Yantian": index the name without its port word too.
      const full = norm(r.name);
      for (const key of new Set([full, full.replace(/\s(?:pt|port)$/, '')])) {
        const list = byName.get(key);
        if (list) list.push(r.locode);
        else byName.set(key, [r.locode]);
      }
    }
    countryCodes = new Map();
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (const c of codes) {
      countryCodes.set(c.toLowerCase(), c);
      const n = names.of(c);
      if (n) countryCodes.set(norm(n), c);
    }
    for (const [alias, c] of Object.entries(COUNTRY_ALIASES)) countryCodes.set(alias, c);
  }
  return byName;
}

const COUNTRY_ALIASES: Record<string, string> = {
  usa: 'US',
  'u s a': 'US',
  'united states of america': 'US',
  uk: 'GB',
  'p r china': 'CN',
  prc: 'CN',
  holland: 'NL',
  'the netherlands': 'NL',
  korea: 'KR',
  'south korea': 'KR',
  uae: 'AE',
};

// US state abbreviations appear where a country would ("LOS ANGELES, CA").
const US_STATES = new Set(
  'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY'.split(
    ' ',
  ),
);

/** A printed place resolved to a port, when one fits. */
export function resolvePlace(printed: string): Place | null {
  const text = printed.replace(/\s+/g, ' ').trim();
  if (!text) return null;
  // A printed LOCODE wins: "Rotterdam (NLRTM)" or "NLRTM".
  for (const m of text.matchAll(/\b([A-Z]{2})\s?([A-Z2-9]{3})\b/g)) {
    const p = portByLocode(`${m[1]}${m[2]}`);
    if (p) return { name: cleanName(text), locode: p.locode };
  }
  const names = index();
  const parts = text.split(/[,/(]| - /).map((s) => s.replace(/\)/g, '').trim());
  const country =
    parts
      .slice(1)
      .map(countryOf)
      .find((c) => c !== null) ?? null;
  for (const candidate of nameCandidates(parts[0] ?? '')) {
    const locodes = names.get(candidate);
    if (!locodes) continue;
    const pick = choose(locodes, country);
    if (pick) return { name: cleanName(text), locode: pick };
  }
  // Local spellings that extend the printed one ("Antwerp" -> "Antwerpen"), within the country.
  const asPrinted = nameCandidates(parts[0] ?? '')[0] ?? '';
  if (country && asPrinted.length >= 5) {
    const locodes = [...names].filter(([k]) => k.startsWith(asPrinted)).flatMap(([, v]) => v);
    const pick = choose(locodes, country);
    if (pick) return { name: cleanName(text), locode: pick };
  }
  return { name: cleanName(text), locode: null };
}

function countryOf(part: string): string | null {
  index();
  const t = part.trim();
  if (US_STATES.has(t.toUpperCase()) && t.length === 2) return 'US';
  return countryCodes!.get(norm(t)) ?? null;
}

/** The name, then shorter forms ("PORT OF LONG BEACH" -> "long beach"). */
function nameCandidates(name: string): string[] {
  const n = norm(name).replace(/^(port of|port|puerto de|porto de|haven)\s+/, '');
  const out = [n];
  const words = n.split(' ');
  for (let k = words.length - 1; k >= 1; k--) out.push(words.slice(0, k).join(' '));
  return out.filter(Boolean);
}

function choose(locodes: string[], country: string | null): string | null {
  const inCountry = country ? locodes.filter((l) => l.startsWith(country)) : locodes;
  if (inCountry.length === 0) return null;
  const withTerminals = inCountry.filter((l) => terminalsAtPort(l).length > 0);
  return (withTerminals[0] ?? inCountry[0])!;
}

function cleanName(text: string): string {
  return text
    .replace(/\(\s*[A-Z]{5}\s*\)/, '')
    .replace(/\s+/g, ' ')
    .trim();
}
