import { Type } from 'typebox';
import { type ApiCaller, type Doc, errorText, getDoc, query, ToolError } from '../api.ts';
import { flat, trackingRequestLine } from '../format.ts';
import { Intent, type PageArgs, Paging, pageNote, pageQuery, type Tool } from './tool.ts';

const NUMBER_TYPES = ['container', 'bill_of_lading', 'booking_number'] as const;
type NumberType = (typeof NUMBER_TYPES)[number];
const TR_STATUSES = ['pending', 'awaiting_manifest', 'created', 'failed', 'tracking_stopped'] as const;
/** List filters the API understands, as `filters` keys (with or without the filter[] wrapping). */
const LIST_FILTERS = ['status', 'scac', 'request_number', 'created_at][start', 'created_at][end'];

interface TrackArgs {
  number?: string;
  numberType?: NumberType;
  scac?: string;
  refNumbers?: string[];
  containerNumber?: string;
  bookingNumber?: string;
}

/** Type and carrier from POST /v2/tracking_requests/infer_number, for what the caller left out. */
async function infer(api: ApiCaller, number: string): Promise<{ type: NumberType; scac: string | null }> {
  const { status, body } = await api('POST', '/tracking_requests/infer_number', { number });
  if (status >= 400) throw new ToolError(errorText(status, body));
  const a = body.data.attributes;
  const line = a.shipping_line;
  return {
    type: a.request_type,
    scac: line.selected?.scac ?? (line.candidates.length === 1 ? line.candidates[0].scac : null),
  };
}

export const trackContainer: Tool = {
  name: 'track_container',
  title: 'Start tracking a number',
  description:
    'Creates a tracking request for a container, bill of lading or booking number at a carrier. The number type and the carrier (SCAC) are inferred from the number when not given. If the number is already being tracked, answers the existing request.',
  input: Type.Object({
    number: Type.Optional(
      Type.String({ maxLength: 100, description: 'Container, bill of lading or booking number.' }),
    ),
    numberType: Type.Optional(
      Type.Union(
        NUMBER_TYPES.map((t) => Type.Literal(t)),
        { description: 'Inferred when absent.' },
      ),
    ),
    scac: Type.Optional(Type.String({ maxLength: 10, description: 'Carrier SCAC; inferred when absent.' })),
    refNumbers: Type.Optional(
      Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100, description: 'Your references.' }),
    ),
    containerNumber: Type.Optional(Type.String({ maxLength: 100, description: 'Deprecated: use number.' })),
    bookingNumber: Type.Optional(Type.String({ maxLength: 100, description: 'Deprecated: use number.' })),
    intent: Intent,
  }),
  async run(api, args: TrackArgs) {
    const number = (args.number ?? args.containerNumber ?? args.bookingNumber)?.trim();
    if (!number) throw new ToolError('Give the number to track (number).');
    let type: NumberType | undefined =
      args.numberType ??
      (args.containerNumber ? 'container' : args.bookingNumber ? 'booking_number' : undefined);
    let scac = args.scac?.trim().toUpperCase() || null;
    if (!type || !scac) {
      const guess = await infer(api, number);
      type ??= guess.type;
      scac ??= guess.scac;
    }
    if (!scac)
      throw new ToolError(
        `The carrier of ${number} could not be inferred: pass its SCAC (see get_supported_shipping_lines).`,
      );
    const attributes = {
      request_number: number,
      request_type: type,
      scac,
      ...(args.refNumbers ? { ref_numbers: args.refNumbers } : {}),
    };
    const { status, body } = await api('POST', '/tracking_requests', {
      data: { type: 'tracking_request', attributes },
    });
    if (status === 201) {
      return {
        text: `Tracking request created: ${trackingRequestLine(body.data)}. The carrier is queried in the background; check list_tracking_requests or search_container shortly.`,
        data: { created: true, tracking_request: flat(body.data) },
      };
    }
    const duplicate =
      status === 422 &&
      (body.errors as Array<{ code?: string }> | undefined)?.some((e) => e.code === 'duplicate');
    if (!duplicate) throw new ToolError(errorText(status, body));
    const existing = await getDoc(
      api,
      `/tracking_requests${query({ 'filter[request_number]': number, 'filter[scac]': scac, 'page[size]': 1 })}`,
    );
    const tr = existing.data?.[0];
    if (!tr) throw new ToolError(errorText(status, body));
    return {
      text: `Already tracked: ${trackingRequestLine(tr)}.`,
      data: { created: false, tracking_request: flat(tr) },
    };
  },
};

