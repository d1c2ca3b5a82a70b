// Configuration errors: the real processes (`npm start` = src/main.ts, and the CLI) exit with status 2 and a
// message naming the variable (and, for CARRIERS_CONFIG, the file and the field's path), never a stack
// trace, and before touching the database. Every entry point runs loadConfig first and prints its
// ConfigError as it is (configOrExit), so each variable's bad value is proven named by loadConfig in
// this process, and real processes prove that path for one value of each kind (a process costs ~2 s
// of a 2-core machine; one per variable was a minute of the suite).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig, SETTINGS } from '../../src/config.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'config-exit-'));
const dataDir = join(dir, 'data'); // never created: a config error must exit before the database opens
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const CARRIER = (over: Record<string, string> = {}) => {
  const f = {
    scac: 'MAEU',
    adapter: 'dcsa-tnt-v2',
    base_url: 'https://api.example.com/dcsa',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an env reference written into the YAML
    key: '"${MAEU_KEY}"',
    rpm: '60',
    types: '[bill_of_lading]',
    ...over,
  };
  return `- scac: ${f.scac}
  adapter: ${f.adapter}
  base_url: ${f.base_url}
  auth: {type: headers, headers: {Consumer-Key: ${f.key}}}
  requests_per_minute: ${f.rpm}
  number_types: ${f.types}
`;
};

