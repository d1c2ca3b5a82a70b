import { join } from 'node:path';
import { createAccount } from '../../src/accounts/service.ts';
import { seed } from '../../src/cli/seed.ts';
import { openPglite } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { type Ctx, httpScenario, startApi } from '../lib/context.ts';
import { peakRssMb } from '../lib/proc.ts';

// What the default gives: the API on embedded PGlite (DATA_DIR in a temp dir, no DATABASE_URL),
// loaded like the first scenario. No goal yet: reported so users know.

export async function pgliteScenario(ctx: Ctx): Promise<void> {
  const dataDir = join(ctx.tmp, 'pglite');
  const database = await openPglite(dataDir);
  let key: string;
  let shipmentId: string;
  try {
    await migrate(database);
    const { account, apiKey } = await createAccount(database.db, 'bench-pglite');
    key = apiKey;
    await seed(database.db, {
      accountId: account.id,
      shipments: 20,
      containersPerShipment: 3,
      eventsPerContainer: 40,
      refresh: false,
    });
    shipmentId = (
      await database.db
        .selectFrom('shipments')
        .select('id')
        .where('account_id', '=', account.id)
        .executeTakeFirstOrThrow()
    ).id;
  } finally {
    await database.close();
  }
  const api = await startApi(ctx, { DATA_DIR: dataDir, DATABASE_URL: '' });
  try {
    const r = await httpScenario(ctx, {
      id: 'pglite_get_shipment',
      name: 'Embedded PGlite: GET /v2/shipments/{id}?include=containers (3 containers)',
      url: api.url,
      path: `/v2/shipments/${shipmentId}?include=containers`,
      key,
      pid: api.proc.pid,
    });
    r.notes = [r.notes, `API peak RSS ${peakRssMb(api.proc.pid)} MB; no goal yet`].filter(Boolean).join('; ');
  } finally {
    await api.proc.stop();
  }
}
