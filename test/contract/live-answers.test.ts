import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { liveAnswers } from '../helpers/live-responses.ts';
import { startWorkerApp, type WorkerApp } from '../helpers/worker-app.ts';
import { compareResource, resourcesOf, TYPE_DIFFERENCES } from './live-compare.ts';
import { LIVE_OVER_DOCUMENT } from './reference-schema.ts';

// Issue 28: every resource of every recorded live answer (test/fixtures/live-responses/) against
// ours of the same type from a sandbox session (the worker tracks TEST-TR-SUCCEEDED): every
// attribute and relationship the live service sends, with a compatible JSON type.

type Obj = Record<string, unknown>;
const answers = liveAnswers();
/** The recorded JSON:API resources, by the file they are in. */
const recorded = answers.flatMap((a) => (a.ok ? resourcesOf(a.data).map((r) => ({ file: a.file, r })) : []));

describe('the live comparison itself', () => {
  const container = recorded.find((x) => x.r.type === 'container')!.r;

  test('a resource equal to the live one has no difference; one member fewer is found', () => {
    assert.deepEqual(compareResource(container, container), []);
    const reduced = structuredClone(container) as { attributes: Obj; relationships: Obj };
    delete reduced.attributes.ssl_lfd;
    delete reduced.relationships.pod_terminal;
    assert.deepEqual(compareResource(container, reduced), [
      'container.attributes.ssl_lfd: missing',
      'container.relationships.pod_terminal: missing',
    ]);
  });

  test('null matches any type; another type is a difference', () => {
    const attrs = container.attributes as Obj;
    const nulled = { ...container, attributes: { ...attrs, number: null } };
    assert.deepEqual(compareResource(container, nulled), []);
    const typed = {
      ...container,
      attributes: { ...attrs, number: 7, import_deadlines: { pickup_lfd_rail: 1 } },
    };
    assert.deepEqual(compareResource(container, typed), [
      'container.attributes.number: live string, ours number',
      'container.attributes.import_deadlines.pickup_lfd_terminal: missing',
      'container.attributes.import_deadlines.pickup_lfd_rail: live string, ours number',
      'container.attributes.import_deadlines.pickup_lfd_line: missing',
    ]);
  });

  test('the recorded answers cover the resource types the issue names', () => {
    const types = new Set(recorded.map((x) => x.r.type));
    for (const t of ['container', 'shipment', 'terminal', 'port', 'vessel', 'raw_event', 'search_result']) {
      assert.ok(types.has(t), t);
    }
    assert.ok(types.has('custom_field_definition') && types.has('party'));
  });

  test('docs/api-notes.md names every live-over-document difference and type exception', () => {
    const notes = readFileSync(new URL('../../docs/api-notes.md', import.meta.url), 'utf8');
    const section = notes.slice(notes.indexOf('## Live over document'));
    for (const d of LIVE_OVER_DOCUMENT) assert.ok(section.includes(d.name), d.name);
    for (const path of Object.keys(TYPE_DIFFERENCES)) assert.ok(section.includes(path), path);
  });
});

for (const engine of ENGINES) {
  describe(`our answers carry every member of the live answers [${engine}]`, () => {
    let app: WorkerApp;
    /** Our resources by type (entity_type for search results), from the answers gathered below. */
    const ours = new Map<string, Obj[]>();
    const keep = (body: unknown) => {
      for (const r of resourcesOf(body)) {
        const key =
          r.type === 'search_result' ? `search_result:${(r.attributes as Obj).entity_type}` : String(r.type);
        ours.set(key, [...(ours.get(key) ?? []), r]);
      }
    };

    before(
      async () => {
        app = await startWorkerApp(engine);
        const { t, worker } = app;
        const get = async (path: string) => {
          const res = await t.request('GET', path);
          assert.equal(res.status, 200, `${path}: ${res.text}`);
          keep(res.body);
          return res.body;
        };
        const post = async (path: string, body: unknown) => {
          const res = await t.request('POST', path, { body });
          assert.equal(res.status, 201, `${path}: ${res.text}`);
          return res.body.data.id as string;
        };
        const tr = await post(
          '/v2/tracking_requests',
          trBody({ request_type: 'bill_of_lading', request_number: 'TEST-TR-SUCCEEDED', scac: 'TEST' }),
        );
        const pending = 'LIVE0000001';
        await post(
          '/v2/tracking_requests',
          trBody({ request_type: 'bill_of_lading', request_number: pending, scac: 'MSCU' }),
        );
        worker.wake();
        const shipmentId = await eventually(async () => {
          const r = await t.request('GET', `/v2/tracking_requests/${tr}`);
          return r.body.data.relationships.tracked_object.data?.id as string | undefined;
        });
        const shipment = await get(
          `/v2/shipments/${shipmentId}?include=containers,pod_terminal,port_of_discharge`,
        );
        const containerId = shipment.data.relationships.containers.data[0].id as string;
        const container = await get(
          `/v2/containers/${containerId}?include=shipment,pod_terminal,transport_events`,
        );
        const raw = await get(`/v2/containers/${containerId}/raw_events`);
        const vesselId = raw.data.map((r: any) => r.relationships.vessel.data?.id).find(Boolean);
        if (vesselId) await get(`/v2/vessels/${vesselId}`);
        const pod = shipment.data.attributes.port_of_discharge_locode as string;
        await get(`/v2/ports/${pod}`);
        const terminalId = container.data.relationships.pod_terminal.data?.id;
        await get(terminalId ? `/v2/terminals/${terminalId}` : '/v2/terminals/NLRTM:DDE');
        const definition = await post('/v2/custom_field_definitions', {
          data: {
            type: 'custom_field_definition',
            attributes: { entity_type: 'Shipment', api_slug: 'po', display_name: 'PO', data_type: 'enum' },
          },
        });
        await post(`/v2/custom_field_definitions/${definition}/options`, {
          data: { type: 'custom_field_option', attributes: { label: 'A', value: 'a' } },
        });
        await get(`/v2/custom_field_definitions/${definition}`);
        await get('/v2/custom_field_definitions');
        const party = await post('/v2/parties', {
          data: { type: 'party', attributes: { company_name: 'Live Co' } },
        });
        await get(`/v2/parties/${party}`);
        await get(`/v2/search?query=${shipment.data.attributes.bill_of_lading_number}`);
        await get(`/v2/search?query=${container.data.attributes.number}`);
        await get(`/v2/search?query=${pending}`);
        // Embedded PGlite on a shared machine takes most of this starting up; the calls are quick.
      },
      { timeout: 300_000 },
    );
    after(() => app.close());

    test('every recorded resource: each attribute and relationship present, of a compatible type', () => {
      const problems: string[] = [];
      let compared = 0;
      for (const { file, r } of recorded) {
        const key =
          r.type === 'search_result' ? `search_result:${(r.attributes as Obj).entity_type}` : String(r.type);
        const mine = ours.get(key);
        if (!mine) {
          problems.push(`${file}: we answered no ${key}`);
          continue;
        }
        // Ours of the type, each compared: a member may be null on one resource and typed on another.
        for (const o of mine) for (const p of compareResource(r, o)) problems.push(`${file}: ${p}`);
        compared++;
      }
      assert.deepEqual([...new Set(problems)], []);
      assert.ok(compared >= 25, `only ${compared} resources compared`);
    });
  });
}
