import assert from 'node:assert/strict';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import { parseCarriersConfig } from '../../src/config/carriers.ts';
import { parseTerminalsConfig } from '../../src/config/terminals.ts';
import type { Engine } from '../../src/engine/start.ts';
import { buildTerminalDirectory } from '../../src/terminals/registry.ts';
import type { TestApp } from './app.ts';
import { trBody } from './app.ts';
import { startTestEngine } from './engine.ts';
import { startReceiver } from './receiver.ts';
import { spawnSimulator } from './simulator.ts';

// The simulator process as one carrier (DCSA adapter, SCAC MAEU) plus its terminal feed
// (adapter sim-terminal, every facility), a worker connected to both, and a webhook receiver
// subscribed to every event: what the terminal and coverage tests track scenarios through.

export const TERMINAL_ENV: Record<string, string> = {
  TERMINAL_CHECK_INTERVAL_MS: '40',
  WEBHOOK_RETRY_SCHEDULE: Array(12).fill('20ms').join(','),
};

export async function startSimulatedWorld(t: TestApp) {
  const sim = await spawnSimulator();
  const carriers = buildCarrierRegistry(
    parseCarriersConfig(
      JSON.stringify([
        {
          scac: 'MAEU',
          adapter: 'dcsa-tnt-v2',
          base_url: sim.url,
          auth: { type: 'headers', headers: { 'x-api-key': 'unused' } },
          requests_per_minute: 100000,
          number_types: ['bill_of_lading', 'booking_number', 'container'],
          timeout_ms: 2000,
        },
      ]),
      { format: 'json' },
    ),
  );
  const terminals = buildTerminalDirectory(
    parseTerminalsConfig(
      JSON.stringify([
        { adapter: 'sim-terminal', base_url: sim.url, facilities: '*', requests_per_minute: 100000 },
      ]),
      { format: 'json' },
    ),
  );
  const worker: Engine = startTestEngine(t.database, t.config, carriers, { terminals });
  const rx = await startReceiver();
  const acct = await t.newAccount('terminal-watcher');
  const hook = await t.request('POST', '/v2/webhooks', {
    key: acct.key,
    body: { data: { attributes: { url: rx.url('/all') } } },
  });
  assert.equal(hook.status, 201, hook.text);

  async function track(number: string, type = 'bill_of_lading') {
    const res = await t.request('POST', '/v2/tracking_requests', {
      key: acct.key,
      body: trBody({ request_type: type, request_number: number, scac: 'MAEU' }),
    });
    assert.equal(res.status, 201, res.text);
    worker.wake();
    return res.body.data.id as string;
  }
  /** Webhook notifications received so far, as [event, container id | null, body]. */
  const delivered = () =>
    rx.at('/all').map((r) => {
      const ref = r.json.data.relationships.reference_object.data;
      const included = r.json.included as any[];
      const container = included.find((x) => x.type === 'container');
      const object = included.find((x) => x.id === ref.id && x.type === ref.type);
      return {
        event: r.json.data.attributes.event as string,
        container: container?.id ?? null,
        object,
        body: r.json,
      };
    });
  const containerOf = async (trId: string) => {
    const tr = await t.request('GET', `/v2/tracking_requests/${trId}`, { key: acct.key });
    const shipmentId = tr.body.data.relationships.tracked_object?.data?.id;
    if (!shipmentId) return null;
    const s = await t.request('GET', `/v2/shipments/${shipmentId}?include=containers`, { key: acct.key });
    const c = (s.body.included ?? []).find((r: any) => r.type === 'container');
    return c ?? null;
  };
  return {
    sim,
    worker,
    acct,
    track,
    delivered,
    containerOf,
    async close() {
      await worker.stop();
      await rx.close();
      await sim.close();
    },
  };
}
