import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DcsaEvent } from '../../sim/events.ts';
import { type RunningSimulator, startSimulator } from '../../sim/server.ts';
import { portByLocode } from '../../src/reference/data.ts';

// The simulator's AIS-like feed: positions follow the served journey's actual calls.

const EPOCH = '2026-03-01T00:00:00Z';
const DAY = 86_400_000;

describe('simulator AIS-like feed', () => {
  let s: RunningSimulator;
  let calls: { type: string; ms: number; locode: string }[] = [];
  let imo = '';
  before(async () => {
    s = await startSimulator({ epoch: EPOCH, speed: 0 });
    s.clock.advance(60 * DAY);
    const events = (await (
      await fetch(`${s.eventsUrl}?transportDocumentReference=SIMBL1C0001&eventType=TRANSPORT`)
    ).json()) as DcsaEvent[];
    const act = events.filter((e) => e.eventClassifierCode === 'ACT' && e.transportCall?.vessel);
    imo = act[0]!.transportCall!.vessel!.vesselIMONumber;
    calls = act
      .map((e) => ({
        type: e.transportEventTypeCode!,
        ms: Date.parse(e.eventDateTime),
        locode: e.transportCall!.UNLocationCode,
      }))
      .sort((a, b) => a.ms - b.ms);
    assert.deepEqual(
      calls.map((c) => `${c.type} ${c.locode}`),
      ['DEPA CNNBO', 'ARRI MYTPP', 'DEPA MYTPP', 'ARRI DEHAM'],
    );
  });
  after(() => s.close());

  const latest = async (query: string) => {
    const res = await fetch(`${s.origin}/ais/positions/latest?${query}`);
    return { status: res.status, body: (await res.json()) as { data: any } };
  };
  const at = (ms: number) => new Date(ms).toISOString();
  const portAt = (locode: string) => {
    const p = portByLocode(locode)!;
    return [p.longitude, p.latitude];
  };

  it('moored at the port before departure and between calls; under way between ports', async () => {
    const [depa, arri, depa2] = calls;
    const before = (await latest(`imo=${imo}&at=${at(depa!.ms - 3_600_000)}`)).body.data;
    assert.equal(before.status, 'moored');
    assert.deepEqual([before.lon, before.lat], portAt('CNNBO'));
    const inPort = (await latest(`imo=${imo}&at=${at((arri!.ms + depa2!.ms) / 2)}`)).body.data;
    assert.deepEqual([inPort.lon, inPort.lat, inPort.speed_knots], [...portAt('MYTPP'), 0]);

    // Half-way in time between Ningbo and Tanjung Pelepas, the vessel is south of one, north of the other.
    const mid = (await latest(`imo=${imo}&at=${at((depa!.ms + arri!.ms) / 2)}`)).body.data;
    assert.equal(mid.status, 'under_way');
    assert.ok(mid.speed_knots > 0 && mid.heading >= 0 && mid.heading < 360);
    assert.ok(mid.lat < portAt('CNNBO')[1]! && mid.lat > portAt('MYTPP')[1]!);
    assert.match(mid.at, /:\d\dZ$/);
  });

  it('never reports the future; unknown vessels are 404, bad input 400', async () => {
    // Ten days in, the vessel is at sea: asked a day ahead, the feed answers with now.
    const early = await startSimulator({ epoch: EPOCH, speed: 0 });
    try {
      early.clock.advance(10 * DAY);
      await fetch(`${early.eventsUrl}?transportDocumentReference=SIMBL1C0001`);
      const now = early.clock.nowMs();
      const res = await fetch(`${early.origin}/ais/positions/latest?imo=${imo}&at=${at(now + DAY)}`);
      const future = ((await res.json()) as { data: any }).data;
      assert.equal(future.status, 'under_way');
      assert.equal(future.at, at(Math.floor(now / 1000) * 1000).replace('.000Z', 'Z'));
    } finally {
      await early.close();
    }
    assert.equal((await latest('imo=1234567')).status, 404);
    assert.equal((await latest('imo=12')).status, 400);
    assert.equal((await latest(`imo=${imo}&at=yesterday`)).status, 400);
  });

  it('a track is the positions every step, oldest first, cut to now', async () => {
    const [depa] = calls;
    const from = depa!.ms;
    const res = await fetch(
      `${s.origin}/ais/positions?imo=${imo}&from=${at(from)}&to=${at(from + DAY)}&step_minutes=120`,
    );
    const track = ((await res.json()) as { data: any[] }).data;
    assert.equal(track.length, 13);
    assert.deepEqual([track[0].lon, track[0].lat], portAt('CNNBO'));
    const times = track.map((f) => Date.parse(f.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
    const late = await fetch(`${s.origin}/ais/positions?imo=${imo}&from=${at(s.clock.nowMs() + DAY)}`);
    assert.deepEqual(((await late.json()) as { data: unknown[] }).data, []);
  });
});
