import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lookupNumber } from '../../sim/library.ts';
import { CarrierConfigError } from '../../src/config/carriers.ts';
import { parseTerminalsConfig } from '../../src/config/terminals.ts';
import { diffTerminal, type TerminalFacts } from '../../src/engine/terminal-diff.ts';
import { buildTerminalDirectory } from '../../src/terminals/registry.ts';
import { createSandboxTerminal } from '../../src/terminals/sandbox.ts';
import { spawnSimulator } from '../helpers/simulator.ts';

// TERMINALS_CONFIG parsing (shared field checks with CARRIERS_CONFIG), the terminal directory,
// the sim-terminal adapter against the simulator process (auth, rate budget, 404, answers), the
// sandbox feed, and the terminal diff's idempotence.

const DAY = 86_400_000;

describe('TERMINALS_CONFIG', () => {
  it('reads YAML with environment secrets, facility lists and "*"', () => {
    const entries = parseTerminalsConfig(
      `
- adapter: sim-terminal
  base_url: https://terminals.example.com
  auth: { type: headers, headers: { x-api-key: "\${TERMINAL_KEY}" } }
  facilities: [lbct, ITS]
  requests_per_minute: 30
- adapter: sim-terminal
  base_url: http://127.0.0.1:4000
  facilities: "*"
  requests_per_minute: 600
  timeout_ms: 2000
`,
      { env: { TERMINAL_KEY: 'k1' } },
    );
    assert.deepEqual(entries[0], {
      adapter: 'sim-terminal',
      base_url: 'https://terminals.example.com',
      auth: { type: 'headers', headers: { 'x-api-key': 'k1' } },
      facilities: ['LBCT', 'ITS'],
      requests_per_minute: 30,
    });
    assert.equal(entries[1]!.facilities, '*');
    assert.equal(entries[1]!.timeout_ms, 2000);
    assert.equal(entries[1]!.auth, undefined);
    const dir = buildTerminalDirectory(entries);
    assert.equal(dir.facilities, '*');
    assert.equal(dir.forFacility('lbct')?.name, 'sim-terminal');
    assert.ok(dir.sandbox);
    assert.equal(buildTerminalDirectory(entries, { sandbox: false }).sandbox, undefined);
  });

  it('reports every problem at once, each naming the entry and field', () => {
    const err = (() => {
      try {
        parseTerminalsConfig(
          JSON.stringify([
            { adapter: 'navis', base_url: 'ftp://x', facilities: [], requests_per_minute: 0, extra: 1 },
            {
              adapter: 'sim-terminal',
              base_url: 'http://x',
              facilities: ['LBCT', 'LBCT'],
              requests_per_minute: 1,
              auth: { type: 'basic' },
            },
          ]),
          { format: 'json', source: 'TERMINALS_CONFIG t.json' },
        );
      } catch (e) {
        return e as CarrierConfigError;
      }
      assert.fail('no error');
    })();
    assert.ok(err instanceof CarrierConfigError);
    for (const p of [
      'terminals[0].extra: unknown field',
      'terminals[0].adapter: must be one of sim-terminal, got "navis"',
      'terminals[0].base_url: must be an http or https URL',
      'terminals[0].facilities: required, "*" or a non-empty list',
      'terminals[0].requests_per_minute: required, a number above 0',
      'terminals[1].facilities[1]: LBCT is listed twice',
      'terminals[1].auth.type: must be "headers", "oauth2_client_credentials" or "oauth2_private_key_jwt"',
    ])
      assert.ok(
        err.problems.some((x) => x.startsWith(p)),
        `${p}\n in ${err.problems.join('\n')}`,
      );
    assert.throws(() => parseTerminalsConfig('- adapter: [', {}), /not valid YAML/);
    assert.throws(
      () => parseTerminalsConfig('adapter: sim-terminal', {}),
      /must be a list of terminal entries/,
    );
    assert.deepEqual(parseTerminalsConfig('', {}), []);
  });
});

