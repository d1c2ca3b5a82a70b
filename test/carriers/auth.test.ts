import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { oauth2ClientCredentialsAuth, staticHeadersAuth } from '../../src/carriers/auth.ts';
import { createDcsaClient } from '../../src/carriers/dcsa/client.ts';
import { json, type Stub, type StubHandler, startStub } from './stub-server.ts';

let stub: Stub;
let handler: StubHandler = (_req, res) => json(res, 500, {});
before(async () => {
  stub = await startStub((req, res, i) => handler(req, res, i));
});
after(() => stub.close());

/** A token endpoint at /token issuing tok1, tok2, ... and an events API accepting `valid` tokens. */
function carrier(
  options: { expiresIn?: unknown; valid?: (token: string) => boolean; tokenStatus?: number } = {},
) {
  stub.requests.length = 0;
  let issued = 0;
  handler = (req, res) => {
    if (req.url.pathname === '/token') {
      if (options.tokenStatus) return json(res, options.tokenStatus, { error: 'invalid_client' });
      issued++;
      const body: Record<string, unknown> = { access_token: `tok${issued}`, token_type: 'bearer' };
      if (options.expiresIn !== undefined) body.expires_in = options.expiresIn;
      return json(res, 200, body);
    }
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!(options.valid ?? (() => true))(token))
      return json(res, 401, { errors: [{ message: 'expired token' }] });
    return json(res, 200, [{ eventID: `seen-${token}` }]);
  };
  return {
    tokenRequests: () => stub.requests.filter((r) => r.url.pathname === '/token'),
    apiRequests: () => stub.requests.filter((r) => r.url.pathname !== '/token'),
  };
}

function oauth(now?: () => number) {
  return oauth2ClientCredentialsAuth({
    tokenUrl: `${stub.url}/token`,
    clientId: 'client-a',
    clientSecret: 's3cret',
    scope: 'tnt.read',
    extraHeaders: { 'Consumer-Key': 'client-a' },
    now,
  });
}

describe('auth', () => {
  it('static headers are returned as configured', async () => {
    const auth = staticHeadersAuth({ 'X-IBM-Client-Id': 'id', 'X-IBM-Client-Secret': 'secret' });
    assert.deepEqual(await auth.headers(), {
      ok: true,
      headers: { 'X-IBM-Client-Id': 'id', 'X-IBM-Client-Secret': 'secret' },
    });
    assert.equal(auth.invalidate(), false);
  });

  it('OAuth2: form-encoded client credentials, token cached across lookups, Bearer header plus extra headers', async () => {
    const c = carrier({ expiresIn: 3600 });
    const client = createDcsaClient({ baseUrl: stub.url, auth: oauth() });
    await client.fetchEvents('equipmentReference', 'X');
    await client.fetchEvents('equipmentReference', 'Y');
    assert.equal(c.tokenRequests().length, 1);
    const token = c.tokenRequests()[0]!;
    assert.equal(token.method, 'POST');
    assert.match(String(token.headers['content-type']), /application\/x-www-form-urlencoded/);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(token.body)), {
      grant_type: 'client_credentials',
      client_id: 'client-a',
      client_secret: 's3cret',
      scope: 'tnt.read',
    });
    for (const r of c.apiRequests()) {
      assert.equal(r.headers.authorization, 'Bearer tok1');
      assert.equal(r.headers['consumer-key'], 'client-a');
    }
  });

  it('OAuth2: concurrent lookups share one token request', async () => {
    const c = carrier({ expiresIn: 3600 });
    const auth = oauth();
    const results = await Promise.all([auth.headers(), auth.headers(), auth.headers()]);
    assert.ok(results.every((r) => r.ok));
    assert.equal(c.tokenRequests().length, 1);
  });

  it('OAuth2: the token is refreshed before it expires', async () => {
    const c = carrier({ expiresIn: 299 }); // CMA-style 5-minute tokens
    let now = 1_000_000;
    const auth = oauth(() => now);
    const header = async () =>
      ((await auth.headers()) as { headers: Record<string, string> }).headers.Authorization;
    assert.equal(await header(), 'Bearer tok1');
    now += 200_000; // 200 s: still fresh
    assert.equal(await header(), 'Bearer tok1');
    now += 45_000; // 245 s: inside the early-refresh margin (< 60 s before expiry)
    assert.equal(await header(), 'Bearer tok2');
    assert.equal(c.tokenRequests().length, 2);
  });

  it('OAuth2: a 401 from the API refreshes the token once and retries', async () => {
    const c = carrier({ expiresIn: 3600, valid: (t) => t !== 'tok1' });
    const client = createDcsaClient({ baseUrl: stub.url, auth: oauth() });
    const r = await client.fetchEvents('equipmentReference', 'X');
    assert.deepEqual(r, { kind: 'found', events: [{ eventID: 'seen-tok2' }] });
    assert.equal(c.tokenRequests().length, 2);
    assert.equal(c.apiRequests().length, 2);
  });

  it('OAuth2: a persistent 401 is reported after one refresh', async () => {
    const c = carrier({ expiresIn: 3600, valid: () => false });
    const r = await createDcsaClient({ baseUrl: stub.url, auth: oauth() }).fetchEvents(
      'equipmentReference',
      'X',
    );
    assert.equal(r.kind, 'temporary_failure');
    assert.match((r as { detail: string }).detail, /rejected our credentials \(HTTP 401\)/);
    assert.equal(c.tokenRequests().length, 2);
    assert.equal(c.apiRequests().length, 2);
  });

  it('OAuth2: token endpoint problems are temporary failures with a clear detail', async () => {
    carrier({ tokenStatus: 401 });
    const rejected = await oauth().headers();
    assert.deepEqual(rejected, {
      ok: false,
      reason: 'shipping_line_unreachable',
      detail: 'token endpoint rejected the client credentials (HTTP 401)',
    });
    const r = await createDcsaClient({ baseUrl: stub.url, auth: oauth() }).fetchEvents(
      'equipmentReference',
      'X',
    );
    assert.equal(r.kind, 'temporary_failure');
    assert.equal(stub.requests.filter((q) => q.url.pathname !== '/token').length, 0);

    stub.requests.length = 0;
    handler = (_req, res) => json(res, 200, { token_type: 'bearer' });
    const noToken = await oauth().headers();
    assert.equal(noToken.ok, false);
    assert.equal((noToken as { reason: string }).reason, 'unrecognized_response');

    const closed = await startStub((_req, res) => json(res, 200, {}));
    await closed.close();
    const down = await oauth2ClientCredentialsAuth({
      tokenUrl: `${closed.url}/token`,
      clientId: 'a',
      clientSecret: 'b',
    }).headers();
    assert.equal((down as { reason: string }).reason, 'shipping_line_unreachable');
  });

  it('OAuth2: a missing expires_in gets a conservative default lifetime', async () => {
    const c = carrier({});
    let now = 0;
    const auth = oauth(() => now);
    await auth.headers();
    now += 200_000;
    await auth.headers();
    assert.equal(c.tokenRequests().length, 1);
    now += 60_000; // 260 s of a default 300 s: refresh
    await auth.headers();
    assert.equal(c.tokenRequests().length, 2);
  });
});
