// One process migrating a PostgreSQL database, for test/db/migrate-race.test.ts: loads, says
// "ready", waits for a line on stdin (so the test starts several at the same moment), migrates
// (argv: the database URL, and optionally a directory of other migration files), and prints the
// versions it applied as one line of JSON.
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { openPostgres } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';

const [url, dir] = process.argv.slice(2);
const database = await openPostgres(url!, 2);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.destroy(); // an open stdin would keep the process alive
const applied = await migrate(database, dir ? pathToFileURL(`${dir}/`) : undefined);
process.stdout.write(`${JSON.stringify({ applied })}\n`);
await database.close();
