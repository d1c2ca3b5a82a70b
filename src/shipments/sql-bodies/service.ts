import { batchedRow } from '../../db/batched-rows.ts';
import type { Database } from '../../db/database.ts';
import { type ListLinks, pageLinks } from '../../jsonapi/resource.ts';
import { markerPieces } from '../../reference/markers.ts';
import { portResources, terminalResources } from '../../reference/serializers.ts';
import { jsonPieces } from '../../util/json-pieces.ts';
import { type Page, pageOffset } from '../../util/page.ts';
import { isUuid } from '../../util/uuid.ts';
import type { TimeSort } from '../time-sort.ts';
import { containerEvents, containerPage, containersById, shipmentPage, shipmentsById } from './queries.ts';

// The database path of the hot reads: one prepared statement answers the resources as JSON text
// (a read by id shares its statement with the reads of the same kind waiting beside it:
// db/batched-rows.ts), and the body is those texts and the few pieces around them, encoded
// once into the Buffer that is sent (no rows become objects, nothing is parsed or serialised
// again, and the answer is not joined into one string first: see encoded()). The JavaScript serializers stay
// the reference (webhooks and every other read use them); test/api/sql-bodies.test.ts
// compares whole bodies of both paths. Each function answers undefined for "not found".

type Query = Record<string, string | undefined>;

/** Which includes each read builds in SQL; other includes take the JavaScript path. */
export const SQL_INCLUDES = {
  shipment: new Set(['containers']),
  shipments: new Set(['containers']),
  container: new Set<string>(),
  containers: new Set<string>(),
  containerEvents: new Set(['location', 'terminal', 'vessel']),
};

// The list parameters other than page, sort and include: any of them takes the JavaScript path.
const LIST_CONTROLS = new Set(['page[number]', 'page[size]', 'sort', 'include']);

/** Whether a list request names nothing but its page, sort and includes. */
export const unfilteredList = (qs: Query): boolean => Object.keys(qs).every((k) => LIST_CONTROLS.has(k));

/** Whether every include asked for is one the SQL path builds. */
export const sqlCovers = (covered: Set<string>, include: Set<string>): boolean =>
  [...include].every((i) => covered.has(i));

/** GET /shipments/{id}: `include` is empty or {containers}. */
export async function shipmentText(
  db: Database,
  accountId: string,
  id: string,
  include: Set<string>,
): Promise<Buffer | undefined> {
  if (!isUuid(id)) return undefined;
  const withContainers = include.has('containers');
  const r = await batchedRow(db, shipmentsById(withContainers), accountId, id);
  if (!r) return undefined;
  const [, data, included] = r as [string, string, string | null];
  return encoded(
    withContainers ? ['{"data":', data, ',"included":[', included ?? '', ']}'] : ['{"data":', data, '}'],
  );
}

/** GET /containers/{id} without includes. */
export async function containerText(
  db: Database,
  accountId: string,
  id: string,
): Promise<Buffer | undefined> {
  if (!isUuid(id)) return undefined;
  const r = await batchedRow(db, containersById, accountId, id);
  return r ? encoded(['{"data":', r[1] as string, '}']) : undefined;
}

/**
 * GET /containers/{id}/transport_events, `include` within location, terminal, vessel. `url` is the
 * request's own (links.self names it as asked).
 */
export async function containerEventsText(
  db: Database,
  accountId: string,
  id: string,
  page: Page,
  include: Set<string>,
  links: { baseUrl: string; qs: Query; url: string },
): Promise<Buffer | undefined> {
  if (!isUuid(id)) return undefined;
  const asked = {
    location: include.has('location'),
    terminal: include.has('terminal'),
    vessel: include.has('vessel'),
  };
  const r = await batchedRow(db, containerEvents(asked), accountId, id, [page.size, pageOffset(page)]);
  if (!r) return undefined;
  const [, containerId, data, total, locodes, terminals, vessels] = r as [
    string,
    string,
    string | null,
    number,
    string | null,
    string | null,
    string | null,
  ];
  const l = pageLinks(links.baseUrl, `/containers/${containerId}/transport_events`, links.qs, page, total);
  // self: this URL as asked; current: the same list from its first page (interface spec 4.2).
  const all: ListLinks = { ...l, self: `${links.baseUrl}${links.url}`, current: l.first };
  // The JavaScript path's order: locations, terminals, then vessels, each once, as first named.
  const included: string[] = [];
  if (locodes) included.push(...referenceJson('port', JSON.parse(locodes), portResources));
  if (terminals) included.push(...referenceJson('terminal', JSON.parse(terminals), terminalResources));
  if (vessels) included.push(vessels);
  const pieces = ['{"data":[', data ?? '', `],${tail(all, page, total)}`];
  if (include.size) pieces.push(',"included":[', ...commaSeparated(included), ']');
  pieces.push('}');
  return encoded(pieces);
}

