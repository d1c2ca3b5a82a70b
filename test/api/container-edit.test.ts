import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

// Issue 13 (4): PATCH /v2/containers/{id} edits ref_numbers.

for (const engine of ENGINES) {
  describe(`container edit [${engine}]`, () => {
    let t: TestApp;
    let id: string;
    before(async () => {
      t = await startTestApp(engine);
      id = (await seedShipment(t.database.db, t.accountId)).containerIds[0]!;
    });
    after(() => t.close());

    const body = (attributes: unknown) => ({ data: { id, type: 'container', attributes } });

    test('replaces ref_numbers (trimmed, de-duplicated) and shows them on GET', async () => {
      const res = await t.request('PATCH', `/v2/containers/${id}`, {
        body: body({ ref_numbers: [' PO-1 ', 'PO-2', 'PO-1'] }),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.type, 'container');
      assert.deepEqual(res.body.data.attributes.ref_numbers, ['PO-1', 'PO-2']);
      const got = await t.request('GET', `/v2/containers/${id}`);
      assert.deepEqual(got.body.data.attributes.ref_numbers, ['PO-1', 'PO-2']);
      const cleared = await t.request('PATCH', `/v2/containers/${id}`, { body: body({ ref_numbers: [] }) });
      assert.deepEqual(cleared.body.data.attributes.ref_numbers, []);
    });

    test('validation: blank entries, unknown attributes, other accounts, unknown ids', async () => {
      const blank = await t.request('PATCH', `/v2/containers/${id}`, {
        body: body({ ref_numbers: ['ok', ' '] }),
      });
      assert.equal(blank.status, 422);
      assert.equal(blank.body.errors[0].source.pointer, '/data/attributes/ref_numbers/1');
      const other = await t.request('PATCH', `/v2/containers/${id}`, { body: body({ number: 'X' }) });
      assert.equal(other.status, 422);
      const theirs = await t.newAccount();
      const foreign = await t.request('PATCH', `/v2/containers/${id}`, {
        body: body({ ref_numbers: ['X'] }),
        key: theirs.key,
      });
      assert.equal(foreign.status, 404);
      const missing = await t.request('PATCH', '/v2/containers/00000000-0000-4000-8000-000000000000', {
        body: body({ ref_numbers: ['X'] }),
      });
      assert.equal(missing.status, 404);
      assert.equal((await t.request('PATCH', '/v2/containers/nope', { body: body({}) })).status, 404);
    });
  });
}
