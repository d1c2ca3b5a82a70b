import type { FastifyInstance } from 'fastify';

// MCP tools call the public API in-process (`app.inject`) with the caller's own key, rather than
// the services underneath. That is deliberate: the tools get exactly the API's authentication,
// account scoping, rate limits, validation and serialization, with no second code path to keep in
// step while the services below are being reorganised. The cost, one in-memory HTTP round trip per
// call (no socket), is small next to the database work.

/** A JSON:API document as the tools read it. */
export interface Doc {
  // biome-ignore lint/suspicious/noExplicitAny: JSON:API documents are read field by field.
  data?: any;
  // biome-ignore lint/suspicious/noExplicitAny: idem.
  included?: any[];
  meta?: { total?: number; size?: number };
  [key: string]: unknown;
}

/** Sends a request to /v2 (path without the prefix); answers the status and the parsed body. */
export type ApiCaller = (
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: Doc }>;

/** A problem the agent can act on: reported as a tool error (isError), not a protocol failure. */
export class ToolError extends Error {}

export function injectCaller(app: FastifyInstance, key: string): ApiCaller {
  const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => {
    const res = await app.inject({
      method,
      url: `/v2${path}`,
      headers: {
        authorization: `Token ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }),
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    let parsed: Doc = {};
    try {
      parsed = res.body ? (JSON.parse(res.body) as Doc) : {};
    } catch {
      parsed = {};
    }
    return { status: res.statusCode, body: parsed };
  };
  return call;
}

/** The API's error details as one sentence. */
export function errorText(status: number, body: Doc): string {
  const errors = Array.isArray(body.errors)
    ? (body.errors as Array<{ detail?: string; title?: string }>)
    : [];
  const text = errors
    .map((e) => e.detail ?? e.title)
    .filter(Boolean)
    .join(' ');
  return text || `The API answered ${status}.`;
}

/** GET that answers the document, or throws the API's error as a ToolError. */
export async function getDoc(api: ApiCaller, path: string): Promise<Doc> {
  const { status, body } = await api('GET', path);
  if (status >= 400) throw new ToolError(errorText(status, body));
  return body;
}

/** A query string from defined values. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : '';
}

/** Included resources by "type:id". */
export function includedIndex(doc: Doc): Map<string, Doc['data']> {
  return new Map((doc.included ?? []).map((r) => [`${r.type}:${r.id}`, r]));
}
