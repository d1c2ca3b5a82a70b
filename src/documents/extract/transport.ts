import { type Found, findBlock, findValue } from './labels.ts';
import type { Line } from './layout.ts';
import { carrierIn, containerNumbersIn, knownScac, parseDate, sizeType, weightKg } from './numbers.ts';
import { type Place, resolvePlace } from './ports.ts';
import { isLabel, LABELS } from './vocabulary.ts';

// Transport documents (B/L, sea waybill, arrival notice, booking confirmation, delivery order):
// references, carrier, vessel, places, parties, dates and the container table.

export interface Party {
  name: string;
  address: string | null;
}

export interface ContainerLine {
  number: string;
  size_type: string | null;
  seal_numbers: string[];
  gross_weight_kg: number | null;
}

export interface TransportPayload {
  bill_of_lading_number: string | null;
  booking_number: string | null;
  scac: string | null;
  carrier_name: string | null;
  vessel_name: string | null;
  voyage_number: string | null;
  place_of_receipt: Place | null;
  port_of_loading: Place | null;
  port_of_discharge: Place | null;
  place_of_delivery: Place | null;
  shipper: Party | null;
  consignee: Party | null;
  notify_party: Party | null;
  containers: ContainerLine[];
  issue_date: string | null;
  shipped_on_board_date: string | null;
  estimated_departure_date: string | null;
  estimated_arrival_date: string | null;
}

export type Confidence = Record<string, number>;

