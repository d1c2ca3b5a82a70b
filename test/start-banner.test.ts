import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startBanner } from '../src/start-banner.ts';

const account = (n: number) => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  name: `a${n}`,
  created_at: new Date(0),
});

test('the banner of a database with accounts names at most three and points at accounts list', () => {
  const few = startBanner('http://x', { accounts: [account(1)] });
  assert.match(
    few,
    /npm run cli -- api-keys create --account 00000000-0000-4000-8000-000000000001 {3}\(a1\)/,
  );
  assert.doesNotMatch(few, /accounts list/);
  const many = startBanner('http://x', { accounts: [1, 2, 3, 4, 5].map(account) });
  assert.equal(many.match(/api-keys create/g)?.length, 3);
  assert.match(many, /\(2 more: npm run cli -- accounts list\)/);
  assert.match(many, /API: {2}http:\/\/x\/v2/);
});
