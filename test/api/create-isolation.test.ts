import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createAccount } from '../../src/accounts/service.ts';
import {
  batchedTrackingRequestInsert,
  DuplicateTrackingRequest,
} from '../../src/tracking-requests/queries.ts';
import type { CreateInput } from '../../src/tracking-requests/validate.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { assertJsonApiError } from '../helpers/raw-http.ts';

// One account's bad input never fails another's: creates arriving in the same event-loop turn
// share one INSERT across accounts, so hostile input is refused before it, and a row the database
// refuses anyway is retried alone and fails only its own request.

const ACCOUNTS = 60;
const PER_ACCOUNT = 5;

const input = (n: number, extra: Partial<CreateInput> = {}): CreateInput => ({
  request_type: 'bill_of_lading',
  request_number: `ISO${String(n).padStart(7, '0')}`,
  scac: 'MSCU',
  ref_numbers: [`PO-${n}`],
  shipment_tags: [],
  ...extra,
});

for (const engine of ENGINES) {
  describe(`create isolation [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine);
    });
    after(() => t.close());

    test(`${ACCOUNTS * PER_ACCOUNT} concurrent creates across ${ACCOUNTS} accounts: only the hostile ones get a 4xx`, async () => {
      const accounts = await Promise.all(
        Array.from({ length: ACCOUNTS }, (_, i) => t.newAccount(`acct ${i}`)),
      );
      const hostile: Array<Record<string, unknown>> = [
        { ref_numbers: ['PO\u0000'] },
        { shipment_tags: ['\ud800'] },
        { ref_numbers: ['ok', '\udfff tail'] },
        { request_number: 'BAD\u0000NUM' },
        { scac: 'MS\u0000CU' },
        { shipment_tags: ['x'.repeat(201)] },
        { ref_numbers: ['HUGE_NUMBER'] }, // sent as the JSON number 1e400
      ];
      const jobs: Array<{ hostile: boolean; run: () => Promise<Awaited<ReturnType<TestApp['request']>>> }> =
        [];
      let n = 0;
      for (const [a, account] of accounts.entries()) {
        for (let k = 0; k < PER_ACCOUNT; k++) {
          const bad = a % 9 === 0 && k === 0 ? hostile[(a / 9) % hostile.length] : undefined;
          const attrs = {
            request_type: 'bill_of_lading',
            request_number: `MIX${String(n++).padStart(7, '0')}`,
            scac: 'MSCU',
            ref_numbers: [`PO-${a}-${k}`],
            ...bad,
          };
          const rawBody = JSON.stringify(trBody(attrs)).replace('"HUGE_NUMBER"', '1e400');
          jobs.push({
            hostile: bad !== undefined,
            run: () =>
              t.request('POST', '/v2/tracking_requests', {
                key: account.key,
                rawBody,
                headers: { 'content-type': 'application/vnd.api+json' },
              }),
          });
        }
      }
      assert.ok(jobs.filter((j) => j.hostile).length >= hostile.length);
      const results = await Promise.all(jobs.map((j) => j.run()));
      for (const [i, res] of results.entries()) {
        if (jobs[i]!.hostile) {
          assertJsonApiError(res);
          assert.ok(res.body.errors[0].source?.pointer?.startsWith('/data/attributes/'), res.text);
        } else {
          assert.equal(res.status, 201, `request ${i}: ${res.status} ${res.text.slice(0, 300)}`);
        }
      }
      for (const account of accounts.slice(1, 4)) {
        const list = await t.request('GET', '/v2/tracking_requests', { key: account.key });
        assert.equal(list.body.meta.total, PER_ACCOUNT);
      }
    });

    test('a row the database refuses in a shared INSERT fails only its own caller', async () => {
      const insert = batchedTrackingRequestInsert(t.database.db);
      const owners = await Promise.all(
        Array.from({ length: 10 }, (_, i) => createAccount(t.database.db, `batch ${i}`)),
      );
      // Queued in one turn, so they share one statement; the bad rows bypass HTTP validation.
      const calls = Array.from({ length: 40 }, (_, i) =>
        insert(owners[i % owners.length]!.account.id, input(1000 + i)),
      );
      const nul = insert(owners[0]!.account.id, input(2000, { ref_numbers: ['bad\u0000'] }));
      const deletedAccount = insert(randomUUID(), input(2001));
      const duplicate = insert(owners[1]!.account.id, input(1001));
      const settled = await Promise.allSettled([...calls, nul, deletedAccount, duplicate]);
      const [bad1, bad2, dup] = settled.slice(-3);
      for (const [i, s] of settled.slice(0, -3).entries()) {
        assert.equal(s.status, 'fulfilled', `row ${i}: ${s.status === 'rejected' ? s.reason : ''}`);
        if (s.status === 'fulfilled') assert.equal(s.value.request_number, input(1000 + i).request_number);
      }
      assert.equal(bad1!.status, 'rejected');
      assert.equal(bad2!.status, 'rejected');
      assert.equal(dup!.status, 'rejected');
      assert.ok(dup!.status === 'rejected' && dup!.reason instanceof DuplicateTrackingRequest);
      // A batch of one that fails is not retried: its caller gets the error.
      await assert.rejects(insert(owners[0]!.account.id, input(3000, { shipment_tags: ['\u0000'] })));
    });
  });
}
