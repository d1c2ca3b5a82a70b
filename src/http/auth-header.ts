// The one reader of the Authorization header, for /v2 and /mcp alike: the reference service's
// `Token <key>`, and `Bearer <key>` as MCP clients and most HTTP tools send it.

/** How a key may be sent, as error messages and the index name it. */
export const AUTH_SCHEMES = '"Token <key>" or "Bearer <key>"';

const SCHEME = /^(?:Token|Bearer)\s+(\S+)\s*$/i;

/** The key from `Token <key>` or `Bearer <key>`; null when the header is missing or neither. */
export function keyFromHeader(header: string | undefined): string | null {
  const m = SCHEME.exec(header ?? '');
  return m ? m[1]! : null;
}

export const AUTH_MESSAGES = {
  missing: `Send your API key as "Authorization: Token <key>" or "Authorization: Bearer <key>".`,
  malformed: `The Authorization header must be ${AUTH_SCHEMES} with a key issued by this service.`,
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
} as const;
