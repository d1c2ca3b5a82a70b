import { parseArgs } from 'node:util';
import {
  createAccount,
  createApiKey,
  findAccount,
  listAccounts,
  listApiKeys,
  revokeApiKey,
} from '../accounts/service.ts';
import { bootstrap } from '../bootstrap.ts';
import type { NumberType } from '../carriers/types.ts';
import { configOrExit, SETTINGS } from '../config.ts';
import { BackupError, backup, restore } from '../db/backup.ts';
import { inboundAddress } from '../mail/addresses.ts';
import { carriersCheck } from './carriers-check.ts';
import { printDbUrl } from './db-url.ts';
import { seed, stderrProgress } from './seed.ts';

const USAGE = `Usage: npm run cli -- <command>   (help: npm run cli -- --help)

  accounts create <name> [--json]        create an account and its first API key (and its inbound e-mail address)
  accounts list [--json]                 every account: id, name, created, live (not revoked) keys
  accounts show <id> [--json]            an account and its inbound e-mail address
  api-keys create --account <id> [--json] issue another key for an account
  api-keys list --account <id> [--json]   list an account's keys (never the secrets)
  api-keys revoke <key-id>               revoke a key
  migrate                                apply pending database migrations
  seed --account <id> [--shipments N] [--containers-per-shipment N] [--events-per-container N] [--no-refresh]
                                         bulk-load realistic test data (progress on stderr)
  carriers check [SCAC] [--number N --type T [--container C]...]
                                         check each CARRIERS_CONFIG connection (token, endpoint, one look-up)
  config                                 print the configuration variables (Markdown)
  db url                                 print the postgres:// URL of the running database
  db backup <file>                       write a consistent backup of the service's data
  db restore <file> [--force]            load a backup into an empty database (--force: replace its data)
`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    account: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    shipments: { type: 'string' },
    'containers-per-shipment': { type: 'string' },
    'events-per-container': { type: 'string' },
    'no-refresh': { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    number: { type: 'string' },
    type: { type: 'string' },
    container: { type: 'string', multiple: true },
  },
  allowPositionals: true,
});
const [group, action, ...rest] = positionals;
// Asking for help is not an error: usage on stdout, exit 0. No command at all is a usage error.
if (values.help || group === 'help') {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!group) fail('No command given.');

if (group === 'config') {
  process.stdout.write('| Variable | Default | Meaning |\n|---|---|---|\n');
  for (const s of SETTINGS) process.stdout.write(`| \`${s.name}\` | \`${s.default}\` | ${s.description} |\n`);
  process.exit(0);
}

if (group === 'db' && action === 'url') await printDbUrl();

// No database: the check talks to carriers only.
if (group === 'carriers' && action === 'check') {
  const type = values.type as NumberType | undefined;
  if (type !== undefined && !['bill_of_lading', 'booking_number', 'container'].includes(type))
    fail('--type must be bill_of_lading, booking_number or container');
  const { carriers } = configOrExit();
  const line = (l: string) => process.stdout.write(`${l}\n`);
  const options = { scac: rest[0], number: values.number, type, containers: values.container ?? [] };
  process.exit(await carriersCheck(carriers, options, line));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SEED_COUNTS = ['shipments', 'containers-per-shipment', 'events-per-container'] as const;

/**
 * What is wrong with the command line, or null. Checked before the database is opened: opening
 * it (embedded, with no server running) takes seconds, and a usage error must neither wait for
 * that nor leave a process exiting with the database open.
 */
function usageProblem(): string | null {
  const isId = (v: string | undefined) => v !== undefined && UUID.test(v);
  const command = `${group} ${action ?? ''}`.trim();
  switch (command) {
    case 'migrate':
    case 'accounts list':
      return null;
    case 'accounts create':
      return rest.join(' ').trim() ? null : 'accounts create needs a name';
    case 'accounts show':
      return isId(rest[0]) ? null : 'accounts show needs an account id';
    case 'api-keys create':
    case 'api-keys list':
      return isId(values.account) ? null : `${command} needs --account <account id>`;
    case 'api-keys revoke':
      return isId(rest[0]) ? null : 'api-keys revoke needs a key id';
    case 'db backup':
    case 'db restore':
      return rest[0] ? null : `${command} needs a file name`;
  }
  if (group === 'seed' && !action) {
    if (!isId(values.account)) return 'seed needs --account <account id>';
    const bad = SEED_COUNTS.find((name) => values[name] !== undefined && !/^\d+$/.test(values[name]));
    return bad ? `--${bad} must be a positive integer` : null;
  }
  return `Unknown command: ${positionals.join(' ')}`;
}

const problem = usageProblem();
if (problem) fail(problem);

/** A refusal found in the data (no such account): a message and exit status 1, not a stack trace. */
class Refusal extends Error {}

const { database, config } = await bootstrap({}, { LOG_LEVEL: 'warn' }, { embeddedRole: 'cli' });
const db = database.db;
const out = (json: unknown, text: string) =>
  process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);

