// The error catalogue is the one list of error codes: docs/errors.md is generated from it, and
// every code the source writes is in it (tsc enforces that for typed errors; this also covers the
// other direction, so no entry outlives its last use).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  ApiError,
  catalogueError,
  ERROR_CATALOGUE,
  type ErrorCode,
  errorsMarkdown,
  titleFor,
} from '../../src/errors.ts';
import { clientErrorResponse } from '../../src/http/edge-errors.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

describe('error catalogue', () => {
  it('docs/errors.md is generated from the catalogue (run `npm run docs:errors`)', () => {
    assert.equal(readFileSync(join(ROOT, 'docs/errors.md'), 'utf8'), errorsMarkdown());
  });

  it('lists each code once with a known status and a one-sentence meaning', () => {
    const codes = Object.keys(ERROR_CATALOGUE);
    assert.ok(codes.length >= 30, `only ${codes.length} codes`);
    for (const [code, e] of Object.entries(ERROR_CATALOGUE)) {
      assert.match(code, /^[a-z][a-z0-9_]*$/);
      assert.notEqual(titleFor(e.status), 'Error', `${code}: status ${e.status} has no title`);
      assert.match(e.meaning, /^[A-Z].*\.$/, `${code}: meaning should be one sentence`);
    }
  });

  it('every catalogue code is still used by the source', () => {
    const text = sources(join(ROOT, 'src'))
      .filter((f) => !f.endsWith(join('src', 'errors', 'catalogue.ts')))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unused = Object.keys(ERROR_CATALOGUE).filter((code) => !text.includes(`'${code}'`));
    assert.deepEqual(unused, []);
  });

  it('errors built with an explicit status use a code the catalogue gives that status', () => {
    // Reads each `new ApiError(NNN, …)`, `badParameter(…)` (400) and `invalidAttribute(…)` (422) call
    // to its closing parenthesis and checks the code literals inside against the catalogue.
    const CALL = /new ApiError\(\s*(\d{3})\b|\b(badParameter|invalidAttribute)\(/g;
    const wrong: string[] = [];
    let calls = 0;
    let checked = 0;
    for (const file of sources(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(CALL)) {
        if (text.slice(m.index - 9, m.index) === 'function ') continue;
        const status = m[1] ? Number(m[1]) : m[2] === 'badParameter' ? 400 : 422;
        let depth = 0;
        let end = m.index + m[0].indexOf('(');
        for (; end < text.length; end++) {
          if (text[end] === '(') depth++;
          else if (text[end] === ')' && --depth === 0) break;
        }
        calls++;
        const span = text.slice(m.index, end);
        const codes = [...span.matchAll(/code: '([a-z_]+)'|,\s*'([a-z_]+)',?\s*$/g)].map(
          (c) => (c[1] ?? c[2])!,
        );
        // The helpers' default codes: invalid_parameter (400) and invalid (422).
        if (codes.length === 0 && m[2]) codes.push(m[2] === 'badParameter' ? 'invalid_parameter' : 'invalid');
        for (const code of codes) {
          checked++;
          const entry = ERROR_CATALOGUE[code as ErrorCode];
          if (!entry || (entry.status !== status && entry.alsoStatus !== 'any 4xx'))
            wrong.push(`${file.slice(ROOT.length + 1)}: ${code} with ${status}`);
        }
      }
    }
    assert.ok(calls >= 25 && checked >= 25, `only ${calls} calls and ${checked} codes read`);
    assert.deepEqual(wrong, []);
  });

  it('catalogue errors render with the status and title of their code', () => {
    const err = catalogueError('rate_limited', 'Slow down.', { headers: { 'retry-after': '3' } });
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 429);
    assert.deepEqual(err.headers, { 'retry-after': '3' });
    assert.deepEqual(err.errors, [
      { status: '429', title: 'Too Many Requests', detail: 'Slow down.', code: 'rate_limited' },
    ]);
    const withSource = catalogueError('invalid_parameter', 'bad', { source: { parameter: 'sort' } });
    assert.deepEqual(withSource.errors[0], {
      status: '400',
      title: 'Bad Request',
      source: { parameter: 'sort' },
      detail: 'bad',
      code: 'invalid_parameter',
    });
  });

  it('errors written straight to the socket take status and title from the catalogue', () => {
    const cases: Array<[string | undefined, ErrorCode, string]> = [
      ['ERR_HTTP_REQUEST_TIMEOUT', 'request_timeout', 'HTTP/1.1 408 Request Timeout'],
      ['HPE_HEADER_OVERFLOW', 'headers_too_large', 'HTTP/1.1 431 Request Header Fields Too Large'],
      ['HPE_INVALID_METHOD', 'bad_request', 'HTTP/1.1 400 Bad Request'],
    ];
    for (const [nodeCode, code, line] of cases) {
      const raw = clientErrorResponse(nodeCode);
      assert.ok(raw.startsWith(`${line}\r\n`), raw);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
      assert.equal(body.errors[0].code, code);
      assert.equal(body.errors[0].status, String(ERROR_CATALOGUE[code].status));
    }
  });
});
