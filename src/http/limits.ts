// Limits on request input, checked before any schema or service sees it (docs/input-limits.md).
// Route schemas set tighter limits per member (ref_numbers: 100 entries of 200 characters, ...);
// these are the ceilings for everything else.

export const LIMITS = {
  /** Nesting of arrays and objects in a JSON body; deeper is a 400 pointing at the first too-deep value. */
  jsonDepth: 32,
  /** Characters in any JSON string (member names included). */
  stringLength: 10_000,
  /** Entries in any JSON array. */
  arrayLength: 1_000,
  /** Members of any JSON object. */
  objectMembers: 1_000,
  /** Characters in the request target (path and query); longer is a 414. */
  urlLength: 8_192,
  /** Characters in one query parameter value. */
  queryValueLength: 1_000,
  /** Characters in a path parameter such as an id. */
  pathParamLength: 200,
} as const;
