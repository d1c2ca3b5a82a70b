import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { staticHeadersAuth } from '../../src/carriers/auth.ts';
import { createDcsaAdapter } from '../../src/carriers/dcsa/adapter.ts';
import {
  createDcsaClient,
  type DcsaClientOptions,
  type FetchResult,
} from '../../src/carriers/dcsa/client.ts';
import { createRateBudget } from '../../src/carriers/rate-budget.ts';
import type { LookupResult } from '../../src/carriers/types.ts';
import { json, type Stub, type StubHandler, startStub } from './stub-server.ts';

const ev = (id: string, extra: Record<string, unknown> = {}) => ({
  eventID: id,
  eventType: 'TRANSPORT',
  eventClassifierCode: 'ACT',
  eventDateTime: '2024-05-01T10:00:00+08:00',
  eventCreatedDateTime: '2024-05-01T10:00:00+08:00',
  transportEventTypeCode: 'DEPA',
  transportCall: { transportCallID: 'TC1', modeOfTransport: 'VESSEL', UNLocationCode: 'CNYTN' },
  ...extra,
});

// One server for the file; each test installs its own behaviour.
let stub: Stub;
let handler: StubHandler = (_req, res) => json(res, 200, []);
before(async () => {
  stub = await startStub((req, res, i) => handler(req, res, i));
});
after(() => stub.close());

function serve(h: StubHandler): void {
  stub.requests.length = 0;
  handler = h;
}

function client(options: Partial<DcsaClientOptions> = {}) {
  return createDcsaClient({
    baseUrl: `${stub.url}/carrier/api`,
    auth: staticHeadersAuth({ 'X-Api-Key': 'k-123' }),
    timeoutMs: 2000,
    ...options,
  });
}

// The client hands back raw events; the adapter reads them into a snapshot (raw kept per record).
const found = (r: LookupResult | FetchResult): unknown[] => {
  assert.equal(r.kind, 'found', JSON.stringify(r));
  return 'snapshot' in r ? r.snapshot.records.map((x) => x.raw) : (r as { events: unknown[] }).events;
};
const ids = (r: LookupResult | FetchResult) =>
  found(r).map(
    (e) => (e as { eventID?: string; eventId?: string }).eventID ?? (e as { eventId: string }).eventId,
  );

function failure(r: LookupResult | FetchResult, reason: string): { detail: string; retryAfterMs?: number } {
  assert.equal(r.kind, 'temporary_failure', JSON.stringify(r));
  const f = r as { reason: string; detail: string; retryAfterMs?: number };
  assert.equal(f.reason, reason, f.detail);
  return f;
}

describe('DCSA client: requests', () => {
  it('GETs /v2/events with the reference filter, limit, API-Version and the auth headers', async () => {
    serve((_req, res) => json(res, 200, [ev('a')]));
    assert.deepEqual(ids(await client().fetchEvents('transportDocumentReference', 'HLCU123')), ['a']);
    const [req] = stub.requests;
    assert.equal(req!.method, 'GET');
    assert.equal(req!.url.pathname, '/carrier/api/v2/events');
    assert.equal(req!.url.searchParams.get('transportDocumentReference'), 'HLCU123');
    assert.equal(req!.url.searchParams.get('limit'), '100');
    assert.equal(req!.headers['api-version'], '2');
    assert.equal(req!.headers['x-api-key'], 'k-123');
    assert.match(String(req!.headers.accept), /application\/json/);
  });

  it('a base URL that already ends in /v2 is not doubled', async () => {
    serve((_req, res) => json(res, 200, [ev('a')]));
    await client({ baseUrl: `${stub.url}/tnt/v2/` }).fetchEvents('equipmentReference', 'MSKU7000013');
    assert.equal(stub.requests[0]!.url.pathname, '/tnt/v2/events');
  });
});

