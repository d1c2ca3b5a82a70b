import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CarrierConfigError, loadCarriersConfig, parseCarriersConfig } from '../../src/config/carriers.ts';

const dir = mkdtempSync(join(tmpdir(), 'carriers-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const env = { HLAG_ID: 'hl-id', HLAG_SECRET: 'hl-secret', CMA_SECRET: 'cma-secret' };

const YAML = `
- scac: HLCU
  adapter: dcsa-tnt-v2
  base_url: https://api.hlag.com/hlag/external
  auth:
    type: headers
    headers:
      X-IBM-Client-Id: \${HLAG_ID}
      X-IBM-Client-Secret: \${HLAG_SECRET}
  requests_per_minute: 10
  number_types: [bill_of_lading, booking_number, container]
- scac: cmdu
  adapter: dcsa-tnt-v2
  base_url: https://apis.cma-cgm.net/operation/trackandtrace
  auth:
    type: oauth2_client_credentials
    token_url: https://auth.cma-cgm.com/as/token.oauth2
    client_id: tracker
    client_secret: \${CMA_SECRET}
    scope: tracking:read
  requests_per_minute: 60
  number_types: [bill_of_lading]
  timeout_ms: 15000
`;

const valid = () => ({
  scac: 'HLCU',
  adapter: 'dcsa-tnt-v2',
  base_url: 'https://api.hlag.com/hlag/external',
  auth: { type: 'headers', headers: { 'X-IBM-Client-Id': 'id' } },
  requests_per_minute: 10,
  number_types: ['container'],
});

/** The problems reported for a one-entry config built from `valid()` with `change` applied. */
function problemsFor(
  change: (e: Record<string, unknown>) => void,
  e: Record<string, string> = env,
): string[] {
  const entry: Record<string, unknown> = valid();
  change(entry);
  try {
    parseCarriersConfig(JSON.stringify([entry]), { format: 'json', env: e });
  } catch (err) {
    assert.ok(err instanceof CarrierConfigError, String(err));
    return err.problems;
  }
  return [];
}

describe('carrier config', () => {
  it('loads YAML from CARRIERS_CONFIG, substituting environment references', () => {
    const file = join(dir, 'carriers.yaml');
    writeFileSync(file, YAML);
    const entries = loadCarriersConfig({ ...env, CARRIERS_CONFIG: file });
    assert.deepEqual(entries, [
      {
        scac: 'HLCU',
        adapter: 'dcsa-tnt-v2',
        base_url: 'https://api.hlag.com/hlag/external',
        auth: {
          type: 'headers',
          headers: { 'X-IBM-Client-Id': 'hl-id', 'X-IBM-Client-Secret': 'hl-secret' },
        },
        requests_per_minute: 10,
        number_types: ['bill_of_lading', 'booking_number', 'container'],
      },
      {
        scac: 'CMDU',
        adapter: 'dcsa-tnt-v2',
        base_url: 'https://apis.cma-cgm.net/operation/trackandtrace',
        auth: {
          type: 'oauth2_client_credentials',
          token_url: 'https://auth.cma-cgm.com/as/token.oauth2',
          client_id: 'tracker',
          client_secret: 'cma-secret',
          scope: 'tracking:read',
        },
        requests_per_minute: 60,
        number_types: ['bill_of_lading'],
        timeout_ms: 15000,
      },
    ]);
  });

  it('loads JSON, bare list or {carriers: [...]}, with an embedded environment reference', () => {
    const file = join(dir, 'carriers.json');
    const entry = {
      ...valid(),
      auth: { type: 'headers', headers: { Authorization: `Bearer ${'$'}{HLAG_SECRET}` } },
    };
    writeFileSync(file, JSON.stringify({ carriers: [entry] }));
    const [loaded] = loadCarriersConfig({ ...env, CARRIERS_CONFIG: file });
    assert.deepEqual(loaded!.auth, { type: 'headers', headers: { Authorization: 'Bearer hl-secret' } });
  });

  it('no CARRIERS_CONFIG means no configured carriers; an unreadable file is an error', () => {
    assert.deepEqual(loadCarriersConfig({}), []);
    assert.throws(
      () => loadCarriersConfig({ CARRIERS_CONFIG: join(dir, 'missing.yaml') }),
      /cannot read the file/,
    );
  });

  it('a missing environment variable is a clear error naming entry, field and variable', () => {
    assert.throws(
      () => parseCarriersConfig(YAML, { env: { HLAG_ID: 'x', CMA_SECRET: 'y' }, source: 'carriers.yaml' }),
      (err: unknown) => {
        assert.ok(err instanceof CarrierConfigError);
        assert.deepEqual(err.problems, [
          'carriers[0] (HLCU).auth.headers.X-IBM-Client-Secret: environment variable HLAG_SECRET is not set',
        ]);
        assert.match(err.message, /^carriers\.yaml: /);
        return true;
      },
    );
  });

  it('syntax errors and a non-list document', () => {
    assert.throws(() => parseCarriersConfig('[{', { format: 'json' }), /not valid JSON/);
    assert.throws(() => parseCarriersConfig('a: [b', { format: 'yaml' }), /not valid YAML/);
    assert.throws(() => parseCarriersConfig('scac: HLCU', { format: 'yaml' }), /must be a list/);
    assert.deepEqual(parseCarriersConfig('', { format: 'yaml' }), []);
  });

  const cases: [string, (e: Record<string, unknown>) => void, string][] = [
    ['scac missing', (e) => delete e.scac, 'carriers[0].scac: required, 2 to 4 letters, got undefined'],
    [
      'scac malformed',
      (e) => (e.scac = 'HL-1'),
      'carriers[0] (HL-1).scac: required, 2 to 4 letters, got "HL-1"',
    ],
    [
      'adapter',
      (e) => (e.adapter = 'maersk-v3'),
      'carriers[0] (HLCU).adapter: must be one of dcsa-tnt-v2, dcsa-tnt-v3, got "maersk-v3"',
    ],
    ['base_url missing', (e) => delete e.base_url, 'carriers[0] (HLCU).base_url: required, an http(s) URL'],
    [
      'base_url invalid',
      (e) => (e.base_url = 'not a url'),
      'carriers[0] (HLCU).base_url: not a valid URL: "not a url"',
    ],
    [
      'base_url scheme',
      (e) => (e.base_url = 'ftp://x.example'),
      'carriers[0] (HLCU).base_url: must be an http or https URL, got "ftp://x.example"',
    ],
    [
      'auth missing',
      (e) => delete e.auth,
      'carriers[0] (HLCU).auth: required, an object with a type of "headers", "oauth2_client_credentials" or "oauth2_private_key_jwt"',
    ],
    [
      'auth type',
      (e) => (e.auth = { type: 'basic' }),
      'carriers[0] (HLCU).auth.type: must be "headers", "oauth2_client_credentials" or "oauth2_private_key_jwt", got "basic"',
    ],
    [
      'headers empty',
      (e) => (e.auth = { type: 'headers', headers: {} }),
      'carriers[0] (HLCU).auth.headers: required, a non-empty map of header name to value',
    ],
    [
      'header value',
      (e) => (e.auth = { type: 'headers', headers: { 'X-Key': 5 } }),
      'carriers[0] (HLCU).auth.headers.X-Key: must be a single-line string, got 5',
    ],
    [
      'header name',
      (e) => (e.auth = { type: 'headers', headers: { 'Bad Name': 'v' } }),
      'carriers[0] (HLCU).auth.headers: "Bad Name" is not a valid header name',
    ],
    [
      'oauth token_url',
      (e) => (e.auth = { type: 'oauth2_client_credentials', client_id: 'a', client_secret: 'b' }),
      'carriers[0] (HLCU).auth.token_url: required, an http(s) URL',
    ],
    [
      'oauth client_id',
      (e) =>
        (e.auth = {
          type: 'oauth2_client_credentials',
          token_url: 'https://t.example',
          client_id: '',
          client_secret: 'b',
        }),
      'carriers[0] (HLCU).auth.client_id: required, a non-empty string, got ""',
    ],
    [
      'oauth client_secret',
      (e) => (e.auth = { type: 'oauth2_client_credentials', token_url: 'https://t.example', client_id: 'a' }),
      'carriers[0] (HLCU).auth.client_secret: required, a non-empty string',
    ],
    [
      'oauth scope',
      (e) =>
        (e.auth = {
          type: 'oauth2_client_credentials',
          token_url: 'https://t.example',
          client_id: 'a',
          client_secret: 'b',
          scope: 1,
        }),
      'carriers[0] (HLCU).auth.scope: must be a string, got 1',
    ],
    [
      'auth unknown field',
      (e) => (e.auth = { type: 'headers', headers: { A: 'b' }, token: 'x' }),
      'carriers[0] (HLCU).auth.token: unknown field (allowed: type, headers)',
    ],
    [
      'rpm missing',
      (e) => delete e.requests_per_minute,
      'carriers[0] (HLCU).requests_per_minute: required, a number above 0 (at most 100000), got undefined',
    ],
    [
      'rpm zero',
      (e) => (e.requests_per_minute = 0),
      'carriers[0] (HLCU).requests_per_minute: required, a number above 0 (at most 100000), got 0',
    ],
    [
      'rpm string',
      (e) => (e.requests_per_minute = '10'),
      'carriers[0] (HLCU).requests_per_minute: required, a number above 0 (at most 100000), got "10"',
    ],
    [
      'number_types empty',
      (e) => (e.number_types = []),
      'carriers[0] (HLCU).number_types: required, a non-empty list of bill_of_lading, booking_number, container',
    ],
    [
      'number_types value',
      (e) => (e.number_types = ['container', 'bol']),
      'carriers[0] (HLCU).number_types[1]: must be one of bill_of_lading, booking_number, container, got "bol"',
    ],
    [
      'number_types twice',
      (e) => (e.number_types = ['container', 'container']),
      'carriers[0] (HLCU).number_types[1]: container is listed twice',
    ],
    [
      'timeout_ms',
      (e) => (e.timeout_ms = 1.5),
      'carriers[0] (HLCU).timeout_ms: must be an integer from 1 to 300000, got 1.5',
    ],
    [
      'unknown field',
      (e) => (e.requests_per_min = 10),
      'carriers[0] (HLCU).requests_per_min: unknown field (allowed: scac, adapter, base_url, auth, requests_per_minute, number_types, timeout_ms, api_version, paging_header, not_found, updated_since, full_read_interval_ms, requires_equipment)',
    ],
    [
      'not_found rule',
      (e) => (e.not_found = ['404', 'nope']),
      'carriers[0] (HLCU).not_found[1]: must be an HTTP status from 300 to 599, optionally "status: reason text", got "nope"',
    ],
    [
      'updated_since on 2.2',
      (e) => (e.updated_since = true),
      'carriers[0] (HLCU).updated_since: only the dcsa-tnt-v3 adapter can ask for changes since a time',
    ],
    [
      'paging_header',
      (e) => (e.paging_header = 'Next Page'),
      'carriers[0] (HLCU).paging_header: must be a header name, got "Next Page"',
    ],
    [
      'requires_equipment',
      (e) => (e.requires_equipment = ['container']),
      'carriers[0] (HLCU).requires_equipment: must be a list of booking_number, bill_of_lading, got ["container"]',
    ],
  ];
  for (const [name, change, expected] of cases) {
    it(`validation: ${name}`, () => assert.deepEqual(problemsFor(change), [expected]));
  }

  it('validation: every problem of every entry is reported at once, plus duplicate SCACs', () => {
    const entries = [
      valid(),
      { ...valid(), scac: 'hlcu' },
      { ...valid(), scac: 'MSCU', requests_per_minute: -1, number_types: 'container' },
    ];
    assert.throws(
      () => parseCarriersConfig(JSON.stringify(entries), { format: 'json' }),
      (err: unknown) => {
        assert.ok(err instanceof CarrierConfigError);
        assert.deepEqual(err.problems, [
          'carriers[1] (hlcu).scac: HLCU is already configured by carriers[0]',
          'carriers[2] (MSCU).requests_per_minute: required, a number above 0 (at most 100000), got -1',
          'carriers[2] (MSCU).number_types: required, a non-empty list of bill_of_lading, booking_number, container',
        ]);
        return true;
      },
    );
    assert.equal(problemsFor(() => {}).length, 0);
  });

  it('a 3.0.0 entry: the standard by default, per-carrier differences when given', () => {
    const [plain, quirky] = parseCarriersConfig(
      JSON.stringify([
        { ...valid(), adapter: 'dcsa-tnt-v3' },
        {
          ...valid(),
          scac: 'MAEU',
          adapter: 'dcsa-tnt-v3',
          api_version: '3.0.0-Beta-2',
          paging_header: 'Next-Page',
          not_found: ['404', '400: unknown reference'],
          updated_since: false,
          requires_equipment: ['booking_number'],
        },
      ]),
      { format: 'json' },
    );
    assert.equal(plain?.protocol, undefined);
    assert.deepEqual(quirky?.protocol, {
      api_version: '3.0.0-Beta-2',
      paging_header: 'Next-Page',
      not_found: [{ status: 404 }, { status: 400, reason: 'unknown reference' }],
      updated_since: false,
      full_read_interval_ms: 21_600_000,
      requires_equipment: ['booking_number'],
    });
  });
});
