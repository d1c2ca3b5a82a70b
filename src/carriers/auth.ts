// Carrier authentication strategies (CARRIER-NOTES §8): static headers (API keys such as
// Hapag's X-IBM-Client-Id/Secret or CMA's KeyId), and OAuth2 client credentials, proved with a
// secret or with a signed client assertion (RFC 7523, client-assertion.ts), with a cached token
// that is refreshed before it expires (CMA's last ~5 minutes) and once after a 401. Secrets and
// assertions go only into token requests: never into a detail, a log line or an error.

import type { AuthConfig } from '../config/carriers.ts';
import { clientAssertionSigner, JWT_BEARER } from './client-assertion.ts';
import type { RateBudget } from './rate-budget.ts';
import type { TemporaryFailure } from './types.ts';

export type AuthResult =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; reason: TemporaryFailure; detail: string; retryAfterMs?: number };

export interface AuthProvider {
  /** Headers to add to an API request. Never throws. */
  headers(signal?: AbortSignal): Promise<AuthResult>;
  /** The carrier answered 401: drop cached credentials. Returns whether retrying can help. */
  invalidate(): boolean;
}

export function staticHeadersAuth(headers: Record<string, string>): AuthProvider {
  const copy = { ...headers };
  return {
    headers: async () => ({ ok: true, headers: { ...copy } }),
    invalidate: () => false,
  };
}

export interface OAuth2Options {
  tokenUrl: string;
  clientId: string;
  /** The client secret, or (private_key_jwt) a signer of client assertions. */
  clientSecret?: string;
  clientAssertion?: () => string;
  scope?: string;
  extraHeaders?: Record<string, string>;
  /** Applied to token requests too: they are HTTP requests to the carrier. */
  budget?: RateBudget;
  timeoutMs?: number;
  now?: () => number;
}

interface CachedToken {
  authorization: string;
  /** Refresh from this instant on (before the real expiry). */
  refreshAt: number;
}

// Servers that omit expires_in get a conservative lifetime; refresh a fifth of the lifetime
// early, capped at a minute, so a 299 s CMA token is renewed after about four minutes.
const DEFAULT_LIFETIME_S = 300;

export function oauth2ClientCredentialsAuth(options: OAuth2Options): AuthProvider {
  const now = options.now ?? Date.now;
  let cached: CachedToken | null = null;
  let inflight: Promise<AuthResult> | null = null;

  const withToken = (authorization: string): AuthResult => ({
    ok: true,
    headers: { ...(options.extraHeaders ?? {}), Authorization: authorization },
  });

  async function fetchToken(signal?: AbortSignal): Promise<AuthResult> {
    if (options.budget) {
      const b = await options.budget.acquire(signal);
      if (!b.ok) {
        return {
          ok: false,
          reason: 'shipping_line_unreachable',
          detail:
            b.reason === 'aborted' ? 'token request aborted' : 'request budget exhausted (token request)',
          retryAfterMs: b.retryAfterMs,
        };
      }
    }
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: options.clientId });
    if (options.clientAssertion) {
      body.set('client_assertion_type', JWT_BEARER);
      body.set('client_assertion', options.clientAssertion());
    } else body.set('client_secret', options.clientSecret ?? '');
    if (options.scope) body.set('scope', options.scope);
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 20_000);
    let res: Response;
    try {
      res = await fetch(options.tokenUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body,
        redirect: 'manual',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      const what = timeout.aborted ? 'timed out' : signal?.aborted ? 'was aborted' : 'failed';
      return {
        ok: false,
        reason: 'shipping_line_unreachable',
        detail: `token request to ${hostOf(options.tokenUrl)} ${what}: ${errorText(err)}`,
      };
    }
    let text = '';
    try {
      text = await res.text();
    } catch (err) {
      return {
        ok: false,
        reason: 'shipping_line_unreachable',
        detail: `token response unreadable: ${errorText(err)}`,
      };
    }
    if (res.status !== 200) {
      const rejected = res.status === 400 || res.status === 401 || res.status === 403;
      return {
        ok: false,
        reason: 'shipping_line_unreachable',
        detail: rejected
          ? `token endpoint rejected the client credentials (HTTP ${res.status})`
          : `token endpoint answered HTTP ${res.status}`,
      };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'unrecognized_response', detail: 'token response is not JSON' };
    }
    const o = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
    const token = o.access_token;
    if (typeof token !== 'string' || token.length === 0) {
      return { ok: false, reason: 'unrecognized_response', detail: 'token response has no access_token' };
    }
    const expiresIn = Number(o.expires_in);
    const lifetimeMs = (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_S) * 1000;
    const type =
      typeof o.token_type === 'string' && o.token_type.toLowerCase() !== 'bearer' ? o.token_type : 'Bearer';
    cached = {
      authorization: `${type} ${token}`,
      refreshAt: now() + lifetimeMs - Math.min(60_000, lifetimeMs * 0.2),
    };
    return withToken(cached.authorization);
  }

  return {
    async headers(signal) {
      if (cached && now() < cached.refreshAt) return withToken(cached.authorization);
      // Single flight: concurrent lookups share one token request.
      inflight ??= fetchToken(signal)
        .catch(
          (err): AuthResult => ({
            ok: false,
            reason: 'internal_processing_error',
            detail: `token request crashed: ${errorText(err)}`,
          }),
        )
        .finally(() => {
          inflight = null;
        });
      return inflight;
    },
    invalidate() {
      cached = null;
      return true;
    },
  };
}

export function createAuth(
  config: AuthConfig,
  deps: { budget?: RateBudget; timeoutMs?: number; now?: () => number },
): AuthProvider {
  if (config.type === 'headers') return staticHeadersAuth(config.headers);
  const proof =
    config.type === 'oauth2_private_key_jwt'
      ? {
          clientAssertion: clientAssertionSigner({
            clientId: config.client_id,
            audience: config.audience ?? config.token_url,
            privateKey: config.private_key,
            keyId: config.key_id,
            now: deps.now,
          }),
        }
      : { clientSecret: config.client_secret };
  return oauth2ClientCredentialsAuth({
    tokenUrl: config.token_url,
    clientId: config.client_id,
    ...proof,
    scope: config.scope,
    extraHeaders: config.headers,
    budget: deps.budget,
    timeoutMs: deps.timeoutMs,
    now: deps.now,
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'token endpoint';
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const c = cause instanceof Error ? ` (${cause.message})` : '';
    return `${err.message}${c}`.slice(0, 300);
  }
  return String(err).slice(0, 300);
}
