// RFC 7523 client assertions (OAuth2 `private_key_jwt`) for carriers that register a public key
// instead of issuing a client secret: a short-lived JWT signed with our private key, sent in place
// of the secret in each token request. node:crypto only; RS256 for RSA keys, ES256/384/512 for EC.

import { createPrivateKey, type KeyObject, randomUUID, sign } from 'node:crypto';

export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export interface AssertionOptions {
  clientId: string;
  /** The token endpoint (the assertion's `aud`). */
  audience: string;
  /** PEM. */
  privateKey: string;
  keyId?: string;
  /** Lifetime of one assertion (default 120 s: it is used once, at once). */
  lifetimeS?: number;
  now?: () => number;
}

const EC_ALG: Record<string, { alg: string; hash: string }> = {
  prime256v1: { alg: 'ES256', hash: 'sha256' },
  secp384r1: { alg: 'ES384', hash: 'sha384' },
  secp521r1: { alg: 'ES512', hash: 'sha512' },
};

function algorithmOf(key: KeyObject): { alg: string; hash: string } {
  if (key.asymmetricKeyType === 'rsa') return { alg: 'RS256', hash: 'sha256' };
  const curve = key.asymmetricKeyDetails?.namedCurve ?? '';
  const ec = EC_ALG[curve];
  if (key.asymmetricKeyType === 'ec' && ec) return ec;
  throw new Error(`unsupported key for a client assertion (${key.asymmetricKeyType} ${curve})`);
}

const b64url = (v: Buffer | string) => Buffer.from(v).toString('base64url');

/** A signer of fresh assertions (a new jti and times for each token request). */
export function clientAssertionSigner(options: AssertionOptions): () => string {
  const key = createPrivateKey(options.privateKey);
  const { alg, hash } = algorithmOf(key);
  const now = options.now ?? Date.now;
  const lifetime = options.lifetimeS ?? 120;
  return () => {
    const iat = Math.floor(now() / 1000);
    const header = { alg, typ: 'JWT', ...(options.keyId ? { kid: options.keyId } : {}) };
    const claims = {
      iss: options.clientId,
      sub: options.clientId,
      aud: options.audience,
      jti: randomUUID(),
      iat,
      exp: iat + lifetime,
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    // JWS wants EC signatures as r||s, not DER.
    const signature = sign(hash, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
    return `${input}.${b64url(signature)}`;
  };
}
