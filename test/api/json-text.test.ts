import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { sendJsonText } from '../../src/http/json-text.ts';

// Large answers assembled as JSON text give their memory back once sent, over real HTTP on
// loopback; a small one (a slice of Node's shared pool) is left alone.

describe('JSON text answers: memory released once sent', () => {
  let app: FastifyInstance;
  let url: string;
  const sent = new Map<string, Buffer>();
  const body = (chars: number) => Buffer.from(JSON.stringify({ data: 'x'.repeat(chars) }));

  before(async () => {
    app = Fastify();
    app.get('/large', (_request, reply) => {
      const b = body(300_000);
      sent.set('large', b);
      return sendJsonText(reply, b);
    });
    app.get('/small', (_request, reply) => {
      const b = Buffer.from('{"data":[]}');
      sent.set('small', b);
      return sendJsonText(reply, b);
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => app.close());

  const detached = (b: Buffer) => (b.buffer as ArrayBuffer).detached;
  /** Waits for the server's 'finish' (it runs on the same event loop as this client). */
  const settled = async (b: Buffer) => {
    for (let i = 0; i < 100 && !detached(b); i++) await new Promise((r) => setTimeout(r, 5));
  };

  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    return res.text();
  };

  test('a large answer arrives whole and its memory is freed', async () => {
    const text = await get('/large');
    assert.equal(JSON.parse(text).data.length, 300_000);
    const b = sent.get('large')!;
    await settled(b);
    assert.equal(detached(b), true);
    assert.equal(b.length, 0);
  });

  test("a small answer (a slice of Node's shared pool) is left alone", async () => {
    assert.equal(await get('/small'), '{"data":[]}');
    await settled(sent.get('small')!);
    assert.equal(detached(sent.get('small')!), false);
  });
});
