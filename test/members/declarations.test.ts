import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { TObject } from 'typebox';
import { buildApp } from '../../src/app.ts';
import type { Declaration } from '../../src/members/kit.ts';
import { schemaOf } from '../../src/members/kit.ts';
import { VESSEL } from '../../src/reference/vessel-members.ts';
import { TRANSPORT_EVENT } from '../../src/shipments/containers/event-members.ts';
import { CONTAINER } from '../../src/shipments/containers/members.ts';
import { SHIPMENT } from '../../src/shipments/members.ts';
import { TRACKING_REQUEST } from '../../src/tracking-requests/members.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

// Every declared member (src/members/kit.ts) is in the published schema, in the serializer's
// output (the JavaScript path) and in the document built in SQL, in the declared order, and
// nothing else is. test/api/sql-bodies.test.ts compares the two paths' values; this names the
// member that is missing. (The stored pieces against the database: test/api/stored-json.test.ts.)

type AnyDeclaration = Declaration<never, never>;
const DECLARATIONS: AnyDeclaration[] = [SHIPMENT, CONTAINER, TRANSPORT_EVENT, VESSEL, TRACKING_REQUEST];
const names = (ms: AnyDeclaration['attributes'] | null) => (ms ?? []).map((m) => m.name);

interface Doc {
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, unknown>;
}

function assertMembers(d: AnyDeclaration, resource: Doc, where: string) {
  assert.equal(resource.type, d.type);
  assert.deepEqual(Object.keys(resource.attributes), names(d.attributes), `${d.type} attributes (${where})`);
  assert.deepEqual(
    Object.keys(resource.relationships ?? {}),
    names(d.relationships),
    `${d.type} relationships (${where})`,
  );
}

test('the published schema of each resource has its declared members, in order', () => {
  for (const d of DECLARATIONS) {
    const schema = schemaOf(d) as TObject;
    const props = schema.properties as Record<string, TObject>;
    assert.deepEqual(Object.keys(props.attributes!.properties), names(d.attributes), d.type);
    if (d.relationships)
      assert.deepEqual(Object.keys(props.relationships!.properties), names(d.relationships));
    else assert.equal(props.relationships, undefined);
  }
});

test('two members of one name are refused at declaration', async () => {
  const { declare, columns } = await import('../../src/members/kit.ts');
  const c = columns<{ id: string; a: string }>();
  assert.throws(
    () =>
      declare({
        type: 'x',
        table: 'x',
        collection: 'x',
        attributes: [c.text('a'), c.text('a')],
        relationships: null,
      }),
    /member a declared twice/,
  );
});

for (const engine of ENGINES) {
  describe(`every declared member is served by both paths [${engine}]`, () => {
    let t: TestApp;
    let js: FastifyInstance;
    let jsUrl: string;
    let shipmentId: string;
    let containerId: string;

    before(async () => {
      t = await startTestApp(engine, { RESPONSE_CACHE_MB: '0' });
      js = await buildApp({ config: t.config, database: t.database, baseUrl: '', sqlBodies: false });
      await js.listen({ port: 0, host: '127.0.0.1' });
      const addr = js.server.address();
      jsUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
      const seeded = await seedShipment(t.database.db, t.accountId);
      shipmentId = seeded.shipmentId;
      containerId = seeded.containerIds[0]!;
    });
    after(async () => {
      await js.close();
      await t.close();
    });

    const both = async (path: string): Promise<Array<[string, { data: Doc | Doc[]; included?: Doc[] }]>> => {
      const sqlDoc = await t.request('GET', path);
      const jsDoc = await fetch(`${jsUrl}${path}`, { headers: { authorization: `Token ${t.key}` } });
      assert.equal(sqlDoc.status, 200, path);
      assert.equal(jsDoc.status, 200, path);
      return [
        ['SQL', sqlDoc.body as never],
        ['JavaScript', (await jsDoc.json()) as never],
      ];
    };

    test('shipment and its containers', async () => {
      for (const [where, doc] of await both(`/v2/shipments/${shipmentId}?include=containers`)) {
        assertMembers(SHIPMENT, doc.data as Doc, where);
        const boxes = (doc.included ?? []).filter((r) => r.type === 'container');
        assert.ok(boxes.length > 0);
        for (const b of boxes) assertMembers(CONTAINER, b, `${where}, included`);
      }
      for (const [where, doc] of await both(`/v2/containers/${containerId}`))
        assertMembers(CONTAINER, doc.data as Doc, where);
    });

    test('transport events', async () => {
      for (const [where, doc] of await both(`/v2/containers/${containerId}/transport_events`)) {
        const events = doc.data as Doc[];
        assert.ok(events.length > 0);
        for (const e of events) assertMembers(TRANSPORT_EVENT, e, where);
      }
    });

    test('tracking requests', async () => {
      for (const [where, doc] of await both('/v2/tracking_requests')) {
        const requests = doc.data as Doc[];
        assert.ok(requests.length > 0);
        for (const r of requests) assertMembers(TRACKING_REQUEST, r, where);
      }
    });
  });
}
