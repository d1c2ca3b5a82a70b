import { type TSchema, Type } from 'typebox';
import { type ApiCaller, type Doc, getDoc, includedIndex, query } from '../api.ts';

export interface ToolResult {
  /** What an agent reads. */
  text: string;
  /** The same facts as structured content. */
  data: Record<string, unknown>;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  input: TSchema;
  // biome-ignore lint/suspicious/noExplicitAny: arguments are checked against `input` before run.
  run(api: ApiCaller, args: any): Promise<ToolResult>;
}

// Inputs shared by several tools. The reference's tools accept an `intent` (why the agent asks);
// it is accepted and not used.
export const Intent = Type.Optional(Type.String({ description: 'Why you are asking (optional; not used).' }));
export const Page = Type.Optional(Type.Integer({ minimum: 1, description: 'Page number, from 1.' }));
export const PageSize = Type.Optional(
  Type.Integer({ minimum: 1, maximum: 100, description: 'Items per page (1-100, default 30).' }),
);
export const Id = (what: string) =>
  Type.String({ minLength: 1, maxLength: 100, description: `The ${what} id (UUID).` });

/** The last inputs of every list tool: which page, how large, and the intent. */
export const Paging = { page: Page, page_size: PageSize, intent: Intent };
export interface PageArgs {
  page?: number;
  page_size?: number;
}

export function pageQuery(args: PageArgs) {
  return { 'page[number]': args.page, 'page[size]': args.page_size };
}

export function pageNote(doc: Doc, args: PageArgs): string {
  const total = doc.meta?.total;
  const size = args.page_size ?? doc.meta?.size ?? 30;
  const page = args.page ?? 1;
  return total === undefined
    ? ''
    : `Page ${page} of ${Math.max(1, Math.ceil(total / size))} (${total} in all).`;
}

/** A transport event with its place and vessel resolved, as the event tools show it. */
export interface TransportEvent {
  event: string;
  timestamp: string | null;
  locode: string | null;
  placeName: string | null;
  latitude: number | null;
  longitude: number | null;
  vesselName: string | null;
  vesselImo: string | null;
  voyage: string | null;
}

/** The container's transport events, with their places and vessels resolved. */
export async function loadEvents(
  api: ApiCaller,
  containerId: string,
): Promise<{ doc: Doc; events: TransportEvent[] }> {
  const doc = await getDoc(
    api,
    `/containers/${encodeURIComponent(containerId)}/transport_events${query({ include: 'location,vessel', 'page[size]': 100 })}`,
  );
  const index = includedIndex(doc);
  const rel = (e: Doc['data'], name: string) => {
    const ref = e.relationships?.[name]?.data;
    return ref ? index.get(`${ref.type}:${ref.id}`) : undefined;
  };
  const events: TransportEvent[] = (doc.data ?? []).map((e: Doc['data']) => {
    const loc = rel(e, 'location')?.attributes;
    const vessel = rel(e, 'vessel')?.attributes;
    return {
      event: e.attributes.event,
      timestamp: e.attributes.timestamp,
      locode: e.attributes.location_locode,
      placeName: loc?.name ?? null,
      latitude: loc?.latitude ?? null,
      longitude: loc?.longitude ?? null,
      vesselName: vessel?.name ?? null,
      vesselImo: vessel?.imo ?? null,
      voyage: e.attributes.voyage_number,
    };
  });
  return { doc, events };
}