describe('DCSA client: pagination', () => {
  it('Next-Page as an opaque cursor is sent back as cursor= with the original filters; duplicates dropped', async () => {
    serve((req, res) => {
      const cursor = req.url.searchParams.get('cursor');
      if (!cursor) return json(res, 200, [ev('a'), ev('b')], { 'Next-Page': 'cGFnZT0y' });
      if (cursor === 'cGFnZT0y')
        return json(res, 200, [ev('b'), { ...ev('c'), eventID: undefined, eventId: 'c' }], {
          'Next-Page': 'cGFnZT0z',
        });
      return json(res, 200, [ev('d')]);
    });
    const r = await client().fetchEvents('carrierBookingReference', 'BK1');
    assert.deepEqual(ids(r), ['a', 'b', 'c', 'd']);
    assert.equal(stub.requests.length, 3);
    for (const req of stub.requests.slice(1)) {
      assert.equal(req.url.searchParams.get('carrierBookingReference'), 'BK1');
      assert.equal(req.url.searchParams.get('limit'), '100');
    }
    assert.equal(stub.requests[2]!.url.searchParams.get('cursor'), 'cGFnZT0z');
  });

  it('Next-Page as an absolute URL and as a path are followed as links', async () => {
    serve((req, res) => {
      if (req.url.searchParams.get('page') === null) {
        return json(res, 200, [ev('a')], { 'Next-Page': `${stub.url}/carrier/api/v2/events?page=2&x=1` });
      }
      if (req.url.searchParams.get('page') === '2') {
        return json(res, 200, [ev('b')], { 'Next-Page': '/carrier/api/v2/events?page=3' });
      }
      return json(res, 200, [ev('c')]);
    });
    assert.deepEqual(ids(await client().fetchEvents('equipmentReference', 'MSKU7000013')), ['a', 'b', 'c']);
    assert.equal(stub.requests[1]!.url.search, '?page=2&x=1');
    assert.equal(stub.requests[2]!.url.search, '?page=3');
  });

  it('Next-Page-Cursor (Conformance-Gateway / TNT 3 style) is honoured', async () => {
    serve((req, res) =>
      req.url.searchParams.get('cursor') === 'next-1'
        ? json(res, 200, [ev('b')])
        : json(res, 200, [ev('a')], { 'Next-Page-Cursor': 'next-1' }),
    );
    assert.deepEqual(ids(await client({ pageSize: 1 }).fetchEvents('equipmentReference', 'X')), ['a', 'b']);
    assert.equal(stub.requests[0]!.url.searchParams.get('limit'), '1');
  });

  it('a cursor seen twice stops the loop; so does the page limit', async () => {
    serve((_req, res) => json(res, 200, [ev('a')], { 'Next-Page': 'same' }));
    assert.deepEqual(ids(await client().fetchEvents('equipmentReference', 'X')), ['a']);
    assert.equal(stub.requests.length, 2);

    serve((_req, res, i) => json(res, 200, [ev(`e${i}`)], { 'Next-Page': `c${i}` }));
    assert.deepEqual(ids(await client({ maxPages: 3 }).fetchEvents('equipmentReference', 'X')), [
      'e0',
      'e1',
      'e2',
    ]);
    assert.equal(stub.requests.length, 3);
  });

  it('a Next-Page link to another host is refused (credentials would leak)', async () => {
    serve((_req, res) => json(res, 200, [ev('a')], { 'Next-Page': 'https://evil.example/v2/events?page=2' }));
    const f = failure(await client().fetchEvents('equipmentReference', 'X'), 'unrecognized_response');
    assert.match(f.detail, /another host/);
    assert.equal(stub.requests.length, 1);
  });

  it('a huge page is handled', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ev(`id-${i}`));
    serve((_req, res) => json(res, 200, many));
    assert.equal(found(await client().fetchEvents('equipmentReference', 'X')).length, 20_000);
  });
});

