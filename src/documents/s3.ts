import { createHash } from 'node:crypto';
import { AwsClient } from 'aws4fetch';
import type { FileStorage } from './file-storage.ts';

// An S3-compatible store (AWS S3, MinIO, Ceph, R2...): three verbs on path-style URLs, each
// request signed with AWS Signature Version 4 by aws4fetch (small, no dependencies).

export interface S3Options {
  endpoint: string | null;
  region: string;
  bucket: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
}

/** The signing client. No retries: a failed request fails the job, and the queue retries it. */
export function s3Client(o: S3Options): AwsClient {
  return new AwsClient({
    accessKeyId: o.accessKeyId ?? '',
    secretAccessKey: o.secretAccessKey ?? '',
    service: 's3',
    region: o.region,
    retries: 0,
  });
}

export function createS3Storage(o: S3Options): FileStorage {
  const client = s3Client(o);
  const endpoint = (o.endpoint ?? '').replace(/\/+$/, '');
  const urlOf = (key: string) =>
    `${endpoint}/${encodeURIComponent(o.bucket ?? '')}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const send = (method: string, key: string, body?: Uint8Array) =>
    client.fetch(urlOf(key), {
      method,
      // The payload's hash is signed (aws4fetch would send UNSIGNED-PAYLOAD): the store checks
      // the bytes it keeps are the bytes we sent.
      headers: {
        'x-amz-content-sha256': createHash('sha256')
          .update(body ?? '')
          .digest('hex'),
      },
      body,
      signal: AbortSignal.timeout(60_000),
    });
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
