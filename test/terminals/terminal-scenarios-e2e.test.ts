import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV } from '../helpers/engine.ts';
import { startSimulatedWorld, TERMINAL_ENV } from '../helpers/terminal-journeys.ts';
import { LOOPBACK_WEBHOOKS } from '../helpers/worker-app.ts';

// The terminal scenarios end to end, and issue 12's item 7 coverage check, in one run of the
// simulator process (DCSA carrier + terminal feed), the worker, the API and a webhook receiver:
// every scenario's example numbers (GET /control/scenarios) are tracked through the DCSA adapter
// and the simulated clock advances through 62 days, two days at a time while the boxes are at
// their terminals. After each step every box has been refreshed at the carrier and checked at its
// terminal, and the served containers are recorded, so the assertions read each terminal journey
// as a user watching it would. Then: every event GET /v2/webhooks/events lists (documents aside)
// was delivered, each with the shape of the reference example for its event.

const SCENARIOS = ['SIMTAVL', 'SIMTHOLD', 'SIMTLFD', 'SIMTFEE', 'SIMTAPPT', 'SIMTREAS', 'SIMTDLV'];
const STEPS = [...Array(17).fill(2), ...Array(7).fill(4)]; // 62 simulated days

// Refreshes and terminal checks happen when a step asks for them (settle), once per box and step,
// as in the scenario rig: the engine on its own would re-read every shipment and box every few
// milliseconds between steps, work that made this file slower than any other and proved nothing more.
const ENV = {
  ...FAST_ENGINE_ENV,
  ...LOOPBACK_WEBHOOKS,
  ...TERMINAL_ENV,
  REFRESH_INTERVAL_MS: '3600000',
  REFRESH_NEAR_ARRIVAL_MS: '3600000',
  TERMINAL_CHECK_INTERVAL_MS: '3600000',
  TRACKING_RETRY_BASE_MS: '5',
  TRACKING_RETRY_MAX: '8',
  AWAITING_MANIFEST_INTERVAL_MS: '50',
  AWAITING_MANIFEST_MAX_MS: '4000',
};

type Snapshot = { day: number; attributes: any; terminal: string | null };

