// The statements one journey costs (issue 30 item 3): a tracking request's first answer from the
// sandbox line, stored as a whole journey, counted statement by statement as the engine sends them
// (a Kysely plugin sees every builder and raw query; the transaction adds BEGIN and COMMIT). Each
// statement is a round trip that holds a pooled connection the API's reads wait for, so the count
// is a budget: a change that adds one fails here and says which. The journey itself (status,
// containers, events, domain events, notifications) is checked too, so a cheaper path that stores
// less cannot pass.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin, QueryId, RootOperationNode } from 'kysely';
import pino from 'pino';
import { createSandboxAdapter } from '../../src/carriers/sandbox.ts';
import { claimDueRequests } from '../../src/engine/claims.ts';
import type { EngineDeps } from '../../src/engine/deps.ts';
import { processTrackingRequest } from '../../src/engine/request.ts';
import { LeaseLost } from '../../src/worker/leases.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { FAST_ENGINE_ENV } from '../helpers/engine.ts';

/** Statements of one first answer that stores a journey, BEGIN and COMMIT included. */
const BUDGET = 9;

/** Records the kind (and the first words of raw SQL) of every statement executed through it. */
function statementLog(): { plugin: KyselyPlugin; seen: string[] } {
  const pending = new Map<QueryId, string>();
  const seen: string[] = [];
  const describe = (node: RootOperationNode): string => {
    const n = node as { kind: string; sqlFragments?: readonly string[]; into?: unknown; table?: unknown };
    if (n.kind === 'RawNode')
      return `raw: ${(n.sqlFragments ?? []).join('?').replace(/\s+/g, ' ').trim().slice(0, 70)}`;
    const table = JSON.stringify(n.into ?? n.table ?? (node as { from?: unknown }).from ?? '').match(
      /"name":"(\w+)"/,
    )?.[1];
    return `${n.kind}${table ? ` ${table}` : ''}`;
  };
  return {
    seen,
    plugin: {
      transformQuery(args) {
        pending.set(args.queryId, describe(args.node));
        return args.node;
      },
      async transformResult(args) {
        seen.push(pending.get(args.queryId) ?? '?');
        pending.delete(args.queryId);
        return args.result;
      },
    },
  };
}

for (const engine of ENGINES) {
  describe(`statements per journey [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, {
        ...FAST_ENGINE_ENV,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWLIST: '127.0.0.1:9',
      });
      // A webhook and an alert rule that match, so their fan-out writes rows rather than nothing.
      const hook = await t.request('POST', '/v2/webhooks', {
        body: { data: { type: 'webhook', attributes: { url: 'http://127.0.0.1:9/hook', active: true } } },
      });
      assert.equal(hook.status, 201, hook.text);
    });
    after(() => t?.close());

    test(`a sandbox journey's first answer costs at most ${BUDGET} statements`, async (ctx) => {
      // A vessel the journey names is known already after the first journey of the process's life:
      // the steady state a busy worker is in. The first journey warms it.
      for (const [i, number] of ['SIMBL1C0000901', 'SIMBL1C0000902'].entries()) {
        const res = await t.request('POST', '/v2/tracking_requests', {
          body: trBody({ request_type: 'bill_of_lading', request_number: number, scac: 'TEST' }),
        });
        assert.equal(res.status, 201, res.text);
        const [claimed] = await claimDueRequests(t.database.db, 'statements-test', 1, 60_000);
        assert.ok(claimed, 'the request is due');
        const log = statementLog();
        const deps: EngineDeps = {
          db: t.database.db.withPlugin(log.plugin),
          carriers: new Map([['TEST', createSandboxAdapter()]]),
          config: t.config,
          log: pino({ level: 'silent' }),
          owner: 'statements-test',
        };
        await processTrackingRequest(deps, claimed);
        const tr = await t.request('GET', `/v2/tracking_requests/${res.body.data.id}`);
        assert.equal(tr.body.data.attributes.status, 'created');
        const shipmentId = tr.body.data.relationships.tracked_object.data.id;
        const events = await t.database.db
          .selectFrom('domain_events')
          .select('event')
          .where('shipment_id', '=', shipmentId)
          .execute();
        assert.ok(events.some((e) => e.event === 'tracking_request.succeeded'));
        const notifications = await t.database.db
          .selectFrom('webhook_notifications')
          .innerJoin('domain_events', 'domain_events.id', 'webhook_notifications.domain_event_id')
          .select('webhook_notifications.id')
          .where('domain_events.shipment_id', '=', shipmentId)
          .execute();
        assert.equal(notifications.length, events.length, 'one notification per event');
        const containers = await t.database.db
          .selectFrom('containers')
          .select('id')
          .where('shipment_id', '=', shipmentId)
          .execute();
        assert.equal(containers.length, 1);
        // The container's stored event list (an AFTER trigger of the events' insert) names them all.
        const stored = await t.database.db
          .selectFrom('transport_events')
          .select('id')
          .where('container_id', '=', containers[0]!.id)
          .execute();
        assert.ok(stored.length > 0);
        const container = await t.request('GET', `/v2/containers/${containers[0]!.id}`);
        assert.equal(container.status, 200, container.text);
        assert.deepEqual(
          container.body.data.relationships.transport_events.data.map((r: { id: string }) => r.id).sort(),
          stored.map((r) => r.id).sort(),
        );
        const total = log.seen.length + 2; // BEGIN, COMMIT
        ctx.diagnostic(`journey ${i + 1}: ${total} statements: BEGIN; ${log.seen.join('; ')}; COMMIT`);
        if (i === 1) assert.ok(total <= BUDGET, `${total} statements: ${log.seen.join('; ')}`);
      }
    });

    test('a lost lease writes nothing: no shipment, the request untouched', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'SIMBL1C0000903', scac: 'TEST' }),
      });
      assert.equal(res.status, 201, res.text);
      const [claimed] = await claimDueRequests(t.database.db, 'statements-test', 1, 60_000);
      assert.ok(claimed);
      // Another worker took the request over (our lease expired meanwhile).
      await t.database.db
        .updateTable('tracking_requests')
        .set({ lease_owner: 'another-worker' })
        .where('id', '=', claimed.id)
        .execute();
      const deps: EngineDeps = {
        db: t.database.db,
        carriers: new Map([['TEST', createSandboxAdapter()]]),
        config: t.config,
        log: pino({ level: 'silent' }),
        owner: 'statements-test',
      };
      await assert.rejects(processTrackingRequest(deps, claimed), LeaseLost);
      const tr = await t.database.db
        .selectFrom('tracking_requests')
        .select(['status', 'shipment_id', 'lease_owner'])
        .where('id', '=', claimed.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(tr, { status: 'pending', shipment_id: null, lease_owner: 'another-worker' });
      const shipments = await t.database.db
        .selectFrom('shipments')
        .select('id')
        .where('normalized_number', '=', 'SIMBL1C0000903')
        .execute();
      assert.equal(shipments.length, 0);
    });
  });
}
