import { randomBytes, timingSafeEqual } from 'node:crypto';

// OAuth2 client-credentials token endpoint (Maersk and CMA CGM style), so adapters that fetch,
// cache and refresh bearer tokens can be tested. Expiry runs on real time: token lifetimes are a
// client concern and must not jump when the simulated clock is advanced.

export interface OAuthOptions {
  clientId: string;
  clientSecret: string;
  /** Token lifetime in seconds (default 300, like CMA CGM's 299 s). */
  expiresInSeconds?: number;
}

export type TokenResponse = { status: number; body: Record<string, unknown> };

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export class TokenIssuer {
  readonly #options: OAuthOptions;
  readonly #tokens = new Map<string, number>();
  issued = 0;

  constructor(options: OAuthOptions) {
    this.#options = options;
  }

  /** Handle a token request: form (or JSON) body fields, or HTTP Basic client authentication. */
  token(fields: URLSearchParams, authorization: string | undefined): TokenResponse {
    if (fields.get('grant_type') !== 'client_credentials') {
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    }
    let id = fields.get('client_id') ?? '';
    let secret = fields.get('client_secret') ?? '';
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString();
      const colon = decoded.indexOf(':');
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    if (!same(id, this.#options.clientId) || !same(secret, this.#options.clientSecret)) {
      return {
        status: 401,
        body: { error: 'invalid_client', error_description: 'unknown client or wrong secret' },
      };
    }
    const expiresIn = this.#options.expiresInSeconds ?? 300;
    const token = randomBytes(24).toString('base64url');
    const now = Date.now();
    for (const [t, exp] of this.#tokens) if (exp <= now) this.#tokens.delete(t);
    this.#tokens.set(token, now + expiresIn * 1000);
    this.issued++;
    return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: expiresIn } };
  }

  /** Whether an Authorization header carries a live token. */
  accepts(authorization: string | undefined): boolean {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    const exp = m ? this.#tokens.get(m[1]!) : undefined;
    return exp !== undefined && exp > Date.now();
  }
}