// Ports and terminals are reference data, fixed for the life of the process: each resource is
// serialised once (a page of events names a handful, and the same ones again and again).
const referenceTexts = new Map<string, string | null>();

/** The resources of `codes` (each once, in first-named order, unknown ones skipped) as JSON text. */
function referenceJson(
  kind: string,
  codes: Array<string | null>,
  resources: (codes: string[]) => unknown[],
): string[] {
  const out: string[] = [];
  for (const code of new Set(codes)) {
    if (!code) continue;
    const key = `${kind}:${code}`;
    let text = referenceTexts.get(key);
    if (text === undefined) {
      const [r] = resources([code]);
      text = r ? JSON.stringify(r) : null;
      if (referenceTexts.size < 20_000) referenceTexts.set(key, text);
    }
    if (text) out.push(text);
  }
  return out;
}

/**
 * GET /shipments, unfiltered, `include` empty or {containers}: the body, encoded (a page with
 * containers is ~440 KB; see jsonPieces).
 */
export async function shipmentPageText(
  db: Database,
  accountId: string,
  sort: TimeSort,
  page: Page,
  include: Set<string>,
  links: { baseUrl: string; qs: Query },
): Promise<Buffer> {
  const withContainers = include.has('containers');
  const rows = (await db.queryRows(shipmentPage(sort, withContainers, page.size), [
    accountId,
    pageOffset(page),
  ])) as Array<[number, string | null, string | null, string | null]>;
  const total = rows[0]?.[0] ?? 0;
  const shipments = rows.filter((r) => r[1] !== null);
  const l = pageLinks(links.baseUrl, '/shipments', links.qs, page, total);
  const pieces = ['{"data":[', ...commaSeparated(shipments.map((r) => r[2]!))];
  // After links and meta: where the list's response schema serialiser puts the optional member.
  pieces.push(`],${tail(l, page, total)}`);
  if (withContainers) {
    // The containers follow their shipments' ids (uuid order is the order of their text), then
    // their numbers, as the JavaScript path includes them.
    const byId = [...shipments].sort((a, b) => (a[1]! < b[1]! ? -1 : 1));
    const containers = byId.flatMap((r) => (r[3] ? [r[3]] : []));
    pieces.push(',"included":[', ...commaSeparated(containers), ']');
  }
  pieces.push('}');
  return encoded(pieces);
}

/**
 * The body made of `pieces` (JSON texts that may hold markers), its markers expanded, encoded
 * once into one Buffer: the pieces and the slices between markers are copied straight into it.
 * Joined into one string, a ~34 KB page of events was copied three more times (the join, the
 * expansion, the flattening on its way out), and each copy was garbage for the young generation.
 */
export function encoded(pieces: readonly string[]): Buffer {
  const out: string[] = [];
  for (const p of pieces) markerPieces(p, out);
  return jsonPieces(out);
}

/** `texts` with a comma between each two. */
function commaSeparated(texts: string[]): string[] {
  return texts.flatMap((t, i) => (i ? [',', t] : [t]));
}

/** GET /containers, unfiltered, without includes. */
export async function containerPageText(
  db: Database,
  accountId: string,
  sort: TimeSort,
  page: Page,
  links: { baseUrl: string; qs: Query },
): Promise<Buffer> {
  const rows = (await db.queryRows(containerPage(sort, page.size), [accountId, pageOffset(page)])) as Array<
    [number, string | null]
  >;
  const total = rows[0]?.[0] ?? 0;
  const containers = rows.flatMap((r) => (r[1] === null ? [] : [r[1]]));
  const l = pageLinks(links.baseUrl, '/containers', links.qs, page, total);
  return encoded(['{"data":[', ...commaSeparated(containers), `],${tail(l, page, total)}}`]);
}

/** A list body's links and meta members (the text between its data and its included). */
export const tail = (links: ListLinks, page: Page, total: number) =>
  `"links":${JSON.stringify(links)},"meta":${JSON.stringify({ size: page.size, total })}`;
