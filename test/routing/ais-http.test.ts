import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { httpAis } from '../../src/routing/ais-http.ts';

// The HTTP AIS provider never throws and never trusts the feed: every failure is "no fix".

const VESSEL = { id: 'v1', imo: '9781011', name: 'TEST AURORA' };
const AT = new Date('2026-03-01T12:00:00Z');
const FIX = {
  imo: '9781011',
  lon: 104.5,
  lat: 1.25,
  at: '2026-03-01T11:00:00Z',
  heading: 90,
  speed_knots: 17.2,
};

describe('httpAis', () => {
  let base = '';
  let answer: (url: URL) => {
    status: number;
    body?: string;
    headers?: Record<string, string>;
    hang?: boolean;
  };
  const server = createServer((req, res) => {
    const a = answer(new URL(req.url ?? '/', 'http://feed'));
    if (a.hang) return;
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(a.body ?? '');
  });
  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const ais = () => httpAis({ baseUrl: `${base}/`, timeoutMs: 200 });

  test('latest: the feed fix, asked by IMO at the instant', async () => {
    let seen: URL | undefined;
    answer = (url) => {
      seen = url;
      return { status: 200, body: JSON.stringify({ data: FIX }) };
    };
    assert.deepEqual(await ais().latest(VESSEL, AT, 6 * 3_600_000), {
      point: [104.5, 1.25],
      at: new Date(FIX.at),
      heading: 90,
      speedKnots: 17.2,
    });
    assert.equal(seen?.pathname, '/ais/positions/latest');
    assert.equal(seen?.searchParams.get('imo'), '9781011');
    assert.equal(seen?.searchParams.get('at'), AT.toISOString());
  });

  test('latest: too old, in the future, malformed, 404, redirect, time-out or no IMO is null', async () => {
    const cases: Array<ReturnType<typeof answer>> = [
      { status: 200, body: JSON.stringify({ data: FIX }) }, // older than maxAge below
      { status: 200, body: JSON.stringify({ data: { ...FIX, at: '2026-03-01T13:00:00Z' } }) },
      { status: 200, body: JSON.stringify({ data: { ...FIX, lat: 95 } }) },
      { status: 200, body: 'not json' },
      { status: 404, body: '{"error":"no position"}' },
      { status: 302, headers: { location: `${base}/elsewhere` } },
      { status: 200, hang: true },
    ];
    for (const c of cases) {
      answer = () => c;
      assert.equal(await ais().latest(VESSEL, AT, 1_800_000), null, JSON.stringify(c));
    }
    answer = () => ({ status: 200, body: JSON.stringify({ data: FIX }) });
    assert.equal(await ais().latest({ ...VESSEL, imo: null }, AT, 6 * 3_600_000), null);
    const down = httpAis({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 200 });
    assert.equal(await down.latest(VESSEL, AT, 6 * 3_600_000), null);
    assert.deepEqual(await down.track(VESSEL, new Date(0), AT), []);
  });

  test('track: valid fixes in the window, oldest first', async () => {
    const from = new Date('2026-03-01T00:00:00Z');
    answer = () => ({
      status: 200,
      body: JSON.stringify({
        data: [
          { ...FIX, at: '2026-03-01T02:00:00Z' },
          { ...FIX, at: '2026-03-01T01:00:00Z' },
          { ...FIX, lon: 'x' },
          { ...FIX, at: '2026-03-02T00:00:00Z' },
        ],
      }),
    });
    const track = await ais().track(VESSEL, from, AT);
    assert.deepEqual(
      track.map((f) => f.at.toISOString()),
      ['2026-03-01T01:00:00.000Z', '2026-03-01T02:00:00.000Z'],
    );
  });
});
