import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import S3rver from 's3rver';
import { ENGINES } from '../helpers/db.ts';
import { type DocumentStack, startDocumentStack } from '../helpers/doc-api.ts';
import { transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderPdf } from '../helpers/doc-render.ts';

// DOCUMENT_STORAGE=s3 against a local S3-compatible server (s3rver, path-style, on loopback):
// upload, processing, signed download and delete go through the bucket. Request signing itself
// is checked against AWS's published SigV4 example in extract.test.ts (s3rver does not verify V4).

for (const engine of ENGINES) {
  describe(`documents: S3-compatible storage [${engine}]`, () => {
    let s: DocumentStack;
    let server: InstanceType<typeof S3rver>;
    let bucketDir: string;
    before(async () => {
      bucketDir = mkdtempSync(join(tmpdir(), 's3rver-'));
      server = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: bucketDir,
        configureBuckets: [{ name: 'documents', configs: [] }],
      });
      const { port } = await server.run();
      s = await startDocumentStack(engine, {
        DOCUMENT_STORAGE: 's3',
        DOCUMENT_S3_ENDPOINT: `http://127.0.0.1:${port}`,
        DOCUMENT_S3_BUCKET: 'documents',
        DOCUMENT_S3_ACCESS_KEY_ID: 'S3RVER',
        DOCUMENT_S3_SECRET_ACCESS_KEY: 'S3RVER',
      });
    });
    after(async () => {
      await s?.close();
      await server?.close();
      rmSync(bucketDir, { recursive: true, force: true });
    });

    test('files live in the bucket: read by the worker, served by signed links, removed on delete', async () => {
      const doc = transportDoc(81);
      const pdf = await renderPdf(layoutOps(doc, 'boxed'), 'courier');
      const up = await s.upload(pdf, 'bl.pdf');
      assert.equal(up.status, 201);
      const got = await s.settled(up.body.data.id);
      const rep = got.included.find((r: { type: string }) => r.type === 'document_representation');
      assert.equal(rep.attributes.payload.bill_of_lading_number, doc.expect.bill_of_lading_number);
      const url = (await s.t.request('GET', `/v2/documents/${up.body.data.id}/download_url`)).body
        .download_url;
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), pdf);
      const objects = () =>
        fetch(`${s.t.config.documents.s3.endpoint}/documents?list-type=2`).then((r) => r.text());
      assert.match(await objects(), new RegExp(`<Key>${s.t.accountId}/`));
      assert.equal((await s.t.request('DELETE', `/v2/documents/${up.body.data.id}`)).status, 204);
      assert.doesNotMatch(await objects(), new RegExp(`<Key>${s.t.accountId}/`));
    });
  });
}
