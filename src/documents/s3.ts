import { createHash, createHmac } from 'node:crypto';
import type { FileStorage } from './storage.ts';

// An S3-compatible store (AWS S3, MinIO, Ceph, R2...) with no SDK: three verbs, path-style URLs,
// requests signed with AWS Signature Version 4 (signV4 below, a pure function).

export interface S3Options {
  endpoint: string | null;
  region: string;
  bucket: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
}

const sha256hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

// RFC 3986 encoding of each path segment, as SigV4 wants.
const encodeSegment = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SignInput {
  method: string;
  url: URL;
  headers: Record<string, string>;
  payloadHash: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** yyyymmddThhmmssZ */
  amzDate: string;
}

/** The Authorization header of a SigV4-signed S3 request (headers must include host and x-amz-*). */
export function signV4(i: SignInput): string {
  const names = Object.keys(i.headers)
    .map((h) => h.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(i.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const canonicalHeaders = names.map((n) => `${n}:${String(lower[n]).trim()}\n`).join('');
  const signedHeaders = names.join(';');
  const query = [...i.url.searchParams]
    .map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`)
    .sort()
    .join('&');
  const canonical = [i.method, i.url.pathname, query, canonicalHeaders, signedHeaders, i.payloadHash].join(
    '\n',
  );
  const day = i.amzDate.slice(0, 8);
  const scope = `${day}/${i.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', i.amzDate, scope, sha256hex(canonical)].join('\n');
  const kDate = hmac(`AWS4${i.secretAccessKey}`, day);
  const kSigning = hmac(hmac(hmac(kDate, i.region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', kSigning).update(toSign).digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${i.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

export function createS3Storage(o: S3Options): FileStorage {
  const endpoint = (o.endpoint ?? '').replace(/\/+$/, '');
  const urlOf = (key: string) =>
    new URL(`${endpoint}/${encodeSegment(o.bucket ?? '')}/${key.split('/').map(encodeSegment).join('/')}`);
  async function send(method: string, key: string, body?: Uint8Array): Promise<Response> {
    const url = urlOf(key);
    const amzDate = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const payloadHash = sha256hex(body ?? '');
    const headers: Record<string, string> = {
      host: url.host,
      'x-amz-date': amzDate,
      'x-amz-content-sha256': payloadHash,
    };
    headers.authorization = signV4({
      method,
      url,
      headers,
      payloadHash,
      region: o.region,
      accessKeyId: o.accessKeyId ?? '',
      secretAccessKey: o.secretAccessKey ?? '',
      amzDate,
    });
    const { host: _host, ...sent } = headers;
    return fetch(url, { method, headers: sent, body, signal: AbortSignal.timeout(60_000) });
  }
  return {
    async put(key, bytes) {
      const res = await send('PUT', key, bytes);
      if (!res.ok) throw new Error(`S3 PUT ${key}: ${res.status} ${await res.text()}`);
    },
    async get(key) {
      const res = await send('GET', key);
      if (!res.ok) throw new Error(`S3 GET ${key}: ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    },
    async delete(key) {
      const res = await send('DELETE', key);
      if (!res.ok && res.status !== 404) throw new Error(`S3 DELETE ${key}: ${res.status}`);
    },
  };
}
