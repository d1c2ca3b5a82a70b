import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV } from '../helpers/engine.ts';
import { startSimulatedWorld, TERMINAL_ENV } from '../helpers/terminal-journeys.ts';
import { LOOPBACK_WEBHOOKS } from '../helpers/worker-app.ts';

// The terminal scenarios end to end: the simulator process (DCSA carrier + terminal feed), the
// worker, the API and a webhook receiver. The simulated clock advances a day at a time; after each
// day every box has been refreshed at the carrier and checked at its terminal, and the served
// container is recorded, so the assertions read the journey as a user watching it would.

const SCENARIOS = ['SIMTAVL', 'SIMTHOLD', 'SIMTLFD', 'SIMTFEE', 'SIMTAPPT', 'SIMTREAS', 'SIMTDLV'];
const DAYS = 33;

type Snapshot = { day: number; attributes: any; terminal: string | null };

for (const engine of ENGINES) {
  describe(`terminal scenarios through the simulator's terminal feed [${engine}]`, () => {
    let t: TestApp;
    let world: Awaited<ReturnType<typeof startSimulatedWorld>>;
    const timeline = new Map<string, Snapshot[]>();
    const containerIds = new Map<string, string>();
    const trIds = new Map<string, string>();

    before(async () => {
      t = await startTestApp(engine, { ...FAST_ENGINE_ENV, ...LOOPBACK_WEBHOOKS, ...TERMINAL_ENV });
      world = await startSimulatedWorld(t);
      for (const s of SCENARIOS) trIds.set(s, await world.track(`${s}0001`));
      const scenarioOf = new Map<string, string>();
      for (const s of SCENARIOS) {
        const c = await eventually(async () => world.containerOf(trIds.get(s)!), 20_000, `${s} created`);
        containerIds.set(s, c.id);
        scenarioOf.set(c.id, s);
      }
      for (let day = 0; day <= DAYS; day++) {
        if (day > 0) await world.sim.advance(1);
        await settle(Date.now());
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
      await new Promise((r) => setTimeout(r, 500));
    });
    after(async () => {
      await world?.close();
      await t?.close();
    });

    /** Waits until every box still followed was refreshed and checked after `since`. */
    async function settle(since: number) {
      world.worker.wake();
      await eventually(
        async () => {
          const r = await sql<{ pending: number }>`
            select count(*)::int as pending
              from containers c join shipments s on s.id = c.shipment_id
              left join container_terminal_checks k on k.container_id = c.id
             where s.line_tracking_stopped_at is null
               and (s.line_tracking_last_attempted_at is null
                    or s.line_tracking_last_attempted_at < ${new Date(since)}
                    or (c.terminal_full_out_at is null and c.delivered_at is null
                        and c.empty_terminated_at is null and coalesce(c.pod_terminal_id, s.pod_terminal_id) is not null
                        and (k.checked_at is null or k.checked_at < ${new Date(since)})))`.execute(
            t.database.db,
          );
          return r.rows[0]!.pending === 0;
        },
        20_000,
        'every box refreshed and checked',
      );
    }
    const days = (s: string) => timeline.get(s)!;
    const firstDay = (s: string, pred: (a: any) => boolean) => days(s).find((x) => pred(x.attributes))?.day;
    const eventsOf = (s: string) => world.delivered().filter((d) => d.container === containerIds.get(s));
    const names = (s: string) => eventsOf(s).map((e) => e.event);

    test('SIMTAVL: berthed, available with last free days, then picked up; unchanged answers announce nothing', async () => {
      const first = days('SIMTAVL')[0]!.attributes;
      assert.equal(first.availability_known, false, 'far from arrival the terminal knows nothing');
      assert.equal(first.available_for_pickup, null);
      const known = firstDay('SIMTAVL', (a) => a.availability_known)!;
      const available = firstDay('SIMTAVL', (a) => a.available_for_pickup === true)!;
      const out = firstDay('SIMTAVL', (a) => a.pod_full_out_at !== null)!;
      assert.ok(known < available && available < out, `${known} < ${available} < ${out}`);
      const at = days('SIMTAVL')[available]!.attributes;
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
            days('SIMTLFD')[set]!.attributes.import_deadlines.pickup_lfd_rail,
      )!;
      assert.ok(moved, 'the rail LFD moves');
      const [a, b] = [days('SIMTLFD')[set]!.attributes.import_deadlines, moved.attributes.import_deadlines];
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
      const first = days('SIMTAPPT')[booked]!.attributes.pickup_appointment_at;
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
      const at = days('SIMTDLV')[delivered]!.attributes;
      assert.ok(at.pod_full_out_chassis_number?.startsWith('SIMZ'));
      const n = names('SIMTDLV');
      assert.equal(n.filter((e) => e === 'container.transport.delivered').length, 1, n.join(', '));
      const d = eventsOf('SIMTDLV').find((e) => e.event === 'container.transport.delivered')!;
      assert.equal(d.object.attributes.timestamp, at.delivered_at);
    });
  });
}
