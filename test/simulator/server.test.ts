import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DcsaEvent } from '../../sim/events.ts';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../sim/server.ts';

const EPOCH = '2026-03-01T00:00:00Z';
const DAY = 86_400_000;

const started: RunningSimulator[] = [];
async function sim(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const s = await startSimulator({ epoch: EPOCH, speed: 0, ...options });
  started.push(s);
  return s;
}
after(() => Promise.all(started.map((s) => s.close())));

async function events(s: RunningSimulator, query: string, init: RequestInit = {}) {
  const res = await fetch(`${s.eventsUrl}?${query}`, init);
  const body = await res.json();
  return { res, body: body as DcsaEvent[] & Record<string, unknown> };
}

async function control(s: RunningSimulator, path: string, body?: unknown) {
  const res = await fetch(`${s.url}/control/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function assertDcsaError(body: Record<string, unknown>, status: number) {
  assert.equal(body.statusCode, status);
  assert.equal(body.httpMethod, 'GET');
  assert.equal(typeof body.requestUri, 'string');
  assert.equal(typeof body.statusCodeText, 'string');
  assert.ok(!Number.isNaN(Date.parse(body.errorDateTime as string)));
  const errors = body.errors as { reason: string; message: string }[];
  assert.ok(errors.length > 0 && errors.every((e) => e.reason && e.message));
}

/** Walk every page following Next-Page the way a client does (CARRIER-NOTES §1 client rule). */
async function walk(s: RunningSimulator, query: string) {
  const all: DcsaEvent[] = [];
  let url = `${s.eventsUrl}?${query}`;
  let pages = 0;
  for (;;) {
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('current-page'));
    const page = (await res.json()) as DcsaEvent[];
    all.push(...page);
    pages++;
    const next = res.headers.get('next-page');
    if (!next) break;
    assert.equal(page.length, 2);
    url = /^(http|\/)/.test(next) ? next : `${s.eventsUrl}?${query}&cursor=${encodeURIComponent(next)}`;
  }
  return { all, pages };
}

describe('carrier simulator over HTTP', () => {
  let s: RunningSimulator;
  before(async () => {
    s = await sim();
    await control(s, 'advance', { days: 60 }); // every default journey is complete by now
  });

  it('answers GET /v2/events with a JSON array and DCSA headers', async () => {
    const { res, body } = await events(s, 'transportDocumentReference=SIMBL1C1');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('api-version'), '2.2.0');
    assert.match(res.headers.get('content-type')!, /application\/json/);
    assert.ok(res.headers.get('current-page'));
    assert.ok(Array.isArray(body) && body.length > 20);
  });

  it('matches B/L, booking and container references as DCSA describes', async () => {
    const bl = (await events(s, 'transportDocumentReference=SIMBL3C5')).body;
    const bkg = (await events(s, 'carrierBookingReference=BKGBL3C5')).body;
    assert.ok(
      bl.every(
        (e) =>
          e.documentID === 'SIMBL3C5' ||
          e.documentReferences?.some((r) => r.documentReferenceValue === 'SIMBL3C5'),
      ),
    );
    // Transport and equipment events are shared; shipment events differ by document type.
    assert.deepEqual(
      bl.filter((e) => e.eventType !== 'SHIPMENT').map((e) => e.eventID),
      bkg.filter((e) => e.eventType !== 'SHIPMENT').map((e) => e.eventID),
    );
    assert.deepEqual(
      bkg.filter((e) => e.eventType === 'SHIPMENT').map((e) => e.documentTypeCode),
      ['BKG'],
    );
    assert.ok(bl.filter((e) => e.eventType === 'SHIPMENT').every((e) => e.documentTypeCode === 'TRD'));
    // The B/L number is not this shipment's booking reference and vice versa: as a booking,
    // SIMBL3C5 is another (booking-first) shipment, and BKGBL3C5 is no B/L at all.
    const other = (await events(s, 'carrierBookingReference=SIMBL3C5')).body;
    const blIds = new Set(bl.map((e) => e.eventID));
    assert.ok(other.length > 0 && other.every((e) => !blIds.has(e.eventID)));
    assert.deepEqual((await events(s, 'transportDocumentReference=BKGBL3C5')).body, []);

    const box = bl.find((e) => e.equipmentReference)!.equipmentReference!;
    const own = (await events(s, `equipmentReference=${box}`)).body;
    assert.ok(own.length > 0);
    assert.ok(
      own.every((e) => e.equipmentReference === box || e.references?.some((r) => r.referenceValue === box)),
    );
    assert.ok(own.some((e) => e.eventType === 'TRANSPORT'));
    // Filters are ANDed: B/L plus container keeps only that container's equipment events.
    const both = (
      await events(s, `transportDocumentReference=SIMBL3C5&equipmentReference=${box}&eventType=EQUIPMENT`)
    ).body;
    assert.equal(both.length, 6);
    // Values of one filter are ORed.
    const two = (await events(s, 'transportDocumentReference=SIMBL1C1,SIMTS1&eventType=TRANSPORT')).body;
    const refs = new Set(
      two.map(
        (e) => e.documentReferences!.find((r) => r.documentReferenceType === 'TRD')!.documentReferenceValue,
      ),
    );
    assert.deepEqual(refs, new Set(['SIMBL1C1', 'SIMTS1']));
  });

  it('filters by event type, codes, transport call fields and eventCreatedDateTime', async () => {
    const q = 'transportDocumentReference=SIMTS1';
    const all = (await events(s, q)).body;
    const transport = (await events(s, `${q}&eventType=TRANSPORT&transportEventTypeCode=ARRI`)).body;
    assert.ok(transport.length > 0 && transport.every((e) => e.transportEventTypeCode === 'ARRI'));
    const loads = (await events(s, `${q}&equipmentEventTypeCode=LOAD,DISC`)).body;
    assert.deepEqual(new Set(loads.map((e) => e.equipmentEventTypeCode)), new Set(['LOAD', 'DISC']));
    const issued = (
      await events(s, `${q}&eventType=SHIPMENT&shipmentEventTypeCode=ISSU&documentTypeCode=TRD`)
    ).body;
    assert.equal(issued.length, 1);
    const sgsin = (await events(s, `${q}&UNLocationCode=SGSIN`)).body;
    assert.ok(sgsin.length > 0 && sgsin.every((e) => e.transportCall?.UNLocationCode === 'SGSIN'));
    const vessel = all.find((e) => e.transportCall?.vessel)!.transportCall!.vessel!.vesselIMONumber;
    const onVessel = (await events(s, `${q}&vesselIMONumber=${vessel}`)).body;
    assert.ok(
      onVessel.length > 0 && onVessel.every((e) => e.transportCall?.vessel?.vesselIMONumber === vessel),
    );

    const mid = all[Math.floor(all.length / 2)]!.eventCreatedDateTime;
    const local = new Date(Date.parse(mid) + 3_600_000).toISOString().slice(0, 19) + '+01:00'; // same instant, +01:00
    const gte = (await events(s, `${q}&eventCreatedDateTime:gte=${encodeURIComponent(local)}`)).body;
    assert.ok(gte.length > 0 && gte.every((e) => Date.parse(e.eventCreatedDateTime) >= Date.parse(mid)));
    const lt = (await events(s, `${q}&eventCreatedDateTime:lt=${local}`)).body; // unencoded '+' arrives as a space
    assert.equal(gte.length + lt.length, all.length);
    const eq = (await events(s, `${q}&eventCreatedDateTime:eq=${encodeURIComponent(mid)}`)).body;
    assert.ok(eq.length >= 1 && eq.every((e) => e.eventCreatedDateTime === mid));
    const sorted = (await events(s, `${q}&sort=eventDateTime:DESC`)).body;
    const times = sorted.map((e) => Date.parse(e.eventDateTime));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
  });

  it('walks every page with limit=2 using cursors', async () => {
    const q = 'transportDocumentReference=SIMRAIL3';
    const full = (await events(s, q)).body;
    const { all, pages } = await walk(s, `${q}&limit=2`);
    assert.equal(pages, Math.ceil(full.length / 2));
    assert.deepEqual(
      all.map((e) => e.eventID),
      full.map((e) => e.eventID),
    );
    const first = await fetch(`${s.eventsUrl}?${q}&limit=2`);
    assert.equal(first.headers.get('next-page'), first.headers.get('next-page-cursor'));
    assert.match(first.headers.get('next-page')!, /^[A-Za-z0-9_-]+$/);
    assert.equal(first.headers.get('prev-page'), null);
    // A cursor sent alone (without the filters) continues the same walk.
    const second = await fetch(`${s.eventsUrl}?cursor=${first.headers.get('next-page')}`);
    assert.deepEqual(
      ((await second.json()) as DcsaEvent[]).map((e) => e.eventID),
      full.slice(2, 4).map((e) => e.eventID),
    );
    assert.ok(second.headers.get('prev-page'));
  });

  it('walks every page with Next-Page as a full URL (server option or query flag)', async () => {
    const urls = await sim({ pageLinks: 'url' });
    await control(urls, 'advance', { days: 60 });
    const q = 'carrierBookingReference=BKGTS9';
    const full = (await events(urls, q)).body;
    const viaOption = await walk(urls, `${q}&limit=2`);
    assert.deepEqual(
      viaOption.all.map((e) => e.eventID),
      full.map((e) => e.eventID),
    );
    const first = await fetch(`${urls.eventsUrl}?${q}&limit=2`);
    assert.ok(first.headers.get('next-page')!.startsWith(`${urls.eventsUrl}?cursor=`));
    assert.match(first.headers.get('next-page-cursor')!, /^[A-Za-z0-9_-]+$/);

    const viaFlag = await walk(s, 'carrierBookingReference=BKGTS9&limit=2&simPageLinks=url');
    assert.deepEqual(
      viaFlag.all.map((e) => e.eventID),
      full.map((e) => e.eventID),
    );
  });

  it('answers 400 with a DCSA error body for invalid queries', async () => {
    for (const q of [
      'eventType=CARGO&transportDocumentReference=SIMTS1',
      'transportEventTypeCode=LAND&transportDocumentReference=SIMTS1',
      'equipmentEventTypeCode=XXXX&transportDocumentReference=SIMTS1',
      'eventType=TRANSPORT&shipmentEventTypeCode=DRFT&transportDocumentReference=SIMTS1',
      'eventType=TRANSPORT',
      'transportDocumentReference=SIMTS1&limit=0',
      'transportDocumentReference=SIMTS1&eventCreatedDateTime:gte=yesterday',
      'transportDocumentReference=SIMTS1&sort=vesselName:ASC',
      'transportDocumentReference=SIMTS1&cursor=%%%',
      'transportDocumentReference=TEST-TR-FAILED',
    ]) {
      const { res, body } = await events(s, q);
      assert.equal(res.status, 400, q);
      assert.equal(res.headers.get('api-version'), '2.2.0');
      assertDcsaError(body, 400);
    }
  });

  it('answers unknown references with 200 [] by default and 404 when configured', async () => {
    const empty = await events(s, 'transportDocumentReference=MAEU123456789');
    assert.equal(empty.res.status, 200);
    assert.deepEqual(empty.body, []);
    assert.deepEqual((await events(s, 'equipmentReference=SIMU0000002')).body, []);
    const strict = await sim({ notFoundStatus: 404 });
    const missing = await events(strict, 'transportDocumentReference=SIMNONE1');
    assert.equal(missing.res.status, 404);
    assertDcsaError(missing.body, 404);
    // A known reference whose filters exclude everything is still 200 [].
    const none = await events(
      strict,
      'transportDocumentReference=SIMTS1&eventType=EQUIPMENT&equipmentEventTypeCode=STUF',
    );
    assert.equal(none.res.status, 200);
    assert.deepEqual(none.body, []);
  });

  it('reveals later events as the simulated clock advances; the manifest-delayed number flips to found', async () => {
    const fresh = await sim();
    const clock = await control(fresh, 'clock');
    assert.equal(clock.body.now, new Date(EPOCH).toISOString());
    assert.equal(clock.body.speed, 0);
    const before = (await events(fresh, 'transportDocumentReference=SIMTS1')).body;
    assert.ok(!before.some((e) => e.equipmentEventTypeCode === 'LOAD'));
    assert.deepEqual((await events(fresh, 'transportDocumentReference=SIMLATE1')).body, []);

    const advanced = await control(fresh, 'advance', { days: 3, hours: 1 });
    assert.equal(advanced.body.now, new Date(Date.parse(EPOCH) + 3 * DAY + 3_600_000).toISOString());
    const later = (await events(fresh, 'transportDocumentReference=SIMTS1')).body;
    assert.ok(later.length > before.length);
    assert.deepEqual(later.slice(0, before.length), before, 'published events never change');
    assert.ok(later.some((e) => e.equipmentEventTypeCode === 'LOAD'));
    assert.ok((await events(fresh, 'transportDocumentReference=SIMLATE1')).body.length > 0);

    assert.equal((await control(fresh, 'advance', { days: -1 })).status, 400);
    assert.equal((await control(fresh, 'advance', {})).status, 400);
    const fast = await control(fresh, 'speed', { speed: 86_400 });
    assert.equal(fast.body.speed, 86_400);
    await new Promise((r) => setTimeout(r, 50));
    const moved = await control(fresh, 'clock');
    assert.ok(Date.parse(moved.body.now as string) > Date.parse(advanced.body.now as string) + 3_600_000);
  });

  it('SIMFLAKY fails by request count: hang, 503, 429 + Retry-After, malformed JSON, 500, then answers', async () => {
    const flaky = await sim({ flakyHangMs: 2_000 });
    const url = `${flaky.eventsUrl}?transportDocumentReference=SIMFLAKY1`;
    const t0 = performance.now();
    await assert.rejects(fetch(url, { signal: AbortSignal.timeout(300) }), /TimeoutError|aborted/i);
    assert.ok(performance.now() - t0 < 1_500);
    const r2 = await fetch(url);
    assert.equal(r2.status, 503);
    assertDcsaError((await r2.json()) as Record<string, unknown>, 503);
    const r3 = await fetch(url);
    assert.equal(r3.status, 429);
    assert.equal(r3.headers.get('retry-after'), '2');
    await r3.body?.cancel();
    const r4 = await fetch(url);
    assert.equal(r4.status, 200);
    await assert.rejects(r4.json(), SyntaxError);
    const r5 = await fetch(url);
    assert.equal(r5.status, 500);
    await r5.body?.cancel();
    const r6 = await fetch(url);
    assert.equal(r6.status, 200);
    assert.ok(((await r6.json()) as unknown[]).length > 0);
    const stats = flaky.stats();
    assert.equal(stats.byNumber['SIMFLAKY1'], 6);
    // The container of a flaky B/L is just as flaky (its own count).
    const c = await fetch(`${flaky.eventsUrl}?equipmentReference=SIMU9000003`, {
      signal: AbortSignal.timeout(200),
    }).catch((e: Error) => e);
    assert.ok(c instanceof Error);
  });

  it('OAuth2 client credentials: token endpoint and bearer check', async () => {
    const o = await sim({ oauth: { clientId: 'client-1', clientSecret: 's3cret', expiresInSeconds: 1 } });
    const token = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${o.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    const unauth = await events(o, 'transportDocumentReference=SIMTS1');
    assert.equal(unauth.res.status, 401);
    assertDcsaError(unauth.body, 401);
    assert.equal(
      (await token('grant_type=client_credentials&client_id=client-1&client_secret=nope')).status,
      401,
    );
    assert.equal((await token('grant_type=password&client_id=client-1&client_secret=s3cret')).status, 400);
    const ok = await token('grant_type=client_credentials&client_id=client-1&client_secret=s3cret');
    assert.equal(ok.status, 200);
    const t = (await ok.json()) as { access_token: string; token_type: string; expires_in: number };
    assert.equal(t.token_type, 'Bearer');
    assert.equal(t.expires_in, 1);
    const authed = await events(o, 'transportDocumentReference=SIMTS1', {
      headers: { authorization: `Bearer ${t.access_token}` },
    });
    assert.equal(authed.res.status, 200);
    assert.equal(
      (await events(o, 'transportDocumentReference=SIMTS1', { headers: { authorization: 'Bearer forged' } }))
        .res.status,
      401,
    );
    const basic = await token('grant_type=client_credentials', {
      authorization: `Basic ${Buffer.from('client-1:s3cret').toString('base64')}`,
    });
    assert.equal(basic.status, 200);
    assert.equal(o.stats().tokensIssued, 2);
    // A second's lifetime: the authorised read above must land inside it even on a loaded machine.
    await new Promise((r) => setTimeout(r, 1050));
    const expired = await events(o, 'transportDocumentReference=SIMTS1', {
      headers: { authorization: `Bearer ${t.access_token}` },
    });
    assert.equal(expired.res.status, 401);
  });

  it('requires configured headers, and mounts the API under a base path', async () => {
    const h = await sim({ requireHeaders: { 'X-API-Key': 'secret' }, basePath: '/hlag/external' });
    assert.equal(h.url, `${h.origin}/hlag/external`);
    assert.equal(h.eventsUrl, `${h.url}/v2/events`);
    assert.equal((await control(h, 'clock')).status, 200, 'control endpoints under the base path too');
    assert.equal((await fetch(`${h.origin}/control/clock`)).status, 200);
    assert.equal((await events(h, 'transportDocumentReference=SIMTS1')).res.status, 401);
    assert.equal(
      (await events(h, 'transportDocumentReference=SIMTS1', { headers: { 'x-api-key': 'wrong' } })).res
        .status,
      401,
    );
    assert.equal(
      (await events(h, 'transportDocumentReference=SIMTS1', { headers: { 'x-api-key': 'secret' } })).res
        .status,
      200,
    );
    const plain = await fetch(`${h.origin}/v2/events?transportDocumentReference=SIMTS1`);
    assert.equal(plain.status, 404);
    await plain.body?.cancel();
  });

  it('serves the sandbox test numbers', async () => {
    const bl = (await events(s, 'transportDocumentReference=TEST-TR-SUCCEEDED')).body;
    assert.ok(bl.some((e) => e.equipmentEventTypeCode === 'GTIN' && e.emptyIndicatorCode === 'EMPTY'));
    const boxes = new Set(bl.flatMap((e) => (e.equipmentReference ? [e.equipmentReference] : [])));
    assert.equal(boxes.size, 2);
    // Its B/L and booking share one value; shipment events still match by document type.
    assert.ok(bl.filter((e) => e.eventType === 'SHIPMENT').every((e) => e.documentTypeCode === 'TRD'));
    const bkg = (await events(s, 'carrierBookingReference=TEST-TR-SUCCEEDED&eventType=SHIPMENT')).body;
    assert.deepEqual(
      bkg.map((e) => `${e.shipmentEventTypeCode}/${e.documentTypeCode}`),
      ['CONF/BKG'],
    );
    const asContainer = (await events(s, 'equipmentReference=TEST-TR-SUCCEEDED')).body;
    const own = new Set(asContainer.flatMap((e) => (e.equipmentReference ? [e.equipmentReference] : [])));
    assert.equal(own.size, 1);
  });

  it('counts requests per path and number; DELETE resets', async () => {
    const c = await sim();
    await events(c, 'transportDocumentReference=SIMTS1');
    await events(c, 'transportDocumentReference=simts1');
    await events(c, 'equipmentReference=SIMU2000001');
    const stats = (await control(c, 'stats')).body as {
      byNumber: Record<string, number>;
      byPath: Record<string, number>;
      total: number;
    };
    assert.equal(stats.byNumber['SIMTS1'], 2);
    assert.equal(stats.byNumber['SIMU2000001'], 1);
    assert.equal(stats.byPath['/v2/events'], 3);
    const reset = await fetch(`${c.url}/control/stats`, { method: 'DELETE' });
    assert.deepEqual(((await reset.json()) as { byNumber: object }).byNumber, {});
    const table = await control(c, 'scenarios');
    assert.ok(Array.isArray(table.body) && (table.body as unknown[]).length >= 14);
  });

  it('keeps up with many concurrent requests', async () => {
    const t0 = performance.now();
    const numbers = Array.from({ length: 500 }, (_, i) => `SIMBL${(i % 3) + 1}C${i % 50}`);
    const statuses = await Promise.all(
      numbers.map(async (n) => {
        const res = await fetch(`${s.eventsUrl}?transportDocumentReference=${n}`);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.ok(statuses.every((x) => x === 200));
    const ms = performance.now() - t0;
    assert.ok(ms < 5_000, `500 requests took ${ms.toFixed(0)} ms`);
  });
});