describe('DCSA client: failures', () => {
  it('404, 400 and 200 [] mean not found', async () => {
    for (const [status, body] of [
      [404, { statusCode: 404, errors: [{ reason: 'notFound', message: 'unknown reference' }] }],
      [400, { statusCode: 400, errors: [{ reason: 'invalidQuery', message: 'no such booking' }] }],
      [200, []],
    ] as const) {
      serve((_req, res) => json(res, status, body));
      assert.deepEqual(
        await client().fetchEvents('carrierBookingReference', 'NOPE'),
        { kind: 'not_found' },
        String(status),
      );
    }
  });

  it('404 on a later page is an unrecognized response, not "not found"', async () => {
    serve((req, res) =>
      req.url.searchParams.get('cursor')
        ? json(res, 404, {})
        : json(res, 200, [ev('a')], { 'Next-Page': 'p2' }),
    );
    failure(await client().fetchEvents('equipmentReference', 'X'), 'unrecognized_response');
  });

  it('500 and connection errors: shipping_line_unreachable', async () => {
    serve((_req, res) =>
      json(res, 502, { statusCode: 502, errors: [{ reason: 'upstream', message: 'backend down' }] }),
    );
    const f = failure(await client().fetchEvents('equipmentReference', 'X'), 'shipping_line_unreachable');
    assert.match(f.detail, /HTTP 502.*backend down/);

    const closed = await startStub((_req, res) => json(res, 200, []));
    await closed.close();
    const r = await client({ baseUrl: closed.url }).fetchEvents('equipmentReference', 'X');
    assert.match(failure(r, 'shipping_line_unreachable').detail, /connection failed/);
  });

  it('time-out: shipping_line_unreachable; a caller abort too', async () => {
    serve((_req, res) => {
      setTimeout(() => json(res, 200, [ev('late')]), 1000).unref();
    });
    const started = Date.now();
    const f = failure(
      await client({ timeoutMs: 100 }).fetchEvents('equipmentReference', 'X'),
      'shipping_line_unreachable',
    );
    assert.match(f.detail, /within 100 ms/);
    assert.ok(Date.now() - started < 900);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const aborted = await client().fetchEvents('equipmentReference', 'X', controller.signal);
    assert.match(failure(aborted, 'shipping_line_unreachable').detail, /aborted/);
  });

  it('malformed JSON or a non-array body: unrecognized_response', async () => {
    serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('[{"eventID": "a",');
    });
    assert.match(
      failure(await client().fetchEvents('equipmentReference', 'X'), 'unrecognized_response').detail,
      /not valid JSON/,
    );
    serve((_req, res) => json(res, 200, { events: [] }));
    assert.match(
      failure(await client().fetchEvents('equipmentReference', 'X'), 'unrecognized_response').detail,
      /not a JSON array/,
    );
  });

  it('redirects are not followed', async () => {
    serve((_req, res) => {
      res.writeHead(302, { Location: 'https://elsewhere.example/v2/events' });
      res.end();
    });
    failure(await client().fetchEvents('equipmentReference', 'X'), 'unrecognized_response');
    assert.equal(stub.requests.length, 1);
  });

  it('401/403 with static headers: shipping_line_unreachable with a clear detail, no retry', async () => {
    for (const status of [401, 403]) {
      serve((_req, res) => json(res, status, { errors: [{ reason: 'unauthorized', message: 'bad key' }] }));
      const f = failure(await client().fetchEvents('equipmentReference', 'X'), 'shipping_line_unreachable');
      assert.match(f.detail, new RegExp(`rejected our credentials \\(HTTP ${status}\\)`));
      assert.equal(stub.requests.length, 1);
    }
  });
});

describe('DCSA client: 429 and Retry-After', () => {
  it('a short Retry-After is waited out within the lookup', async () => {
    serve((_req, res, i) =>
      i === 0 ? json(res, 429, {}, { 'Retry-After': '0' }) : json(res, 200, [ev('a')]),
    );
    assert.deepEqual(ids(await client().fetchEvents('equipmentReference', 'X')), ['a']);
    assert.equal(stub.requests.length, 2);
  });

  it('a long Retry-After (seconds or HTTP date) becomes a temporary failure with retryAfterMs', async () => {
    serve((_req, res) => json(res, 429, {}, { 'Retry-After': '120' }));
    const f = failure(await client().fetchEvents('equipmentReference', 'X'), 'shipping_line_unreachable');
    assert.equal(f.retryAfterMs, 120_000);
    assert.equal(stub.requests.length, 1);

    const now = Date.parse('2024-05-01T10:00:00Z');
    serve((_req, res) => json(res, 429, {}, { 'Retry-After': 'Wed, 01 May 2024 10:05:00 GMT' }));
    const g = failure(
      await client({ now: () => now }).fetchEvents('equipmentReference', 'X'),
      'shipping_line_unreachable',
    );
    assert.equal(g.retryAfterMs, 300_000);
  });

  it('retries of one page are bounded', async () => {
    serve((_req, res) => json(res, 429, {}, { 'Retry-After': '0' }));
    failure(
      await client({ maxRetriesPerPage: 2 }).fetchEvents('equipmentReference', 'X'),
      'shipping_line_unreachable',
    );
    assert.equal(stub.requests.length, 3);
  });
});

