import { type TSchema, Type } from 'typebox';
import { API_PREFIX, iso, type Resource, selfLink } from '../jsonapi/resource.ts';
import { Nullable } from '../jsonapi/schemas.ts';
import { portByLocode } from '../reference/data.ts';
import type { SearchHit } from './service.ts';

// The live reference service answers every hit as a `search_result` whose entity_type says what was
// found (its published document says `type` is the entity; its clients, such as its MCP server's
// search_container, read entity_type: docs/api-notes.md, "Live over document").

const NStr = Nullable(Type.String());

export const SearchResultSchema: TSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('search_result'),
  attributes: Type.Object({
    entity_type: Type.Union([
      Type.Literal('shipment'),
      Type.Literal('cargo'),
      Type.Literal('tracking_request'),
    ]),
    number: Type.String(),
    shipment_id: NStr,
    scac: NStr,
    port_of_lading_name: NStr,
    port_of_discharge_name: NStr,
    containers_count: Nullable(Type.Integer()),
    tracking_stopped: Nullable(Type.Boolean()),
    tracking_stopped_reason: NStr,
    status: NStr,
    failed_reason: NStr,
    ref_numbers: Type.Array(Type.String()),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
  links: Type.Object({ self: Type.String() }),
});

/** The body's links as the live service gives them: the search, and its (only) page. */
export const SearchLinksSchema: TSchema = Type.Object({ self: Type.String(), current: Type.String() });

export function searchLinks(baseUrl: string, query: string) {
  const q = encodeURIComponent(query);
  return {
    self: `${baseUrl}${API_PREFIX}/search?query=${q}`,
    current: `${baseUrl}${API_PREFIX}/search?page%5Bnumber%5D=1&query=${q}`,
  };
}

const portName = (locode: string | null) => (locode ? (portByLocode(locode)?.name ?? null) : null);

const EMPTY = {
  shipment_id: null,
  port_of_lading_name: null,
  port_of_discharge_name: null,
  containers_count: null,
  tracking_stopped: null,
  tracking_stopped_reason: null,
  status: null,
  failed_reason: null,
};

export function serializeHit(h: SearchHit): Resource {
  const r = h.row;
  const common = {
    entity_type: h.kind,
    number: r.number,
    scac: r.scac,
    ref_numbers: r.ref_numbers,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
  switch (h.kind) {
    case 'shipment':
      return {
        id: r.id,
        type: 'search_result',
        attributes: {
          ...EMPTY,
          ...common,
          port_of_lading_name: portName(h.row.port_of_lading_locode),
          port_of_discharge_name: portName(h.row.port_of_discharge_locode),
          containers_count: h.row.containers_count,
          tracking_stopped: h.row.line_tracking_stopped_at !== null,
          tracking_stopped_reason: h.row.line_tracking_stopped_reason,
        },
        links: selfLink(`/shipments/${r.id}`),
      };
    case 'cargo':
      return {
        id: r.id,
        type: 'search_result',
        attributes: { ...EMPTY, ...common, shipment_id: h.row.shipment_id },
        links: selfLink(`/containers/${r.id}`),
      };
    case 'tracking_request':
      return {
        id: r.id,
        type: 'search_result',
        attributes: { ...EMPTY, ...common, status: h.row.status, failed_reason: h.row.failed_reason },
        links: selfLink(`/tracking_requests/${r.id}`),
      };
  }
}