const firstToken = (re: RegExp) => (text: string) => {
  for (const t of text.toUpperCase().split(/[\s,;]+/)) {
    const v = t.replace(/[^A-Z0-9-/]/g, '');
    if (re.test(v) && /\d/.test(v)) return v;
  }
  return null;
};
export const referenceNumber = firstToken(/^[A-Z0-9][A-Z0-9-]{5,24}$/);
const voyage = firstToken(/^[A-Z0-9]{2,10}$/);
const place = (text: string) => (/[A-Za-z]{3}/.test(text) && text.length <= 80 ? text.trim() : null);
const date = (text: string) => parseDate(text);
const vesselName = (text: string) => {
  const v = text.split(/\s+\/\s+|\s+V(?:OY)?\.\s*|\s{2,}/i)[0]!.trim();
  return /^[A-Za-z][A-Za-z0-9 .'-]{2,39}$/.test(v) && !/\d{3,}/.test(v) ? v.toUpperCase() : null;
};

function party(f: Found | null): Party | null {
  if (!f?.block) return null;
  const [name, ...rest] = f.block;
  return { name: name!.trim(), address: rest.length ? rest.join(', ') : null };
}

function placeOf(lines: Line[], labels: RegExp[], conf: Confidence, key: string): Place | null {
  const f = findValue(lines, labels, place, isLabel);
  if (!f) return null;
  const p = resolvePlace(f.value);
  if (!p) return null;
  conf[key] = round(f.confidence * (p.locode ? 1 : 0.6));
  return p;
}

const round = (n: number) => Math.round(n * 100) / 100;

export function extractTransport(lines: Line[]): { payload: TransportPayload; confidence: Confidence } {
  const conf: Confidence = {};
  const text = lines.map((l) => l.text).join('\n');
  const value = (key: string, labels: RegExp[], accept: (t: string) => string | null) => {
    const f = findValue(lines, labels, accept, isLabel);
    if (f) conf[key] = round(f.confidence);
    return f?.value ?? null;
  };

  const bl = value('bill_of_lading_number', LABELS.bl, referenceNumber);
  const booking = value('booking_number', LABELS.booking, referenceNumber);
  const scacPrinted = value('scac', LABELS.scac, knownScac);
  const carrierPrinted = value('carrier_name', LABELS.carrier, (t) => (/[A-Za-z]{3}/.test(t) ? t : null));
  const carrier = carrierIn(`${carrierPrinted ?? ''}\n${text}`, scacPrinted);
  if (carrier && !scacPrinted) conf.scac = carrier.by === 'name' ? 0.75 : 0.9;
  if (carrier) conf.carrier_name = Math.max(conf.carrier_name ?? 0, 0.8);

  let vessel = value('vessel_name', LABELS.vessel, vesselName);
  let voy = value('voyage_number', LABELS.voyage, voyage);
  const combined = findValue(lines, [LABELS.vessel[1]!], (t) => t, isLabel);
  if (combined) {
    const [v, n] = combined.value.split(/\s*\/\s*|\s+V(?:OY)?\.?\s*(?=\w*\d)/i);
    if (v && !vessel) vessel = vesselName(v);
    if (n && !voy) voy = voyage(n);
    conf.vessel_name ??= round(combined.confidence);
    if (voy) conf.voyage_number ??= round(combined.confidence);
  }

  const payload: TransportPayload = {
    bill_of_lading_number: bl,
    booking_number: booking && booking !== bl ? booking : booking,
    scac: carrier?.line.scac ?? scacPrinted,
    carrier_name: carrier?.line.name ?? carrierPrinted,
    vessel_name: vessel,
    voyage_number: voy,
    place_of_receipt: placeOf(lines, LABELS.receipt, conf, 'place_of_receipt'),
    port_of_loading: placeOf(lines, LABELS.pol, conf, 'port_of_loading'),
    port_of_discharge: placeOf(lines, LABELS.pod, conf, 'port_of_discharge'),
    place_of_delivery: placeOf(lines, LABELS.delivery, conf, 'place_of_delivery'),
    shipper: null,
    consignee: null,
    notify_party: null,
    containers: extractContainers(lines, conf),
    issue_date: value('issue_date', LABELS.issueDate, date),
    shipped_on_board_date: value('shipped_on_board_date', LABELS.onBoard, date),
    estimated_departure_date: value('estimated_departure_date', LABELS.etd, date),
    estimated_arrival_date: value('estimated_arrival_date', LABELS.eta, date),
  };
  for (const [key, labels] of [
    ['shipper', LABELS.shipper],
    ['consignee', LABELS.consignee],
    ['notify_party', LABELS.notify],
  ] as const) {
    const f = findBlock(lines, labels, isLabel);
    const p = party(f);
    if (p && f) {
      payload[key] = p;
      conf[key] = round(f.confidence);
    }
  }
  return { payload, confidence: conf };
}

const SEAL_RE =
  /\bSEALS?(?:\s*(?:NO\.?|#|NUMBERS?|NRS?\.?))?\s*[:#.]?\s*([A-Z0-9]{5,15}(?:\s*[,/&]\s*[A-Z0-9]{5,15})*)/i;

/** The container table: each line with a valid container number, its type, seal and weight. */
function extractContainers(lines: Line[], conf: Confidence): ContainerLine[] {
  const out: ContainerLine[] = [];
  const header = lines.findIndex((l) => /\bseal/i.test(l.text) && /container/i.test(l.text));
  const sealColumn = header >= 0 ? lines[header]!.segments.find((s) => /\bseal/i.test(s.text)) : undefined;
  lines.forEach((l, i) => {
    for (const number of containerNumbersIn(l.text)) {
      if (out.some((c) => c.number === number)) continue;
      // Type, seal and weight may wrap to the next line of the row.
      const next = lines[i + 1];
      const nextText = next && containerNumbersIn(next.text).length === 0 ? next.text : '';
      const rowText = `${l.text} ${nextText}`;
      const seals: string[] = [];
      const m = SEAL_RE.exec(rowText);
      if (m) seals.push(...m[1]!.split(/\s*[,/&]\s*/).map((s) => s.toUpperCase()));
      else if (sealColumn && i > header) {
        const seg = l.segments.find((s) => s.x0 < sealColumn.x1 && s.x1 > sealColumn.x0);
        const token = seg?.text.match(/\b[A-Z0-9]{5,15}\b/i)?.[0];
        if (token && containerNumbersIn(token).length === 0 && /\d/.test(token))
          seals.push(token.toUpperCase());
      }
      out.push({
        number,
        size_type: sizeType(rowText),
        seal_numbers: seals,
        gross_weight_kg: weightKg(rowText),
      });
      const c = Math.min(...l.segments.map((s) => s.confidence));
      conf[`containers.${number}`] = round(0.95 * c);
    }
  });
  return out;
}
