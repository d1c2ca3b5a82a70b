import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { type Operation, operationsOf, requestArb } from '../helpers/openapi-fuzz.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { seedShipment, VESSEL } from '../helpers/seed.ts';

// Fuzzing driven by the service's own OpenAPI document (GET /v2/openapi.json): a fixed seed and a
// fixed number of requests over every operation, with hostile parameters and bodies. No request
// may get a 5xx, and every 4xx must be a JSON:API error document whose status is the HTTP status.

const SEED = 20_261_124;
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

const ENV = {
  RATE_LIMIT_CREATE_PER_MINUTE: '1000000',
  RATE_LIMIT_DEFAULT_PER_MINUTE: '1000000',
  RATE_LIMIT_INFER_PER_MINUTE: '1000000',
  RATE_LIMIT_REFRESH_PER_MINUTE: '1000000',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '1000000',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWLIST: '127.0.0.1',
  WEBHOOK_CONNECT_TIMEOUT_MS: '200',
  WEBHOOK_TIMEOUT_MS: '300',
};

function problem(status: number, text: string): string | null {
  if (status >= 500) return `${status}`;
  if (status < 400) return null;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} with a body that is not JSON`;
  }
  if (!Array.isArray(body?.errors) || body.errors.length === 0) return `${status} without errors[]`;
  for (const e of body.errors) {
    if (e.status !== String(status)) return `${status} with an error of status ${JSON.stringify(e.status)}`;
    if (typeof e.title !== 'string' || typeof e.code !== 'string')
      return `${status} error without title or code`;
  }
  return null;
}

for (const engine of ENGINES) {
  describe(`OpenAPI-driven fuzzing [${engine}]`, () => {
    let t: TestApp;
    let ops: Operation[];
    // Real ids by the collection their path parameter follows (see idsFor in the fuzz helper).
    const ids: Record<string, string[]> = {};
    before(async () => {
      t = await startTestApp(engine, ENV);
      ops = operationsOf((await t.request('GET', '/v2/openapi.json')).body);
      // Real records, so generated ids sometimes hit something that exists.
      const tr = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'FUZZ00001', scac: 'MSCU' }),
      });
      const hook = await t.request('POST', '/v2/webhooks', {
        body: { data: { attributes: { url: 'http://127.0.0.1:9/hook' } } },
      });
      assert.equal(tr.status, 201, tr.text);
      assert.equal(hook.status, 201, hook.text);
      const seeded = await seedShipment(t.database.db, t.accountId);
      // Records of the issue-13 resources (parties, custom fields), so their ids can hit too.
      const post = async (path: string, body: unknown) => {
        const res = await t.request('POST', path, { body });
        assert.equal(res.status, 201, res.text);
        return res.body.data.id as string;
      };
      const partyId = await post('/v2/parties', { data: { attributes: { company_name: 'Fuzz Co' } } });
      const definitionId = await post('/v2/custom_field_definitions', {
        data: {
          attributes: { entity_type: 'Shipment', api_slug: 'fuzz', display_name: 'F', data_type: 'enum' },
        },
      });
      const optionId = await post(`/v2/custom_field_definitions/${definitionId}/options`, {
        data: { attributes: { label: 'A', value: 'a' } },
      });
      const valueId = await post(`/v2/shipments/${seeded.shipmentId}/custom_fields`, {
        data: { attributes: { api_slug: 'fuzz', value: 'a' } },
      });
      Object.assign(ids, {
        tracking_requests: [tr.body.data.id],
        webhooks: [hook.body.data.id],
        shipments: [seeded.shipmentId],
        containers: seeded.containerIds,
        transport_events: [...seeded.transportEventIds.values()].flat().slice(0, 2),
        vessels: [seeded.vesselId, VESSEL.imo],
        shipping_lines: ['MSCU'],
        ports: ['NLRTM'],
        terminals: ['NLRTM:DDE'],
        parties: [partyId],
        custom_field_definitions: [definitionId],
        options: [optionId],
        custom_fields: [valueId, 'fuzz'],
      });
    });
    after(() => t.close());

    // Its own time limit: about 20 s per engine on an idle machine, more under a loaded CI.
    test(`${RUNS} generated requests (seed ${SEED}): no 5xx, every 4xx is JSON:API`, {
      timeout: 300_000,
    }, async (ctx) => {
      assert.ok(ops.length >= 30, `only ${ops.length} operations in the document`);
      const requests = fc.sample(requestArb(ops, ids, t.key), { seed: SEED, numRuns: RUNS });
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      const covered = new Set<string>();
      for (const req of requests) {
        // Raw HTTP: fetch would refuse a GET with a body and rewrite malformed targets.
        const res = await rawRequest(t.url, {
          method: req.method,
          target: req.target,
          headers: req.headers,
          body: req.body,
        });
        const text = res.text;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status < 300) covered.add(req.label);
        const p = problem(res.status, text);
        if (p && failures.length < 10) {
          failures.push(
            `${p}: ${req.method} ${req.target.slice(0, 200)} ${req.body?.toString('utf8').slice(0, 300) ?? ''} -> ${text.slice(0, 300)}`,
          );
        }
      }
      ctx.diagnostic(`statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
      ctx.diagnostic(
        `2xx on ${covered.size} of ${ops.length} operations; not on ${ops
          .map((o) => `${o.method} ${o.path}`)
          .filter((l) => !covered.has(l))
          .join(', ')}`,
      );
      assert.deepEqual(failures, []);
      // The fuzzer reaches every operation and gets past validation on many of them.
      assert.equal(new Set(requests.map((r) => r.label)).size, ops.length);
      assert.ok(covered.size >= ops.length / 2, `only ${[...covered].join(', ')} answered 2xx`);
      assert.ok(
        [...statuses.keys()].some((s) => s >= 400),
        JSON.stringify([...statuses]),
      );
    });
  });
}
