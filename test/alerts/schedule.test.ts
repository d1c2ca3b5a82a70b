import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isTimeZone, nextDigestAt } from '../../src/alerts/schedule.ts';
import fc from '../helpers/fast-check.ts';

// When a daily digest is due (src/alerts/schedule.ts): examples whose answers were worked out by
// hand from the zones' rules, DST days on both hemispheres and both sides of Greenwich, then
// properties over many instants and a walk of a whole year: one digest per local day, none skipped.

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const next = (dailyAt: string, tz: string, now: string) =>
  nextDigestAt(dailyAt, tz, new Date(now)).toISOString();

const formats = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `tz` at `d`, as `YYYY-MM-DD HH:MM`. */
function wall(d: Date, tz: string): string {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** The UTC offset of `tz` at `t`, in milliseconds. */
function offset(t: number, tz: string): number {
  const w = wall(new Date(t), tz);
  const local = Date.parse(`${w.replace(' ', 'T')}:00Z`);
  return local - Math.floor(t / MIN) * MIN;
}

describe('nextDigestAt', () => {
  test('later today when the hour has not come, tomorrow when it has', () => {
    assert.equal(next('09:00', 'UTC', '2026-06-01T08:59:00Z'), '2026-06-01T09:00:00.000Z');
    assert.equal(next('09:00', 'UTC', '2026-06-01T10:00:00Z'), '2026-06-02T09:00:00.000Z');
    // A rule created (or a digest gathered) at the very minute: the next one is tomorrow's.
    assert.equal(next('09:00', 'UTC', '2026-06-01T09:00:00Z'), '2026-06-02T09:00:00.000Z');
    assert.equal(next('09:00', 'UTC', '2026-06-01T09:00:00.001Z'), '2026-06-02T09:00:00.000Z');
  });

  test("the hour is the time zone's, whichever UTC date that falls on", () => {
    // Berlin in summer is UTC+2: 08:00 there is 06:00Z.
    assert.equal(next('08:00', 'Europe/Berlin', '2026-06-01T05:00:00Z'), '2026-06-01T06:00:00.000Z');
    // 07:00Z is 09:00 in Berlin: today's 08:00 has passed.
    assert.equal(next('08:00', 'Europe/Berlin', '2026-06-01T07:00:00Z'), '2026-06-02T06:00:00.000Z');
    // 23:30Z on 31 May is already 1 June in Tokyo (UTC+9): its 07:00 is 22:00Z on 1 June.
    assert.equal(next('07:00', 'Asia/Tokyo', '2026-05-31T23:30:00Z'), '2026-06-01T22:00:00.000Z');
    // 03:00Z on 1 June is still 31 May in Los Angeles (UTC-7): its 22:00 is 05:00Z on 1 June.
    assert.equal(next('22:00', 'America/Los_Angeles', '2026-06-01T03:00:00Z'), '2026-06-01T05:00:00.000Z');
    // Offsets that are not whole hours.
    assert.equal(next('09:00', 'Asia/Kolkata', '2026-06-01T00:00:00Z'), '2026-06-01T03:30:00.000Z');
    assert.equal(next('09:00', 'Asia/Kathmandu', '2026-06-01T00:00:00Z'), '2026-06-01T03:15:00.000Z');
  });

  test('midnight and the last minute of the day', () => {
    // 21:59Z is 23:59 in Berlin: midnight is one minute away, on the next local date.
    assert.equal(next('00:00', 'Europe/Berlin', '2026-06-01T21:59:00Z'), '2026-06-01T22:00:00.000Z');
    assert.equal(next('00:00', 'Europe/Berlin', '2026-06-01T22:00:00Z'), '2026-06-02T22:00:00.000Z');
    assert.equal(next('23:59', 'Europe/Berlin', '2026-06-01T22:00:00Z'), '2026-06-02T21:59:00.000Z');
    assert.equal(next('00:00', 'UTC', '2026-12-31T23:59:59Z'), '2027-01-01T00:00:00.000Z');
  });

  test('spring forward: the hours either side keep their wall clock time', () => {
    // Berlin, 29 March 2026: 02:00 CET becomes 03:00 CEST (01:00Z).
    assert.equal(next('08:00', 'Europe/Berlin', '2026-03-28T12:00:00Z'), '2026-03-29T06:00:00.000Z');
    assert.equal(next('01:59', 'Europe/Berlin', '2026-03-28T12:00:00Z'), '2026-03-29T00:59:00.000Z');
    assert.equal(next('03:00', 'Europe/Berlin', '2026-03-28T12:00:00Z'), '2026-03-29T01:00:00.000Z');
  });

  test('spring forward: a time that does not exist goes at the offset before, later by the jump', () => {
    // Berlin: 02:30 does not exist on 29 March; at UTC+1 it is 01:30Z, shown as 03:30 CEST.
    assert.equal(next('02:30', 'Europe/Berlin', '2026-03-28T12:00:00Z'), '2026-03-29T01:30:00.000Z');
    // New York, 8 March 2026: 02:00 EST becomes 03:00 EDT (07:00Z). 02:30 at UTC-5 is 07:30Z,
    // shown as 03:30 EDT: later, never the hour before the gap (06:30Z, 01:30 EST).
    assert.equal(next('02:30', 'America/New_York', '2026-03-07T12:00:00Z'), '2026-03-08T07:30:00.000Z');
    // Santiago, 6 September 2026: midnight at UTC-4 becomes 01:00 at UTC-3, so that day has no
    // 00:00. The digest goes at 04:00Z (01:00 local, 6 September), not at 23:00 on the 5th.
    assert.equal(next('00:00', 'America/Santiago', '2026-09-05T12:00:00Z'), '2026-09-06T04:00:00.000Z');
    assert.equal(wall(new Date('2026-09-06T04:00:00Z'), 'America/Santiago'), '2026-09-06 01:00');
    // Lord Howe Island jumps by half an hour (02:00 at UTC+10:30 becomes 02:30 at UTC+11).
    assert.equal(next('02:15', 'Australia/Lord_Howe', '2026-10-03T12:00:00Z'), '2026-10-03T15:45:00.000Z');
    assert.equal(wall(new Date('2026-10-03T15:45:00Z'), 'Australia/Lord_Howe'), '2026-10-04 02:45');
  });

  test('fall back: a time that repeats goes at its first occurrence, and only once that day', () => {
    // Berlin, 25 October 2026: 03:00 CEST becomes 02:00 CET (01:00Z); 02:30 is 00:30Z and 01:30Z.
    assert.equal(next('02:30', 'Europe/Berlin', '2026-10-24T12:00:00Z'), '2026-10-25T00:30:00.000Z');
    // Between the two occurrences (that day's digest has gone): the next is the next day's.
    assert.equal(next('02:30', 'Europe/Berlin', '2026-10-25T00:30:00Z'), '2026-10-26T01:30:00.000Z');
    assert.equal(next('02:30', 'Europe/Berlin', '2026-10-25T01:00:00Z'), '2026-10-26T01:30:00.000Z');
    // New York, 1 November 2026: 02:00 EDT becomes 01:00 EST (06:00Z); 01:30 is 05:30Z and 06:30Z.
    assert.equal(next('01:30', 'America/New_York', '2026-10-31T12:00:00Z'), '2026-11-01T05:30:00.000Z');
    assert.equal(next('01:30', 'America/New_York', '2026-11-01T05:45:00Z'), '2026-11-02T06:30:00.000Z');
    // Lord Howe, 5 April 2026: 02:00 at UTC+11 becomes 01:30 at UTC+10:30; 01:45 repeats.
    assert.equal(next('01:45', 'Australia/Lord_Howe', '2026-04-04T12:00:00Z'), '2026-04-04T14:45:00.000Z');
    // Sydney falls back in April too (southern hemisphere): 5 April 2026, 03:00 AEDT -> 02:00 AEST.
    assert.equal(next('02:30', 'Australia/Sydney', '2026-04-04T00:00:00Z'), '2026-04-04T15:30:00.000Z');
  });

  test('a day that does not exist at all (Samoa skipped 30 December 2011)', () => {
    // 22:00Z on 29 December was 12:00 at UTC-10; the next local day was 31 December at UTC+14.
    assert.equal(next('08:00', 'Pacific/Apia', '2011-12-29T22:00:00Z'), '2011-12-30T18:00:00.000Z');
    assert.equal(wall(new Date('2011-12-30T18:00:00Z'), 'Pacific/Apia'), '2011-12-31 08:00');
    assert.equal(next('08:00', 'Pacific/Apia', '2011-12-30T18:00:00Z'), '2011-12-31T18:00:00.000Z');
  });

  const ZONES = [
    'UTC',
    'Europe/Berlin',
    'Europe/London',
    'America/New_York',
    'America/Santiago',
    'America/St_Johns',
    'Australia/Sydney',
    'Australia/Lord_Howe',
    'Asia/Kolkata',
    'Pacific/Chatham',
  ];
  // 02:30 is in the gap or the repeat of most zones; Chatham changes at 02:45, Santiago at midnight.
  const TIMES = ['00:00', '01:30', '02:30', '02:45', '23:59'];

  test('a year of digests: one on every local date, at the hour or later by that day’s jump', () => {
    for (const tz of ZONES)
      for (const at of TIMES) {
        let t = nextDigestAt(at, tz, new Date('2026-01-01T00:00:00Z'));
        let date = wall(t, tz).slice(0, 10);
        for (let i = 0; i < 366; i++) {
          const n = nextDigestAt(at, tz, t);
          const w = wall(n, tz);
          const expected = new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
          assert.equal(w.slice(0, 10), expected, `${tz} ${at}: after ${t.toISOString()} came ${w}`);
          if (w.slice(11) !== at) {
            // Only on a day that has no such time, and by exactly that day's jump.
            const jump = offset(n.getTime(), tz) - offset(n.getTime() - DAY, tz);
            const shift = Date.parse(`${w.replace(' ', 'T')}:00Z`) - Date.parse(`${expected}T${at}:00Z`);
            assert.ok(
              jump > 0 && shift === jump,
              `${tz} ${at}: ${w} on a day whose jump is ${jump / MIN} min`,
            );
          }
          t = n;
          date = expected;
        }
      }
  });

  test('from any instant: the next digest is within a day (and a jump), and computing it again from just before answers the same', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2030-12-31T00:00:00Z') }),
        (tz, h, m, nowMs) => {
          const at = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
          const r = nextDigestAt(at, tz, new Date(nowMs)).getTime();
          assert.ok(r > nowMs, 'in the future');
          assert.ok(r - nowMs <= DAY + HOUR, `${(r - nowMs) / HOUR} hours away`);
          assert.equal(nextDigestAt(at, tz, new Date(r - 1)).getTime(), r, 'stable just before');
          // The first occurrence: the same reading was not on the wall clock half an hour or an
          // hour earlier (as it is when r is the second occurrence of a repeated time).
          for (const back of [30 * MIN, HOUR])
            assert.notEqual(wall(new Date(r - back), tz), wall(new Date(r), tz));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('isTimeZone', () => {
  test('IANA names and UTC; not unknown names, empty or overlong strings', () => {
    for (const tz of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'])
      assert.equal(isTimeZone(tz), true, tz);
    for (const tz of ['', 'Mars/Olympus_Mons', 'Europe/Berlín', 'GMT+25', 'x'.repeat(65)])
      assert.equal(isTimeZone(tz), false, JSON.stringify(tz));
  });
});