for (const engine of ENGINES) {
  describe(`terminal scenarios and the event coverage through the simulator [${engine}]`, () => {
    let t: TestApp;
    let world: Awaited<ReturnType<typeof startSimulatedWorld>>;
    const timeline = new Map<string, Snapshot[]>();
    const containerIds = new Map<string, string>();
    let listed: string[] = [];

    before(
      async () => {
        t = await startTestApp(engine, ENV);
        world = await startSimulatedWorld(t);
        const categories = (await t.request('GET', '/v2/webhooks/events')).body.data;
        listed = categories.flatMap((c: any) => c.attributes.events.map((e: any) => e.name));
        const scenarios = (await (await fetch(`${world.sim.url}/control/scenarios`)).json()) as Array<{
          examples: Record<string, string>;
        }>;
        const tracked = new Map<string, string>();
        for (const s of scenarios) {
          for (const [type, number] of Object.entries(s.examples)) {
            // One request per number (SIMNONE uses the same number for both document types).
            if (!tracked.has(number)) tracked.set(number, await world.track(number, type));
          }
        }
        const scenarioOf = new Map<string, string>();
        for (const s of SCENARIOS) {
          const c = await eventually(async () => world.containerOf(tracked.get(`${s}0001`)!), 20_000, `${s}`);
          containerIds.set(s, c.id);
          scenarioOf.set(c.id, s);
        }
        let day = 0;
        for (const step of [0, ...STEPS]) {
          if (step > 0) await world.sim.advance(step);
          day += step;
          await settle();
          const page = await t.request('GET', '/v2/containers?page[size]=100', { key: world.acct.key });
          for (const c of page.body.data) {
            const s = scenarioOf.get(c.id);
            if (!s) continue;
            const list = timeline.get(s) ?? [];
            list.push({
              day,
              attributes: c.attributes,
              terminal: c.relationships.pod_terminal.data?.id ?? null,
            });
            timeline.set(s, list);
          }
        }
        // Let the last notifications go out.
        await eventually(
          async () => {
            const r = await t.database.db
              .selectFrom('webhook_notifications')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('account_id', '=', world.acct.accountId)
              .where('delivery_status', '=', 'pending')
              .executeTakeFirstOrThrow();
            return Number(r.n) === 0;
          },
          60_000,
          'every notification delivered',
        );
      },
      // Every scenario tracked through every simulated day: past the suite's 120 s on a busy host.
      { timeout: 300_000 },
    );
    after(async () => {
      // SCENARIO_EVENTS_OUT=<file>: writes the events each tracked number produced (the source of
      // the table in docs/simulator.md).
      if (process.env.SCENARIO_EVENTS_OUT && world) {
        const rows = await sql<{ request_number: string; event: string }>`
          select distinct tr.request_number, d.event
            from domain_events d
            join tracking_requests tr
              on tr.id = d.tracking_request_id or (d.shipment_id is not null and tr.shipment_id = d.shipment_id)
           where d.account_id = ${world.acct.accountId}
           order by 1, 2`.execute(t.database.db);
        const out: Record<string, string[]> = {};
        for (const r of rows.rows) out[r.request_number] = [...(out[r.request_number] ?? []), r.event];
        writeFileSync(process.env.SCENARIO_EVENTS_OUT, JSON.stringify(out, null, 1));
      }
      await world?.close();
      await t?.close();
    });

    /**
     * Refreshes every shipment still followed at the carrier, then checks every box still followed
     * at its terminal (a refresh may move its POD terminal), and waits until each has been done.
     * Each pass moves the next due time of those not yet done to now, again at every poll: one
     * that a worker had already claimed when the pass began is due again once its lease ends.
     */
    async function settle() {
      const refreshedSince = new Date();
      await untilNone('every shipment refreshed', async (db) => {
        await sql`update shipments set next_refresh_at = now() - interval '1 second'
                   where line_tracking_stopped_at is null
                     and (line_tracking_last_attempted_at is null or line_tracking_last_attempted_at < ${refreshedSince})
                     and next_refresh_at > now() + interval '10 seconds'`.execute(db);
        return sql<{ pending: number }>`select count(*)::int as pending from shipments
                   where line_tracking_stopped_at is null
                     and (line_tracking_last_attempted_at is null or line_tracking_last_attempted_at < ${refreshedSince})`.execute(
          db,
        );
      });
      const checkedSince = new Date();
      await untilNone('every box checked at its terminal', async (db) => {
        await sql`update container_terminal_checks set next_check_at = now() - interval '1 second'
                   where (checked_at is null or checked_at < ${checkedSince})
                     and next_check_at > now() + interval '10 seconds'`.execute(db);
        return sql<{ pending: number }>`
            select count(*)::int as pending
              from containers c join shipments s on s.id = c.shipment_id
              left join container_terminal_checks k on k.container_id = c.id
             where s.line_tracking_stopped_at is null
               and (s.line_tracking_last_attempted_at is null
                    or s.line_tracking_last_attempted_at < ${refreshedSince}
                    or (c.terminal_full_out_at is null and c.delivered_at is null
                        and c.empty_terminated_at is null and coalesce(c.pod_terminal_id, s.pod_terminal_id) is not null
                        and (k.checked_at is null or k.checked_at < ${checkedSince})))`.execute(db);
      });
    }
    async function untilNone(
      what: string,
      pass: (db: TestApp['database']['db']) => Promise<{ rows: { pending: number }[] }>,
    ) {
      await eventually(
        async () => {
          const r = await pass(t.database.db);
          if (r.rows[0]!.pending === 0) return true;
          world.worker.wake();
          return false;
        },
        20_000,
        what,
      );
    }
    const days = (s: string) => timeline.get(s)!;
    const firstDay = (s: string, pred: (a: any) => boolean) => days(s).find((x) => pred(x.attributes))?.day;
    const on = (s: string, day: number) => days(s).find((x) => x.day === day)!.attributes;
    const eventsOf = (s: string) => world.delivered().filter((d) => d.container === containerIds.get(s));
    const names = (s: string) => eventsOf(s).map((e) => e.event);

    test('SIMTAVL: berthed, available with last free days, then picked up; unchanged answers announce nothing', async () => {
      const first = on('SIMTAVL', 0);
      assert.equal(first.availability_known, false, 'far from arrival the terminal knows nothing');
      assert.equal(first.available_for_pickup, null);
      const known = firstDay('SIMTAVL', (a) => a.availability_known)!;
      const available = firstDay('SIMTAVL', (a) => a.available_for_pickup === true)!;
      const out = firstDay('SIMTAVL', (a) => a.pod_full_out_at !== null)!;
      assert.ok(known < available && available < out, `${known} < ${available} < ${out}`);
      const at = on('SIMTAVL', available);
      assert.equal(at.current_status, 'available');
      assert.ok(at.location_at_pod_terminal?.startsWith('Yard '));
      assert.ok(at.import_deadlines.pickup_lfd_line && at.import_deadlines.pickup_lfd_terminal);
      assert.equal(at.import_deadlines.pickup_lfd_rail, null);
      assert.equal(at.pickup_lfd, at.import_deadlines.pickup_lfd_line, 'the line LFD wins the coalescing');
      assert.ok(Date.parse(at.pickup_lfd) > Date.parse(at.import_deadlines.pickup_lfd_terminal));
      assert.ok(at.terminal_checked_at);
      const n = names('SIMTAVL');
      for (const e of [
        'container.transport.vessel_berthed',
        'container.transport.available',
        'container.pickup_lfd.changed',
        'container.pickup_lfd_line.changed',
        'container.pickup_lfd_terminal.changed',
        'container.updated',
        'container.transport.full_out',
      ])
        assert.ok(n.includes(e), `${e} in ${n.join(', ')}`);
      assert.equal(n.filter((e) => e === 'container.transport.available').length, 1, 'announced once');
      assert.ok(!n.includes('container.transport.not_available'), 'leaving is not "not available"');
      const berthed = eventsOf('SIMTAVL').find((e) => e.event === 'container.transport.vessel_berthed')!;
      const arrived = eventsOf('SIMTAVL').find((e) => e.event === 'container.transport.vessel_arrived')!;
      assert.ok(
        Date.parse(berthed.object.attributes.timestamp) > Date.parse(arrived.object.attributes.timestamp),
      );
      assert.equal(berthed.object.type, 'transport_event');
      assert.equal(berthed.object.attributes.data_source, 'terminal');
      assert.equal(berthed.object.attributes.location_locode, 'USLGB');
      const lfd = eventsOf('SIMTAVL').find((e) => e.event === 'container.pickup_lfd_line.changed')!;
      assert.equal(lfd.object.type, 'container_updated_event');
      assert.deepEqual(Object.keys(lfd.object.attributes.changeset), ['pickup_lfd_line']);
      // Days with the same terminal answer wrote nothing: updated_at only moves with a change.
      const plateau = days('SIMTAVL').filter((x) => x.day > available + 1 && x.day < out - 1);
      assert.ok(plateau.length >= 2);
      assert.ok(plateau.every((x) => x.attributes.updated_at === plateau[0]!.attributes.updated_at));
    });

    test('SIMTHOLD: a customs hold makes the box not available, with an exam fee; the release makes it available again', () => {
      const avail = firstDay('SIMTHOLD', (a) => a.available_for_pickup === true)!;
      const held = days('SIMTHOLD').find(
        (x) => x.day > avail && x.attributes.holds_at_pod_terminal.length > 0,
      )!;
      assert.ok(held, 'a hold appears after availability');
      assert.deepEqual(held.attributes.holds_at_pod_terminal, [
        { name: 'customs', status: 'hold', description: 'CBP exam hold' },
      ]);
      assert.equal(held.attributes.available_for_pickup, false);
      assert.equal(held.attributes.current_status, 'not_available');
      assert.deepEqual(held.attributes.fees_at_pod_terminal, [
        { type: 'exam', amount: 350, currency_code: 'USD' },
      ]);
      const released = days('SIMTHOLD').find(
        (x) => x.day > held.day && x.attributes.available_for_pickup === true,
      )!;
      assert.ok(released, 'available again after the release');
      assert.deepEqual(released.attributes.holds_at_pod_terminal, []);
      const n = names('SIMTHOLD');
      const firstAvail = n.indexOf('container.transport.available');
      const notAvail = n.indexOf('container.transport.not_available');
      assert.ok(
        firstAvail >= 0 && notAvail > firstAvail && n.lastIndexOf('container.transport.available') > notAvail,
        n.join(', '),
      );
      const update = eventsOf('SIMTHOLD').find(
        (e) => e.event === 'container.updated' && e.object.attributes.changeset.holds_at_pod_terminal,
      )!;
      assert.deepEqual(update.object.attributes.changeset.available_for_pickup, [true, false]);
    });

    test('SIMTLFD: line, terminal and rail last free days set, then moved, each announced', () => {
      const set = firstDay('SIMTLFD', (a) => a.import_deadlines.pickup_lfd_rail !== null)!;
      const moved = days('SIMTLFD').find(
        (x) =>
          x.day > set &&
          x.attributes.import_deadlines.pickup_lfd_rail !==
            on('SIMTLFD', set).import_deadlines.pickup_lfd_rail,
      )!;
      assert.ok(moved, 'the rail LFD moves');
      const [a, b] = [on('SIMTLFD', set).import_deadlines, moved.attributes.import_deadlines];
      for (const k of ['pickup_lfd_line', 'pickup_lfd_terminal', 'pickup_lfd_rail'])
        assert.ok(Date.parse(b[k]) > Date.parse(a[k]), `${k} moved later`);
      const n = names('SIMTLFD');
      for (const e of ['line', 'terminal', 'rail'])
        assert.equal(
          n.filter((x) => x === `container.pickup_lfd_${e}.changed`).length,
          2,
          `${e}: ${n.join(', ')}`,
        );
      assert.equal(n.filter((x) => x === 'container.pickup_lfd.changed').length, 2);
      const change = eventsOf('SIMTLFD').filter((e) => e.event === 'container.pickup_lfd_rail.changed')[1]!;
      assert.deepEqual(change.object.attributes.changeset.pickup_lfd_rail, [
        a.pickup_lfd_rail,
        b.pickup_lfd_rail,
      ]);
    });

    test('SIMTFEE: demurrage added after the terminal last free day and growing until the full out', () => {
      const withFees = days('SIMTFEE').filter((x) => x.attributes.fees_at_pod_terminal.length > 0);
      assert.ok(withFees.length >= 2, 'fees on several days');
      const amounts = withFees.map((x) => x.attributes.fees_at_pod_terminal[0].amount);
      assert.ok(
        amounts.every((v, i) => i === 0 || v >= amounts[i - 1]!),
        amounts.join(','),
      );
      assert.ok(amounts.at(-1)! > amounts[0]!);
      assert.deepEqual(
        withFees[0]!.attributes.fees_at_pod_terminal.map((f: any) => f.type),
        ['demurrage', 'total'],
      );
      const lfdDay = Date.parse(withFees[0]!.attributes.import_deadlines.pickup_lfd_terminal);
      assert.ok(lfdDay > 0);
      assert.ok(names('SIMTFEE').includes('container.updated'));
    });

    test('SIMTAPPT: the pickup appointment is booked, then rescheduled', () => {
      const booked = firstDay('SIMTAPPT', (a) => a.pickup_appointment_at !== null)!;
      const first = on('SIMTAPPT', booked).pickup_appointment_at;
      const later = days('SIMTAPPT').find(
        (x) => x.day > booked && x.attributes.pickup_appointment_at !== first,
      )!;
      assert.ok(later && Date.parse(later.attributes.pickup_appointment_at) > Date.parse(first));
      const changes = eventsOf('SIMTAPPT').filter((e) => e.event === 'container.pickup_appointment.changed');
      assert.equal(changes.length, 2);
      assert.deepEqual(changes[0]!.object.attributes.changeset.pickup_appointment_at, [null, first]);
    });

    test('SIMTREAS: the POD terminal is reassigned, announced, and the new terminal reports the box', () => {
      const terminals = [
        ...new Set(
          days('SIMTREAS')
            .map((x) => x.terminal)
            .filter(Boolean),
        ),
      ];
      assert.equal(terminals.length, 2, 'LBCT, then ITS');
      const n = names('SIMTREAS');
      assert.ok(n.includes('container.pod_terminal_changed'), n.join(', '));
      assert.ok(n.indexOf('container.pod_terminal_changed') < n.indexOf('container.transport.available'));
      const avail = days('SIMTREAS').find((x) => x.attributes.available_for_pickup === true)!;
      assert.equal(avail.terminal, terminals[1]);
    });

    test('SIMTDLV: the terminal reports the box delivered', () => {
      const delivered = firstDay('SIMTDLV', (a) => a.delivered_at !== null)!;
      assert.ok(delivered > firstDay('SIMTDLV', (a) => a.available_for_pickup === true)!);
      const at = on('SIMTDLV', delivered);
      assert.ok(at.pod_full_out_chassis_number?.startsWith('SIMZ'));
      const n = names('SIMTDLV');
      assert.equal(n.filter((e) => e === 'container.transport.delivered').length, 1, n.join(', '));
      const d = eventsOf('SIMTDLV').find((e) => e.event === 'container.transport.delivered')!;
      assert.equal(d.object.attributes.timestamp, at.delivered_at);
    });

    test('GET /v2/webhooks/events lists the 43 events of the reference catalogue', () => {
      assert.equal(listed.length, 43, listed.join(', '));
    });

    test('each listed event (documents aside) was delivered at least once', () => {
      const seen = new Set(world.delivered().map((d) => d.event));
      const missing = listed.filter((e) => !e.startsWith('document.') && !seen.has(e));
      assert.deepEqual(missing, []);
    });

    test('each delivered body has the shape of the reference example for its event', async () => {
      const byEvent = new Map(world.delivered().map((d) => [d.event, d] as const));
      for (const [event, d] of byEvent) {
        const ex = (await t.request('GET', `/v2/webhook_notifications/examples?event=${event}`)).body;
        // The examples endpoint answers a list (data is an array of one notification).
        const exData = ex.data[0];
        const exRef = exData.relationships.reference_object.data;
        const ref = d.body.data.relationships.reference_object.data;
        assert.equal(ref.type, exRef.type, `${event}: reference_object type`);
        assert.deepEqual(Object.keys(d.body.data.attributes).sort(), Object.keys(exData.attributes).sort());
        const exObject = ex.included.find((r: any) => r.id === exRef.id && r.type === exRef.type);
        assert.ok(d.object, `${event}: the reference object is included`);
        for (const k of Object.keys(exObject.attributes))
          assert.ok(k in d.object.attributes, `${event}: ${ref.type}.${k}`);
        if (event.startsWith('container.'))
          assert.ok(
            d.body.included.some((r: any) => r.type === 'container'),
            `${event}: container included`,
          );
      }
    });
  });
}
