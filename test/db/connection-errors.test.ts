import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import pg from 'pg';
import { createBackoff, isConnectionError } from '../../src/db/connection-errors.ts';
import { freePort } from '../helpers/process.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

test('connection errors are told apart from statement errors', () => {
  for (const code of [
    '57P01',
    '57P02',
    '57P03',
    '08006',
    '08001',
    '08P01',
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
  ])
    assert.equal(isConnectionError(withCode(code)), true, code);
  for (const message of [
    'Connection terminated unexpectedly',
    'Connection terminated',
    'Client has encountered a connection error and is not queryable',
    'timeout exceeded when trying to connect',
  ])
    assert.equal(isConnectionError(new Error(message)), true, message);
  // A refused connection to every address of a host name, and an error that wraps one.
  const refused = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]);
  assert.equal(isConnectionError(refused), true);
  assert.equal(isConnectionError(new Error('query failed', { cause: withCode('57P01') })), true);
  // Statement errors are not: they stay 500s (or the 4xx their handler maps them to).
  for (const code of ['23505', '42601', '22P02', '40001', 'FST_ERR_CTP_INVALID_MEDIA_TYPE'])
    assert.equal(isConnectionError(withCode(code)), false, code);
  assert.equal(isConnectionError(new Error('boom')), false);
  assert.equal(isConnectionError(null), false);
  assert.equal(isConnectionError('Connection terminated'), false);
});

test('a real refused connection is recognised', async () => {
  const port = await freePort(); // nothing listens there
  const c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/x` });
  const err = await c.connect().then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(isConnectionError(err), String(err));
  // And a server that closes the socket during the handshake.
  const server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  const c2 = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${addr.port}/x` });
  const err2 = await c2.connect().then(
    () => null,
    (e: unknown) => e,
  );
  server.close();
  assert.ok(isConnectionError(err2), String(err2));
});

test('back-off doubles to its ceiling, with jitter, and starts over after reset', async () => {
  const b = createBackoff(100, 1000);
  const delays = Array.from({ length: 8 }, () => b.next());
  assert.ok(delays[0]! >= 50 && delays[0]! <= 100, String(delays));
  assert.ok(delays[3]! >= 400 && delays[3]! <= 800, String(delays));
  for (const d of delays.slice(5)) assert.ok(d >= 500 && d <= 1000, String(delays));
  b.reset();
  assert.ok(b.next() <= 100);
  // wait() sleeps the next delay; cancel() ends it at once.
  const started = Date.now();
  const waiting = b.wait();
  b.cancel();
  await waiting;
  assert.ok(Date.now() - started < 50);
});