export const listTrackingRequests: Tool = {
  name: 'list_tracking_requests',
  title: 'List tracking requests',
  description:
    "A page of the account's tracking requests, newest first, with status and failure reason; filter by status, request type, SCAC or number.",
  input: Type.Object({
    filters: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'List filters: status, scac, request_number, request_type, created_at][start, created_at][end.',
      }),
    ),
    status: Type.Optional(Type.Union(TR_STATUSES.map((s) => Type.Literal(s)))),
    request_type: Type.Optional(Type.Union(NUMBER_TYPES.map((t) => Type.Literal(t)))),
    ...Paging,
  }),
  async run(
    api,
    args: {
      filters?: Record<string, string>;
      status?: string;
      request_type?: string;
    } & PageArgs,
  ) {
    const filters: Record<string, string> = {};
    let requestType = args.request_type;
    for (const [raw, value] of Object.entries(args.filters ?? {})) {
      const key = raw.replace(/^filter\[/, '').replace(/\]$/, '');
      if (key === 'request_type') requestType ??= value;
      else if (LIST_FILTERS.includes(key)) filters[`filter[${key}]`] = value;
      else
        throw new ToolError(
          `Unknown filter "${raw}". Known: ${[...LIST_FILTERS, 'request_type'].join(', ')}.`,
        );
    }
    if (args.status) filters['filter[status]'] = args.status;
    const doc = await getDoc(api, `/tracking_requests${query({ ...filters, ...pageQuery(args) })}`);
    // The API has no request_type filter: it is applied to the page here (and said so).
    const rows = (doc.data ?? []).filter(
      (r: Doc['data']) => !requestType || r.attributes.request_type === requestType,
    );
    const note = requestType ? ` (request_type ${requestType} applied to this page)` : '';
    return {
      text: rows.length
        ? `${rows.map(trackingRequestLine).join('\n')}\n${pageNote(doc, args)}${note}`
        : `No tracking requests match${note}.`,
      data: { tracking_requests: rows.map(flat), meta: doc.meta ?? {} },
    };
  },
};

export const getSupportedShippingLines: Tool = {
  name: 'get_supported_shipping_lines',
  title: 'Supported shipping lines',
  description:
    'The carriers this service knows (SCAC, name, short name, which number types each tracks); search filters by name or SCAC.',
  input: Type.Object({
    search: Type.Optional(
      Type.String({ maxLength: 100, description: 'Part of a name, short name or SCAC.' }),
    ),
    intent: Intent,
  }),
  async run(api, args: { search?: string }) {
    const doc = await getDoc(api, '/shipping_lines');
    const needle = args.search?.trim().toLowerCase();
    const lines = (doc.data ?? []).map(flat).filter(
      (l: Record<string, unknown>) =>
        !needle ||
        [l.scac, l.name, l.short_name, ...((l.alternative_scacs as string[]) ?? [])].some((v) =>
          String(v ?? '')
            .toLowerCase()
            .includes(needle),
        ),
    );
    return {
      text: lines.length
        ? lines.map((l: Record<string, unknown>) => `${l.scac}  ${l.name} (${l.short_name})`).join('\n')
        : `No shipping line matches "${args.search}".`,
      data: { shipping_lines: lines },
    };
  },
};
