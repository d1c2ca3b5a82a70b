import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containerLines } from '../../src/mcp/format.ts';

// What an agent reads of a container (get_container): a container stopped on its own
// (PATCH /v2/containers/{id}/stop_tracking) says so, since its facts are as of its stop.

const base = { number: 'MSKU7000013', current_status: 'on_ship', availability_known: false };

test('a container stopped on its own says so; a tracked one does not', () => {
  assert.ok(!containerLines({ ...base, tracking_stopped_at: null }).some((l) => /stopped/.test(l)));
  const lines = containerLines({
    ...base,
    tracking_stopped_at: '2026-11-29T07:00:00.000Z',
    tracking_stopped_reason: 'user_request',
  });
  assert.ok(
    lines.some((l) => /Tracking of this container stopped .*\(user_request\)/.test(l)),
    lines.join('\n'),
  );
});
