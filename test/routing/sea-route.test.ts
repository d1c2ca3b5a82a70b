import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { portByLocode } from '../../src/reference/data.ts';
import { haversineNm, type LonLat } from '../../src/routing/geo.ts';
import { MinHeap } from '../../src/routing/heap.ts';
import { laneNetwork, PASSAGES } from '../../src/routing/network.ts';
import { portRoute } from '../../src/routing/port-routes.ts';
import { seaRoute } from '../../src/routing/sea-route.ts';
import fc from '../helpers/fast-check.ts';
import { atOrNearSea, onLand, samplePolyline } from './land.ts';

const at = (locode: string): LonLat => {
  const p = portByLocode(locode);
  assert.ok(p?.latitude != null && p.longitude != null, `${locode} has coordinates`);
  return [p.longitude, p.latitude];
};

const inCanal = (p: LonLat) =>
  Object.values(PASSAGES).some(([w, s, e, n]) => p[0] >= w && p[0] <= e && p[1] >= s && p[1] <= n);

describe('lane network', () => {
  test('loads MARNET from the installed package as one large connected graph', () => {
    const net = laneNetwork();
    assert.ok(net.nodeCount > 5000, `${net.nodeCount} nodes`);
    assert.ok(net.snappable.length > 5000, `${net.snappable.length} connected nodes`);
    assert.ok(net.edgeCount > 7000);
  });

  test('the land check itself: open sea is sea, inland is land', () => {
    assert.equal(onLand([-30, 40]), false, 'mid-Atlantic');
    assert.equal(onLand([100, 45]), true, 'Mongolia');
    assert.equal(onLand([2.35, 48.85]), true, 'Paris');
    assert.equal(onLand([160, 0]), false, 'Pacific');
  });
});

// Port pairs across oceans, straits and canals. Every point sampled every 5 nm along the drawn
// line must be at sea or within 5 km of it (Natural Earth 1:50m is coarse at the coast), except
// within 30 nm of either port (river and harbour approaches are finer than the land layer) and
// in the Suez and Panama canal zones (land at this scale).
const PAIRS: Array<[string, string]> = [
  ['CNSGH', 'NLRTM'], // Malacca, Suez, Gibraltar, Dover Strait
  ['CNSGH', 'USLAX'], // trans-Pacific
  ['JPYOK', 'USLAX'],
  ['USLAX', 'USNYC'], // Panama
  ['USNYC', 'GBSOU'], // trans-Atlantic
  ['SGSIN', 'AEJEA'], // Hormuz
  ['TRIST', 'NLRTM'], // Bosporus, Dardanelles
  ['ZADUR', 'SGSIN'], // Indian Ocean
  ['BRSSZ', 'NLRTM'], // South Atlantic
  ['AUSYD', 'NZAKL'], // Tasman Sea
  ['CLSAI', 'CNSGH'], // South Pacific
  ['DEHAM', 'USHOU'], // Elbe, Gulf of Mexico
  ['THLCH', 'CNXAM'], // South China Sea, Taiwan Strait
  ['INNSA', 'USSAV'], // Arabian Sea, Suez, Atlantic
  ['KRPUS', 'USLAX'],
];

describe('sea routes stay at sea', () => {
  for (const [a, b] of PAIRS) {
    test(`${a} -> ${b}`, () => {
      const from = at(a);
      const to = at(b);
      const route = seaRoute(from, to);
      assert.ok(route, 'a route exists');
      assert.deepEqual(route.coordinates[0], from);
      assert.deepEqual(route.coordinates.at(-1), to);
      const onShore: string[] = [];
      for (const p of samplePolyline(route.coordinates, 5)) {
        if (haversineNm(p, from) < 30 || haversineNm(p, to) < 30 || inCanal(p)) continue;
        if (!atOrNearSea(p, 5)) onShore.push(p.map((x) => x.toFixed(2)).join(','));
      }
      assert.deepEqual(onShore, [], `points on land: ${onShore.slice(0, 5).join(' | ')}`);
      for (const [lon, lat] of route.coordinates) {
        assert.ok(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90);
      }
      // Consecutive points are close (the line is drawn in order, with no jumps).
      for (let i = 1; i < route.coordinates.length; i++) {
        assert.ok(haversineNm(route.coordinates[i - 1]!, route.coordinates[i]!) <= 90, `step ${i}`);
        assert.ok(route.cumulativeNm[i]! >= route.cumulativeNm[i - 1]!);
      }
    });
  }
});

