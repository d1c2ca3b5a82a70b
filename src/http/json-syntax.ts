// Where a JSON body stops being JSON, and what was expected there, for the `malformed_json` detail.
// The position is found the same way whatever the engine's message says: the longest prefix that
// is still the beginning of a JSON text ends where the error is. The engine's words say what was
// expected, without its position (given here as line, column and byte offset) or its echo of the body.

const END = /^Unexpected end of JSON input$/;
const AT = /(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/;

function parseError(text: string): SyntaxError | null {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    return err as SyntaxError;
  }
}

/** A prefix is viable when it parses, or its only fault is that it ends. */
function viable(prefix: string): boolean {
  const err = parseError(prefix);
  if (!err || END.test(err.message)) return true;
  const at = AT.exec(err.message);
  return at !== null && Number(at[1]) >= prefix.length;
}

/** The offset of the first character that cannot continue a JSON text (text.length: it ends early). */
function errorOffset(text: string): number {
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (viable(text.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function where(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column} (byte offset ${Buffer.byteLength(before)})`;
}

/** The `detail` for a body JSON.parse refuses. */
export function jsonSyntaxDetail(text: string): string {
  if (text.trim() === '') return 'The request body is empty: expected a JSON document.';
  const offset = errorOffset(text);
  if (offset >= text.length) {
    return `The request body is not valid JSON: it ends at ${where(text, offset)} where more was expected (is it cut short?).`;
  }
  const message = parseError(text)?.message ?? '';
  const what = message.replace(AT, '').replace(/, ".*" is not valid JSON$/s, '');
  const found = JSON.stringify(text[offset]);
  const said = what ? `${what[0]!.toLowerCase()}${what.slice(1)}` : 'unexpected character';
  return `The request body is not valid JSON at ${where(text, offset)}: ${said} (found ${found}).`;
}
