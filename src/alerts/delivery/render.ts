import { portByLocode, shippingLineByScac } from '../../reference/data.ts';
import { eventInfo } from '../../webhooks/catalogue.ts';
import type { EventFacts } from './queries.ts';

// An alert e-mail, as text and HTML, from the events it is about (pure). Each event says what
// happened and the facts of its shipment and container as they are now, with a link to the
// shipment in the console; the footer carries the address's unsubscribe link.

export interface MessageText {
  subject: string;
  text: string;
  html: string;
}

export interface RenderInput {
  kind: 'immediate' | 'digest';
  events: EventFacts[];
  /** Events of the message in all (a digest lists at most ALERT_DIGEST_MAX_EVENTS). */
  total: number;
  /** Origin of the console (PUBLIC_BASE_URL), without a trailing slash. */
  consoleOrigin: string;
  unsubscribeUrl: string;
  /** The rule's time zone: times are shown in it. */
  timeZone: string;
}

const day = (d: Date | null, tz: string) =>
  d
    ? d.toLocaleString('en-GB', { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' }) + ` (${tz})`
    : null;
const port = (locode: string | null) => {
  if (!locode) return null;
  const p = portByLocode(locode);
  return p ? `${p.name} (${locode})` : locode;
};
const line = (scac: string | null) => (scac ? (shippingLineByScac(scac)?.name ?? scac) : null);

/** What happened, in words: the catalogue's description, or the event's name. */
function headline(e: EventFacts): string {
  const what = eventInfo(e.event)?.description ?? e.event;
  const subject = [
    e.container_number && `Container ${e.container_number}`,
    e.bill_of_lading_number && `B/L ${e.bill_of_lading_number}`,
  ]
    .filter(Boolean)
    .join(', ');
  return subject ? `${subject}: ${what}` : what;
}

/** The facts of one event as label/value pairs (only the known ones). */
function facts(e: EventFacts, tz: string): Array<[string, string]> {
  const changes = Object.entries(e.changeset ?? {}).map(
    ([k, v]) => [`Changed: ${k}`, `${show(v?.[0], tz)} → ${show(v?.[1], tz)}`] as [string, string],
  );
  const rows: Array<[string, string | null]> = [
    ['Event', e.event],
    ['Observed', day(e.occurred_at, tz)],
    ['Bill of lading', e.bill_of_lading_number],
    ['Shipping line', line(e.scac)],
    ['Port of lading', port(e.port_of_lading_locode)],
    ['Port of discharge', port(e.port_of_discharge_locode)],
    [
      'Vessel',
      e.vessel_name && (e.pod_voyage_number ? `${e.vessel_name} / ${e.pod_voyage_number}` : e.vessel_name),
    ],
    ['Departed', day(e.pol_atd_at, tz)],
    ['Arrival estimate', day(e.pod_eta_at, tz)],
    ['Arrived', day(e.pod_ata_at, tz)],
    ['Container', e.container_number],
    ['Container status', e.container_status],
    ['Available for pickup', e.available_for_pickup === null ? null : e.available_for_pickup ? 'yes' : 'no'],
    ['Last free day', day(e.pickup_lfd, tz)],
    ['Pickup appointment', day(e.pickup_appointment_at, tz)],
    ['Tags', e.shipment_tags?.length ? e.shipment_tags.join(', ') : null],
  ];
  if (e.estimate_after)
    changes.unshift([
      'Estimate moved',
      `${show(e.estimate_before?.toISOString(), tz)} → ${show(e.estimate_after.toISOString(), tz)}`,
    ]);
  return [...rows.filter((r): r is [string, string] => r[1] !== null && r[1] !== ''), ...changes];
}

function show(v: unknown, tz: string): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)))
    return day(new Date(v), tz)!;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const shipmentUrl = (origin: string, e: EventFacts) =>
  e.shipment_id ? `${origin}/#/shipments/${e.shipment_id}` : null;

export function renderMessage(m: RenderInput): MessageText {
  const first = m.events[0];
  const subject =
    m.kind === 'immediate' && first
      ? headline(first)
      : `Daily alert digest: ${m.total} event${m.total === 1 ? '' : 's'}`;
  const more = m.total - m.events.length;
  const text: string[] = [];
  const html: string[] = [`<h1 style="font-size:18px">${esc(subject)}</h1>`];
  for (const e of m.events) {
    const link = shipmentUrl(m.consoleOrigin, e);
    const rows = facts(e, m.timeZone);
    text.push(headline(e), ...rows.map(([k, v]) => `  ${k}: ${v}`));
    if (link) text.push(`  Open in the console: ${link}`);
    text.push('');
    html.push(
      `<h2 style="font-size:15px">${esc(headline(e))}</h2><table>`,
      ...rows.map(([k, v]) => `<tr><th align="left">${esc(k)}</th><td>${esc(v)}</td></tr>`),
      '</table>',
      link ? `<p><a href="${esc(link)}">Open in the console</a></p>` : '',
    );
  }
  if (more > 0) {
    text.push(`…and ${more} more event${more === 1 ? '' : 's'}: see the console.`, '');
    html.push(`<p>…and ${more} more event${more === 1 ? '' : 's'}: see the console.</p>`);
  }
  text.push('--', `You get this because an alert rule names this address. Unsubscribe: ${m.unsubscribeUrl}`);
  html.push(
    `<hr><p style="font-size:12px">You get this because an alert rule names this address. <a href="${esc(m.unsubscribeUrl)}">Unsubscribe</a></p>`,
  );
  return {
    subject,
    text: text.join('\n'),
    html: `<!doctype html><html><body>${html.join('\n')}</body></html>`,
  };
}