try {
  if (group === 'migrate') {
    out({ migrated: true }, 'Database is up to date.');
  } else if (group === 'seed') {
    const num = (v: string | undefined, def: number) => (v === undefined ? def : Number(v));
    const result = await seed(
      db,
      {
        accountId: values.account!,
        shipments: num(values.shipments, 1000),
        containersPerShipment: num(values['containers-per-shipment'], 3),
        eventsPerContainer: num(values['events-per-container'], 34),
        refresh: !values['no-refresh'],
      },
      values.json ? () => {} : stderrProgress(),
    );
    out(
      result,
      `Seeded ${result.shipments} shipments, ${result.containers} containers, ${result.events} transport events in ${(result.elapsedMs / 1000).toFixed(1)} s.`,
    );
  } else if (group === 'accounts' && action === 'create') {
    const name = rest.join(' ').trim();
    const { account, apiKey, keyId } = await createAccount(db, name);
    const inbound = await inboundAddress(db, account.id, config.mail.inboundDomain);
    out(
      {
        account_id: account.id,
        name: account.name,
        api_key: apiKey,
        api_key_id: keyId,
        inbound_email: inbound,
      },
      `Account ${account.id} (${account.name}) created.\nAPI key (shown once): ${apiKey}\nInbound e-mail: ${inbound}`,
    );
  } else if (group === 'accounts' && action === 'list') {
    const accounts = await listAccounts(db);
    out(
      accounts.map((a) => ({
        account_id: a.id,
        name: a.name,
        created_at: a.created_at,
        live_keys: a.live_keys,
      })),
      accounts.length
        ? accounts
            .map((a) => `${a.id}  ${a.name}  created ${a.created_at.toISOString()}  ${a.live_keys} live keys`)
            .join('\n')
        : 'No accounts.',
    );
  } else if (group === 'accounts' && action === 'show') {
    const id = rest[0]!;
    const account = await findAccount(db, id);
    if (!account) throw new Refusal(`No account ${id}`);
    const inbound = await inboundAddress(db, account.id, config.mail.inboundDomain);
    out(
      { account_id: account.id, name: account.name, created_at: account.created_at, inbound_email: inbound },
      `Account ${account.id} (${account.name}), created ${account.created_at.toISOString()}\nInbound e-mail: ${inbound}`,
    );
  } else if (group === 'api-keys' && action === 'create') {
    const account = values.account!;
    const k = await createApiKey(db, account);
    if (!k) throw new Refusal(`No account ${account}`);
    out({ account_id: account, api_key: k.key, api_key_id: k.id }, `API key ${k.id} (shown once): ${k.key}`);
  } else if (group === 'api-keys' && action === 'list') {
    const keys = await listApiKeys(db, values.account!);
    out(
      keys.map(({ id, prefix, name, created_at, last_used_at, revoked_at }) => ({
        id,
        prefix,
        name,
        created_at,
        last_used_at,
        revoked_at,
      })),
      keys.length
        ? keys
            .map(
              (k) =>
                `${k.id}  ${k.prefix}…  created ${k.created_at.toISOString()}  last used ${k.last_used_at?.toISOString() ?? 'never'}  ${k.revoked_at ? `revoked ${k.revoked_at.toISOString()}` : 'active'}`,
            )
            .join('\n')
        : 'No keys.',
    );
  } else if (group === 'api-keys' && action === 'revoke') {
    const id = rest[0]!;
    if (!(await revokeApiKey(db, id))) throw new Refusal(`No API key ${id}`);
    out({ revoked: id }, `API key ${id} revoked.`);
  } else if (group === 'db' && (action === 'backup' || action === 'restore')) {
    const file = rest[0]!;
    if (action === 'backup') {
      const r = await backup(database, file);
      out(r, `Backed up ${r.rows} rows of ${r.tables} tables to ${file}.`);
    } else {
      const r = await restore(database, file, { force: values.force });
      out(r, `Restored ${r.rows} rows of ${r.tables} tables from ${file}.`);
    }
  }
} catch (err) {
  // Expected refusals (e.g. restoring into a non-empty database) are messages, not stack traces.
  if (!(err instanceof BackupError || err instanceof Refusal)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