// Published port-to-port distances (nautical miles). Our lanes are drawn straight in lon/lat,
// slightly longer than great-circle sailing, so each must be within 5%.
const PUBLISHED: Array<{
  from: string;
  to: string;
  nm: number;
  avoid?: Array<'suez' | 'panama'>;
  source: string;
}> = [
  // Suez Canal Authority's route comparisons: Ras Tanura - Rotterdam 6,436 nm via the canal,
  // 11,169 nm round the Cape of Good Hope.
  { from: 'SARTA', to: 'NLRTM', nm: 6436, source: 'Suez Canal Authority, via the canal' },
  { from: 'SARTA', to: 'NLRTM', nm: 11169, avoid: ['suez'], source: 'Suez Canal Authority, via the Cape' },
  // Panama Canal: New York - San Francisco 5,262 nm through the canal, 13,135 nm round Cape Horn.
  { from: 'USNYC', to: 'USSFO', nm: 5262, source: 'Panama Canal Authority, via the canal' },
  {
    from: 'USNYC',
    to: 'USSFO',
    nm: 13135,
    avoid: ['panama'],
    source: 'Panama Canal Authority, via Cape Horn',
  },
  // Shanghai - Rotterdam via Suez, ~10,500 nm (port-distance tables, e.g. sea-distances.org 10,525).
  { from: 'CNSGH', to: 'NLRTM', nm: 10525, source: 'port distance tables' },
  // Singapore - Rotterdam via Suez, 8,288 nm (port-distance tables).
  { from: 'SGSIN', to: 'NLRTM', nm: 8288, source: 'port distance tables' },
  // Southampton - New York, ~3,150 nm (the Cunard transatlantic crossing).
  { from: 'GBSOU', to: 'USNYC', nm: 3150, source: 'Cunard Southampton - New York crossing' },
];

describe('distances match published port-to-port distances within 5%', () => {
  for (const p of PUBLISHED) {
    test(`${p.from} -> ${p.to}${p.avoid ? ` avoiding ${p.avoid}` : ''} ~ ${p.nm} nm (${p.source})`, () => {
      const route = seaRoute(at(p.from), at(p.to), { avoid: p.avoid });
      assert.ok(route);
      const off = Math.abs(route.distanceNm - p.nm) / p.nm;
      assert.ok(off <= 0.05, `${route.distanceNm.toFixed(0)} nm is ${(off * 100).toFixed(1)}% off ${p.nm}`);
    });
  }

  test('avoiding a canal makes the route longer and keeps it out of the canal', () => {
    const direct = seaRoute(at('CNSGH'), at('NLRTM'))!;
    const around = seaRoute(at('CNSGH'), at('NLRTM'), { avoid: ['suez'] })!;
    assert.ok(around.distanceNm > direct.distanceNm + 2000);
    const [w, s, e, n] = PASSAGES.suez;
    const inSuez = ([x, y]: LonLat) => x >= w && x <= e && y >= s && y <= n;
    assert.ok(direct.coordinates.some(inSuez), 'the direct route uses Suez');
    assert.deepEqual(around.coordinates.filter(inSuez), []);
  });
});

describe('port route cache', () => {
  test('the second request for a port pair is the cached route', () => {
    const a = portByLocode('CNNBO')!;
    const b = portByLocode('DEHAM')!;
    const first = portRoute(a, b);
    const t0 = performance.now();
    const second = portRoute(a, b);
    assert.ok(performance.now() - t0 < 5);
    assert.equal(second, first);
  });
});

describe('binary heap', () => {
  test('pops keys in ascending order', () => {
    fc.assert(
      fc.property(
        // -0 and 0 compare equal as keys but not under deepEqual: one zero is enough.
        fc.array(
          fc.double({ noNaN: true, min: -1e9, max: 1e9 }).map((k) => k + 0),
          { maxLength: 200 },
        ),
        (keys) => {
          const h = new MinHeap();
          keys.forEach((k, i) => {
            h.push(i, k);
          });
          const out: number[] = [];
          for (let n = h.pop(); n !== -1; n = h.pop()) out.push(keys[n]!);
          assert.deepEqual(
            out,
            [...keys].sort((x, y) => x - y),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