describe('DCSA client: request budget', () => {
  it('an exhausted budget fails fast without calling the carrier', async () => {
    serve((_req, res) => json(res, 200, [ev('a')]));
    const budget = createRateBudget({ requestsPerMinute: 1, maxWaitMs: 0 });
    const c = client({ budget });
    found(await c.fetchEvents('equipmentReference', 'X'));
    const f = failure(await c.fetchEvents('equipmentReference', 'X'), 'shipping_line_unreachable');
    assert.match(f.detail, /budget/);
    assert.ok(f.retryAfterMs! > 50_000 && f.retryAfterMs! <= 60_000, String(f.retryAfterMs));
    assert.equal(stub.requests.length, 1);
  });

  it('every HTTP request, pages included, is paced by the budget', async () => {
    serve((req, res) => {
      const n = Number(req.url.searchParams.get('cursor') ?? '0');
      return n < 4
        ? json(res, 200, [ev(`e${n}`)], { 'Next-Page': String(n + 1) })
        : json(res, 200, [ev('last')]);
    });
    // 1200/min with a burst of 1: one request every 50 ms.
    const budget = createRateBudget({ requestsPerMinute: 1200, burst: 1, maxWaitMs: 1000 });
    const started = performance.now();
    assert.equal(found(await client({ budget }).fetchEvents('equipmentReference', 'X')).length, 5);
    assert.ok(performance.now() - started >= 190, 'five requests need four 50 ms gaps');
  });
});

describe('DCSA adapter', () => {
  const adapter = (
    numberTypes: ('bill_of_lading' | 'booking_number' | 'container')[] = [
      'bill_of_lading',
      'booking_number',
      'container',
    ],
  ) => createDcsaAdapter({ scac: 'HLCU', numberTypes, client: client() });

  it('maps number types to the DCSA reference filters and normalizes the number', async () => {
    serve((_req, res) => json(res, 200, [ev('a')]));
    const a = adapter();
    await a.lookup('bill_of_lading', ' hlcusha2403abc1 ');
    await a.lookup('booking_number', '23456789');
    await a.lookup('container', 'mscu 123456-6');
    assert.equal(stub.requests[0]!.url.searchParams.get('transportDocumentReference'), 'HLCUSHA2403ABC1');
    assert.equal(stub.requests[1]!.url.searchParams.get('carrierBookingReference'), '23456789');
    assert.equal(stub.requests[2]!.url.searchParams.get('equipmentReference'), 'MSCU1234566');
    assert.equal(a.scac, 'HLCU');
  });

  it('rejects invalid numbers and unsupported types without a request', async () => {
    serve((_req, res) => json(res, 200, [ev('a')]));
    const a = adapter(['container']);
    for (const [type, number] of [
      ['container', 'MSCU1234567'], // wrong check digit
      ['container', 'NOTACONTAINER'],
      ['bill_of_lading', 'HLCU1'],
    ] as const) {
      const r = await a.lookup(type, number);
      assert.equal(r.kind, 'permanent_failure', `${type} ${number}`);
      assert.equal((r as { reason: string }).reason, 'invalid_number');
    }
    const tooLong = await adapter().lookup('bill_of_lading', 'X'.repeat(21));
    assert.equal(tooLong.kind, 'permanent_failure');
    assert.equal(stub.requests.length, 0);
  });

  it('returns the raw events untouched', async () => {
    const raw = [ev('a', { someVendorField: { nested: [1, 2] } })];
    serve((_req, res) => json(res, 200, raw));
    assert.deepEqual(found(await adapter().lookup('booking_number', 'BK1')), raw);
  });
});
