// Retry-After, read once for every client that honours it (carrier lookups, webhook deliveries).

const SECOND = 1000;

/**
 * Retry-After (RFC 9110): delay-seconds or an HTTP-date. Returns ms from `now` (>= 0), or null when absent
 * or malformed. Digits are tested first because Date.parse would read "120" as the year 120.
 */
export function parseRetryAfter(
  header: string | string[] | null | undefined,
  now: number | Date,
): number | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Math.min(Number(value), Number.MAX_SAFE_INTEGER / SECOND) * SECOND;
  // HTTP-date forms all start with a day name ("Sun, 06 Nov 1994 08:49:37 GMT" and the obsolete ones).
  if (!/^[A-Za-z]{3,9},? /.test(value)) return null;
  const at = Date.parse(value);
  if (!Number.isFinite(at)) return null;
  return Math.max(0, at - (typeof now === 'number' ? now : now.getTime()));
}