describe('sim-terminal adapter against the simulator process', () => {
  let sim: Awaited<ReturnType<typeof spawnSimulator>>;
  before(async () => {
    sim = await spawnSimulator(['--header', 'x-api-key: terminal-secret']);
  });
  after(async () => {
    await sim?.close();
  });

  const adapter = (key: string, rpm = 100_000) =>
    buildTerminalDirectory(
      parseTerminalsConfig(
        JSON.stringify([
          {
            adapter: 'sim-terminal',
            base_url: sim.url,
            auth: { type: 'headers', headers: { 'x-api-key': key } },
            facilities: ['LBCT'],
            requests_per_minute: rpm,
            timeout_ms: 2000,
          },
        ]),
        { format: 'json' },
      ),
    ).forFacility('LBCT')!;

  it('answers availability, berth and last free days once the box is discharged', async () => {
    // The journey is built by the carrier lookup first, as the engine does.
    await fetch(`${sim.url}/v2/events?transportDocumentReference=SIMTAVL0001`, {
      headers: { 'x-api-key': 'terminal-secret' },
    });
    const epoch = (await (await fetch(`${sim.url}/control/clock`)).json()) as { epoch: string };
    const answer = lookupNumber('bill_of_lading', 'SIMTAVL0001', {
      now: Date.parse(epoch.epoch) + 62 * DAY,
      epoch: Date.parse(epoch.epoch),
    });
    assert.equal(answer.kind, 'found');
    const container = answer.kind === 'found' ? answer.shipment.containers[0]!.number : '';
    const a = adapter('terminal-secret');
    assert.equal(a.covers('ITS'), false);
    assert.deepEqual(await a.check({ facility: 'LBCT', locode: 'USLGB', container }), { kind: 'not_found' });
    await sim.advance(20);
    const r = await a.check({ facility: 'LBCT', locode: 'USLGB', container });
    assert.equal(r.kind, 'found');
    if (r.kind !== 'found') return;
    assert.equal(r.status.availabilityKnown, true);
    assert.equal(r.status.available, true);
    assert.ok(r.status.vesselBerthedAt && r.status.lastFreeDay.line && r.status.lastFreeDay.terminal);
    assert.equal(r.status.left, null);
    assert.deepEqual(await a.check({ facility: 'ITS', locode: 'USLGB', container }), { kind: 'not_found' });
  });

  it('a wrong key is a temporary failure naming the status; an exhausted budget says so', async () => {
    const r = await adapter('wrong').check({ facility: 'LBCT', locode: 'USLGB', container: 'SIMU1000007' });
    assert.deepEqual(r, { kind: 'temporary_failure', detail: 'terminal feed answered HTTP 401' });
    const slow = adapter('terminal-secret', 1);
    await slow.check({ facility: 'LBCT', locode: 'USLGB', container: 'SIMU1000007' });
    const second = await slow.check({ facility: 'LBCT', locode: 'USLGB', container: 'SIMU1000007' });
    assert.equal(second.kind, 'temporary_failure');
    assert.match(second.kind === 'temporary_failure' ? second.detail : '', /budget exhausted/);
  });
});

describe('sandbox terminal feed and the terminal diff', () => {
  it('the sandbox line reports the terminal scenarios in-process, and an unchanged answer plans nothing', async () => {
    const epoch = new Date(Date.UTC(2026, 0, 10));
    let now = epoch.getTime();
    const feed = createSandboxTerminal({ clock: () => new Date(now), epoch });
    const answer = lookupNumber('bill_of_lading', 'SIMTHOLD0001', { now: now + 62 * DAY, epoch });
    const container = answer.kind === 'found' ? answer.shipment.containers[0]!.number : '';
    assert.deepEqual(await feed.check({ facility: 'LBCT', locode: 'USLGB', container }), {
      kind: 'not_found',
    });
    let stored: TerminalFacts = {
      availability_known: false,
      available_for_pickup: null,
      location_at_pod_terminal: null,
      pod_full_out_chassis_number: null,
      holds_at_pod_terminal: [],
      fees_at_pod_terminal: [],
      pickup_lfd_line: null,
      pickup_lfd_terminal: null,
      pickup_lfd_rail: null,
      pickup_appointment_at: null,
      pod_berthed_at: null,
      terminal_full_out_at: null,
      delivered_at: null,
    };
    const seen: string[] = [];
    for (let day = 0; day <= 35; day++) {
      now = epoch.getTime() + day * DAY;
      const r = await feed.check({ facility: 'LBCT', locode: 'USLGB', container });
      if (r.kind !== 'found') continue;
      const plan = diffTerminal(stored, r.status, new Date(now).toISOString());
      seen.push(...plan.events.map((e) => e.event));
      stored = { ...stored, ...plan.changes };
      const again = diffTerminal(stored, r.status, new Date(now + 1000).toISOString());
      assert.deepEqual(again, { changes: {}, events: [] }, `day ${day}: the same answer again plans nothing`);
    }
    for (const e of [
      'container.transport.vessel_berthed',
      'container.transport.available',
      'container.transport.not_available',
      'container.pickup_lfd.changed',
      'container.updated',
    ])
      assert.ok(seen.includes(e), `${e} in ${seen.join(', ')}`);
    assert.equal(seen.filter((e) => e === 'container.transport.available').length, 2);
  });
});
