import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, revokeApiKey } from '../../src/accounts/service.ts';
import { type ChangeSubscriber, startChangeFeed } from '../../src/db/change-feed.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

// The change feed publishes what the database notifies to every subscriber, in order, and knows no
// cache: the caches subscribe where the app is wired (src/http/cache-subscriber.ts).

/** A subscriber that records what it was told. */
function recorder(name: string, log: string[]): ChangeSubscriber {
  return {
    changed: (accountId) => log.push(`${name} changed ${accountId}`),
    keysRevoked: () => log.push(`${name} keys`),
    listening: (up) => log.push(`${name} listening ${up}`),
  };
}

/** Waits (at most 5 s) until `ok()`: NOTIFY arrives a moment after the commit. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(ok(), what);
}

for (const engine of ENGINES) {
  describe(`change feed [${engine}]`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await createTestDatabase(engine);
    });
    after(() => db.destroy());

    test('every subscriber hears listening, account writes and key revocations, in subscription order', async () => {
      const log: string[] = [];
      const partial: ChangeSubscriber = { keysRevoked: () => log.push('partial keys') };
      const stop = await startChangeFeed(db, [recorder('a', log), partial, recorder('b', log)]);
      try {
        await until(() => log.includes('b listening true'), 'both full subscribers told the feed listens');
        assert.deepEqual(log.slice(0, 2), ['a listening true', 'b listening true']);

        const { account, keyId } = await createAccount(db.db, 'feed');
        log.length = 0;
        await seedShipment(db.db, account.id);
        await until(() => log.includes(`b changed ${account.id}`), 'a write to the account is published');
        const firstA = log.indexOf(`a changed ${account.id}`);
        assert.ok(firstA >= 0 && firstA < log.indexOf(`b changed ${account.id}`), 'a before b');
        assert.ok(!log.some((l) => l.endsWith(' keys')), 'no key revocation published for a data write');

        log.length = 0;
        assert.equal(await revokeApiKey(db.db, keyId), true);
        await until(() => log.includes('b keys'), 'a key revocation is published');
        assert.deepEqual(
          log.filter((l) => l.endsWith(' keys')),
          ['a keys', 'partial keys', 'b keys'],
        );
      } finally {
        await stop();
      }
    });
  });
}
