import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { terminalBySmdg } from '../../src/reference/data.ts';
import { PROVIDED_FACTS, providedData, setTerminalCoverage } from '../../src/reference/terminal-coverage.ts';

// A terminal's provided_data (issue 28): the facts a configured terminal connection supplies there.

after(() => setTerminalCoverage([]));

test('a terminal a configured connection covers has its facts; another has none', () => {
  const dde = terminalBySmdg('NLRTM', 'DDE')!;
  const ect = terminalBySmdg('NLRTM', 'ECTDELTA') ?? terminalBySmdg('NLRTM', 'ECT')!;
  setTerminalCoverage([{ adapter: 'sim-terminal', facilities: ['DDE'] }]);
  const covered = providedData(dde);
  assert.deepEqual(
    Object.keys(covered),
    PROVIDED_FACTS.flatMap((f) => [f, `${f}_notes`]),
  );
  assert.equal(covered.available_for_pickup, true);
  assert.equal(covered.pickup_lfd, true);
  assert.match(String(covered.pickup_lfd_notes), /sim-terminal/);
  // No connection here reports empty returns.
  assert.equal(covered.empty_terminated_at, false);
  if (ect) assert.equal(providedData(ect).available_for_pickup, false);
  setTerminalCoverage([{ adapter: 'sim-terminal', facilities: '*' }]);
  assert.equal(providedData(dde).holds_at_pod_terminal, true);
});