/** [variables, what stderr must contain]. */
const CASES: [Record<string, string>, RegExp][] = [
  [{ PORT: 'abc' }, /PORT must be an integer .*"abc"/],
  [{ PORT: '70000' }, /PORT must be an integer between 0 and 65535/],
  [{ HOST: 'not a host' }, /HOST must be an IP address or a host name/],
  [{ DATA_DIR: file('plain-file', 'x') }, /DATA_DIR: .*plain-file is not a directory/],
  [{ DATABASE_URL: 'mysql://u:hunter2@db/x' }, /DATABASE_URL must start with postgres:\/\//],
  [{ DATABASE_URL: 'postgres://[bad' }, /DATABASE_URL must be a URL/],
  [{ DB_POOL_SIZE: '0' }, /DB_POOL_SIZE must be an integer between 1 and 1000/],
  [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of fatal, .*"loud"/],
  [{ AIS_FEED_URL: 'ftp://feed.example' }, /AIS_FEED_URL must start with http:\/\/ or https:\/\//],
  [{ AIS_FEED_URL: 'http://feed.example/?key=1' }, /AIS_FEED_URL must be a base URL without query/],
  [{ PUBLIC_BASE_URL: 'ftp://x.example' }, /PUBLIC_BASE_URL must start with http:\/\/ or https:\/\//],
  [{ PUBLIC_BASE_URL: 'https://x.example/app' }, /PUBLIC_BASE_URL must be an origin/],
  [{ PUBLIC_BASE_URL: 'track.example.com' }, /PUBLIC_BASE_URL must be a URL/],
  [{ BODY_LIMIT_BYTES: '1e6' }, /BODY_LIMIT_BYTES must be an integer .*"1e6"/],
  [{ DATABASE_PREPARED_STATEMENTS: 'always' }, /DATABASE_PREPARED_STATEMENTS must be one of auto, off/],
  [{ DATABASE_LISTEN_URL: 'mysql://db/x' }, /DATABASE_LISTEN_URL must start with postgres:\/\//],
  [{ EMBEDDED_IDLE_IN_TRANSACTION_MS: '-1' }, /EMBEDDED_IDLE_IN_TRANSACTION_MS must be an integer/],
  [{ EMBEDDED_STATEMENT_TIMEOUT_MS: '2s' }, /EMBEDDED_STATEMENT_TIMEOUT_MS must be an integer/],
  [{ IMPORT_MAX_ROWS: '0' }, /IMPORT_MAX_ROWS must be an integer/],
  [{ IMPORT_MAX_BYTES: '1MB' }, /IMPORT_MAX_BYTES must be an integer/],
  [{ RATE_LIMIT_CREATE_PER_MINUTE: '0' }, /RATE_LIMIT_CREATE_PER_MINUTE must be an integer/],
  [{ RATE_LIMIT_DEFAULT_PER_MINUTE: '-5' }, /RATE_LIMIT_DEFAULT_PER_MINUTE must be an integer/],
  [{ RATE_LIMIT_INFER_PER_MINUTE: 'many' }, /RATE_LIMIT_INFER_PER_MINUTE must be an integer/],
  [{ RATE_LIMIT_REFRESH_PER_MINUTE: '1.5' }, /RATE_LIMIT_REFRESH_PER_MINUTE must be an integer/],
  [{ RATE_LIMIT_BATCH_MAX: '0x10' }, /RATE_LIMIT_BATCH_MAX must be an integer/],
  [{ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0' }, /RATE_LIMIT_AUTH_FAILURES_PER_MINUTE must be/],
  [{ REQUEST_TIMEOUT_MS: 'soon' }, /REQUEST_TIMEOUT_MS must be an integer/],
  [{ TRUST_PROXY: '10.0.0.0/99' }, /TRUST_PROXY/],
  [{ EMBEDDED_DB_PORT: '70000' }, /EMBEDDED_DB_PORT must be an integer between 0 and 65535/],
  [{ EMBEDDED_LOCK_WAIT_MS: 'long' }, /EMBEDDED_LOCK_WAIT_MS must be an integer/],
  [{ EMBEDDED_VACUUM_INTERVAL_MS: '-1' }, /EMBEDDED_VACUUM_INTERVAL_MS must be an integer/],
  [{ EMBEDDED_ANALYZE_CHECK_MS: '-1' }, /EMBEDDED_ANALYZE_CHECK_MS must be an integer/],
  [{ DOCUMENT_MAX_BYTES: '10' }, /DOCUMENT_MAX_BYTES must be an integer/],
  [{ DOCUMENT_READER_IDLE_MS: '0' }, /DOCUMENT_READER_IDLE_MS must be an integer/],
  [{ DOCUMENT_READ_TIMEOUT_MS: 'soon' }, /DOCUMENT_READ_TIMEOUT_MS must be an integer/],
  [{ DOCUMENT_DOWNLOAD_URL_TTL_MS: '0' }, /DOCUMENT_DOWNLOAD_URL_TTL_MS must be an integer/],
  [{ DOCUMENTS_AUTO_TRACK: 'maybe' }, /DOCUMENTS_AUTO_TRACK/],
  [{ DOCUMENT_STORAGE: 'ftp' }, /DOCUMENT_STORAGE must be one of fs, s3/],
  [{ DOCUMENT_STORAGE: 's3', DOCUMENT_S3_BUCKET: 'b' }, /DOCUMENT_STORAGE=s3 needs DOCUMENT_S3_ENDPOINT/],
  [{ DOCUMENT_S3_ENDPOINT: 'ftp://s3' }, /DOCUMENT_S3_ENDPOINT must start with http/],
  [{ DOCUMENT_OCR: 'sometimes' }, /DOCUMENT_OCR/],
  [{ DOCUMENT_WORKER_CONCURRENCY: '0' }, /DOCUMENT_WORKER_CONCURRENCY must be an integer/],
  [{ DOCUMENT_RETRY_BASE_MS: '-1' }, /DOCUMENT_RETRY_BASE_MS must be an integer/],
  [{ DOCUMENT_RETRY_MAX: '1000' }, /DOCUMENT_RETRY_MAX must be an integer/],
  [{ SMTP_PORT: 'smtp' }, /SMTP_PORT must be an integer/],
  [{ SMTP_HOST: 'not a host' }, /SMTP_HOST must be an IP address or a host name/],
  [{ INBOUND_EMAIL_DOMAIN: 'bad domain!' }, /INBOUND_EMAIL_DOMAIN must be an IP address or a host name/],
  [{ SMTP_MAX_BYTES: '1' }, /SMTP_MAX_BYTES must be an integer/],
  [{ SMTP_OUT_URL: 'http://mail.example.com' }, /SMTP_OUT_URL must start with smtp:\/\/ or smtps:\/\//],
  [{ SMTP_OUT_URL: 'smtp://u:hunter2@mail.example.com?tls=maybe' }, /SMTP_OUT_URL: the only query parameter/],
  [{ ALERT_FROM: 'not an address' }, /ALERT_FROM must be an e-mail address/],
  [{ ALERT_MAX_RECIPIENTS: '0' }, /ALERT_MAX_RECIPIENTS must be an integer between 1 and 1000/],
  [{ ALERT_MAX_RULES: 'many' }, /ALERT_MAX_RULES must be an integer/],
  [{ ALERT_DIGEST_MAX_EVENTS: '0' }, /ALERT_DIGEST_MAX_EVENTS must be an integer/],
  [{ ALERT_CONCURRENCY: '0' }, /ALERT_CONCURRENCY must be an integer/],
  [{ ALERT_RETRY_SCHEDULE: '5s,soon' }, /ALERT_RETRY_SCHEDULE: /],
  [{ RESPONSE_CACHE_MB: '99999' }, /RESPONSE_CACHE_MB must be an integer between 0 and 4096/],
  [{ RESPONSE_CACHE_TTL_MS: '0' }, /RESPONSE_CACHE_TTL_MS must be an integer/],
  [{ ROLE: 'boss' }, /--role \/ ROLE must be one of api, worker, all/],
  [{ WORKER_POLL_INTERVAL_MS: '0' }, /WORKER_POLL_INTERVAL_MS must be an integer/],
  [{ WORKER_LEASE_MS: '5' }, /WORKER_LEASE_MS must be an integer between 10/],
  [{ WORKER_CONCURRENCY: '1001' }, /WORKER_CONCURRENCY must be an integer between 1 and 1000/],
  [{ TRACKING_RETRY_BASE_MS: 'soon' }, /TRACKING_RETRY_BASE_MS must be an integer/],
  [{ TRACKING_RETRY_MAX: '101' }, /TRACKING_RETRY_MAX must be an integer between 0 and 100/],
  [{ AWAITING_MANIFEST_INTERVAL_MS: '0' }, /AWAITING_MANIFEST_INTERVAL_MS must be an integer/],
  [{ AWAITING_MANIFEST_MAX_MS: '-1' }, /AWAITING_MANIFEST_MAX_MS must be an integer/],
  [{ REFRESH_INTERVAL_MS: '6h' }, /REFRESH_INTERVAL_MS must be an integer/],
  [{ REFRESH_NEAR_ARRIVAL_MS: '0' }, /REFRESH_NEAR_ARRIVAL_MS must be an integer/],
  [{ STOP_ARRIVAL_WINDOW_MS: '0' }, /STOP_ARRIVAL_WINDOW_MS must be an integer/],
  [{ STOP_FULL_OUT_WINDOW_MS: 'x' }, /STOP_FULL_OUT_WINDOW_MS must be an integer/],
  [{ STOP_NO_UPDATES_WINDOW_MS: '0' }, /STOP_NO_UPDATES_WINDOW_MS must be an integer/],
  [{ WEBHOOK_SIGNATURE_HEADER: 'Bad Header' }, /WEBHOOK_SIGNATURE_HEADER must be an HTTP header name/],
  [{ WEBHOOK_ALLOW_HTTP: 'maybe' }, /WEBHOOK_ALLOW_HTTP must be true or false, got "maybe"/],
  [{ WEBHOOK_ALLOWLIST: '127.0.0.1:99999' }, /WEBHOOK_ALLOWLIST entry "127.0.0.1:99999": port must be 1/],
  [{ WEBHOOK_ALLOWLIST: '10.0.0.0/8,bad host!' }, /WEBHOOK_ALLOWLIST entry "bad host!": .*not a valid host/],
  [{ WEBHOOK_ALLOWLIST: '10.0.0.0/33' }, /WEBHOOK_ALLOWLIST entry "10.0.0.0\/33": prefix length/],
  [{ WEBHOOK_ALLOWLIST: '[::1' }, /WEBHOOK_ALLOWLIST entry "\[::1": unbalanced brackets/],
  [{ WEBHOOK_ALLOWLIST: '[10.0.0.1]:80' }, /WEBHOOK_ALLOWLIST entry "\[10.0.0.1\]:80": .*not an IPv6/],
  [{ WEBHOOK_ALLOWLIST: '::1:9000:x' }, /WEBHOOK_ALLOWLIST entry "::1:9000:x": .*not an IPv6/],
  [{ WEBHOOK_ALLOWLIST: '10.0.0.300' }, /WEBHOOK_ALLOWLIST entry "10.0.0.300": .*not an IPv4/],
  [{ WEBHOOK_ALLOWLIST: 'hooks.internal:' }, /WEBHOOK_ALLOWLIST entry "hooks.internal:": port must be/],
  [{ WEBHOOK_ALLOWLIST: 'hooks.internal:0' }, /WEBHOOK_ALLOWLIST entry "hooks.internal:0": port must be/],
  [{ WEBHOOK_SOURCE_IPS: '203.0.113.9,nope' }, /WEBHOOK_SOURCE_IPS entry "nope": not an IP address/],
  [{ WEBHOOK_RETRY_SCHEDULE: '5s,soon' }, /WEBHOOK_RETRY_SCHEDULE: /],
  [{ WEBHOOK_CONNECT_TIMEOUT_MS: '0' }, /WEBHOOK_CONNECT_TIMEOUT_MS must be an integer/],
  [{ WEBHOOK_TIMEOUT_MS: '0' }, /WEBHOOK_TIMEOUT_MS must be an integer/],
  [{ WEBHOOK_CONCURRENCY: '0' }, /WEBHOOK_CONCURRENCY must be an integer/],
  [{ WEBHOOK_PER_ENDPOINT_CONCURRENCY: '0' }, /WEBHOOK_PER_ENDPOINT_CONCURRENCY must be an integer/],
  [{ WEBHOOK_DEACTIVATE_AFTER_MS: '0' }, /WEBHOOK_DEACTIVATE_AFTER_MS must be an integer/],
  [{ WEBHOOK_DEACTIVATE_MIN_SPAN_MS: '-1' }, /WEBHOOK_DEACTIVATE_MIN_SPAN_MS must be an integer/],
  [{ WEBHOOK_SECRET_GRACE_MS: '1d' }, /WEBHOOK_SECRET_GRACE_MS must be an integer/],
  [{ METRICS: 'maybe' }, /METRICS must be one of off, open, token/],
  [{ METRICS: 'token' }, /METRICS=token needs METRICS_TOKEN/],
  [{ API_PROCESSES: '0' }, /API_PROCESSES \/ --processes must be an integer between 1 and 64/],
  [{ API_PROCESSES: '2' }, /API_PROCESSES \(--processes\) above 1 needs DATABASE_URL/],
  [{ METRICS_PORT: '99999' }, /METRICS_PORT must be an integer between 1 and 65535/],
  [{ CARRIERS_CONFIG: join(dir, 'missing.yaml') }, /CARRIERS_CONFIG .*missing\.yaml: cannot read the file/],
  [{ CARRIERS_CONFIG: file('bad.json', '[{"scac": ') }, /CARRIERS_CONFIG .*bad\.json: not valid JSON/],
  [{ CARRIERS_CONFIG: file('bad.yaml', '- scac: [MAEU\n  adapter: x\n') }, /bad\.yaml: not valid YAML/],
  [{ CARRIERS_CONFIG: file('map.yaml', 'scac: MAEU\n') }, /map\.yaml: must be a list of carrier/],
  [
    { CARRIERS_CONFIG: file('adapter.yaml', CARRIER({ adapter: 'soap-v1' })), MAEU_KEY: 'k' },
    /adapter\.yaml: carriers\[0\] \(MAEU\)\.adapter: must be one of dcsa-tnt-v2, dcsa-tnt-v3, got "soap-v1"/,
  ],
  [
    { CARRIERS_CONFIG: file('scac.yaml', CARRIER({ scac: 'M4EU' })), MAEU_KEY: 'k' },
    /scac\.yaml: carriers\[0\] \(M4EU\)\.scac: required, 2 to 4 letters/,
  ],
  [
    { CARRIERS_CONFIG: file('secret.yaml', CARRIER()) },
    /secret\.yaml: carriers\[0\] \(MAEU\)\.auth\.headers\.Consumer-Key: environment variable MAEU_KEY is not set/,
  ],
  [
    { CARRIERS_CONFIG: file('fields.yaml', CARRIER({ rpm: '-1', types: '[bol]' })), MAEU_KEY: 'k' },
    /requests_per_minute: required, a number above 0[\s\S]*number_types\[0\]: must be one of/,
  ],
  [
    { CARRIERS_CONFIG: file('url.json', '[{"scac":"MAEU","adapter":"dcsa-tnt-v2","base_url":"ftp://x"}]') },
    /url\.json: carriers\[0\] \(MAEU\)\.base_url: must be an http or https URL[\s\S]*\.auth: required/,
  ],
  [
    {
      TERMINALS_CONFIG: file(
        'terminals.json',
        '[{"adapter":"sim-terminal","base_url":"http://127.0.0.1:4000","facilities":["lb ct"],"requests_per_minute":0}]',
      ),
    },
    /TERMINALS_CONFIG .*terminals\.json: terminals\[0\]\.facilities\[0\]: not an SMDG terminal code: "lb ct"[\s\S]*requests_per_minute: required/,
  ],
  [{ TERMINAL_CHECK_INTERVAL_MS: '0' }, /TERMINAL_CHECK_INTERVAL_MS must be an integer/],
];

interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
}

/** What every run starts from: a loopback server on any port, over a data directory never created. */
const BASE = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir };

/** Runs a real process with a clean environment (nothing inherited but PATH), killed after 20 s. */
function run(args: string[], env: Record<string, string>): Promise<Run> {
  const base = { PATH: process.env.PATH ?? '', ...BASE };
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...base, ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Runs `items` through `fn`, `limit` at a time (the machine is shared: a bounded number of processes). */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return out;
}

function assertConfigExit(r: Run, expected: RegExp, what: string) {
  assert.equal(r.code, 2, `${what}: exit code ${r.code}\n${r.stderr}${r.stdout}`);
  assert.match(r.stderr, expected, what);
  assert.doesNotMatch(
    r.stderr,
    /\n\s+at .*\(|\bat file:|node:internal/,
    `${what}: a stack trace\n${r.stderr}`,
  );
  assert.doesNotMatch(r.stderr, /hunter2/, `${what}: a password echoed`);
}

after(() => rmSync(dir, { recursive: true, force: true }));

describe('configuration errors exit 2 naming the variable', () => {
  test('every variable has a bad-value case', () => {
    const covered = new Set(CASES.flatMap(([env]) => Object.keys(env)));
    covered.add('METRICS_TOKEN'); // named by the METRICS=token case: any token string is valid
    // Free-form strings: any value is valid (secrets, names, a directory created on first use).
    for (const name of [
      'TRACKER_API_KEY',
      'DOCUMENT_URL_SECRET',
      'DOCUMENT_STORAGE_DIR',
      'DOCUMENT_S3_REGION',
      'DOCUMENT_S3_BUCKET',
      'DOCUMENT_S3_ACCESS_KEY_ID',
      'DOCUMENT_S3_SECRET_ACCESS_KEY',
    ])
      covered.add(name);
    const missing = SETTINGS.map((s) => s.name).filter((n) => !covered.has(n));
    assert.deepEqual(missing, [], `add a bad-value case for: ${missing.join(', ')}`);
  });

  test(`${CASES.length} bad values: loadConfig names each one`, () => {
    for (const [env, expected] of CASES) {
      const what = JSON.stringify(env);
      assert.throws(
        () => loadConfig({ ...BASE, ...env }),
        (err) => {
          assert.ok(err instanceof ConfigError, `${what}: ${err}`);
          assert.match(err.message, expected, what);
          assert.doesNotMatch(err.message, /hunter2/, `${what}: a password echoed`);
          return true;
        },
        what,
      );
    }
  });

  test('npm start (src/main.ts) exits 2 with that message, for a value of each kind', async () => {
    // An integer, a URL with a password, a path on disk, a list, a file and the field's path in it
    // (the carriers' and the terminals'), and a check across variables.
    const kind = (name: string, value?: string) =>
      CASES.find(([env]) => name in env && (value === undefined || env[name]!.includes(value)))!;
    const kinds = [
      kind('PORT'),
      kind('DATABASE_URL', 'hunter2'),
      kind('DATA_DIR'),
      kind('WEBHOOK_ALLOWLIST'),
      kind('CARRIERS_CONFIG', 'adapter.yaml'),
      kind('TERMINALS_CONFIG'),
      kind('API_PROCESSES', '2'),
    ];
    const runs = await pool(kinds, 4, ([env]) => run(['src/main.ts'], env));
    runs.forEach((r, i) => {
      const [env, expected] = kinds[i]!;
      assertConfigExit(r, expected, JSON.stringify(env));
    });
    assert.deepEqual(readdirSync(dir).includes('data'), false, 'the database was never opened');
  });

  test('every problem of one configuration is reported at once', async () => {
    const r = await run(['src/main.ts'], { PORT: 'x', WEBHOOK_ALLOWLIST: 'a b', METRICS: 'no' });
    assertConfigExit(r, /Invalid configuration:/, 'several');
    for (const name of ['PORT', 'WEBHOOK_ALLOWLIST', 'METRICS'])
      assert.match(r.stderr, new RegExp(`- ${name}\\b`));
  });

  test('the flags of npm start are validated like their variables', async () => {
    const cases: [string[], RegExp][] = [
      [['--role', 'boss'], /--role \/ ROLE must be one of api, worker, all, got "boss"/],
      [
        ['--processes', 'many'],
        /API_PROCESSES \/ --processes must be an integer between 1 and 64, got "many"/,
      ],
      [['--bogus'], /Unknown option '--bogus'[\s\S]*Usage: npm start/],
    ];
    const runs = await pool(cases, 3, ([args]) => run(['src/main.ts', ...args], {}));
    runs.forEach((r, i) => {
      assertConfigExit(r, cases[i]![1], cases[i]![0].join(' '));
    });
  });

  test('the CLI refuses a bad command line with exit 2, before it opens the database', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const cases: [string[], RegExp][] = [
      [['accounts', 'remove'], /Unknown command: accounts remove[\s\S]*Usage: npm run cli/],
      [['seed'], /seed needs --account <account id>/],
      [['seed', '--account', id, '--shipments', 'many'], /--shipments must be a positive integer/],
      [['accounts', 'show', 'nobody'], /accounts show needs an account id/],
      [['api-keys', 'list'], /api-keys list needs --account <account id>/],
      [['db', 'restore'], /db restore needs a file name/],
    ];
    const runs = await pool(cases, 3, ([args]) => run(['src/cli/main.ts', ...args], {}));
    runs.forEach((r, i) => {
      assertConfigExit(r, cases[i]![1], cases[i]![0].join(' '));
    });
    assert.deepEqual(readdirSync(dir).includes('data'), false, 'the database was never opened');
  });

  test('the CLI exits 2 the same way', async () => {
    const cli = ['DATABASE_URL', 'CARRIERS_CONFIG', 'DATA_DIR'].map(
      (name) => CASES.find(([env]) => name in env)!,
    );
    const runs = await pool(cli, 4, ([env]) => run(['src/cli/main.ts', 'migrate'], env));
    runs.forEach((r, i) => {
      assertConfigExit(r, cli[i]![1], `cli ${JSON.stringify(cli[i]![0])}`);
    });
  });
});
