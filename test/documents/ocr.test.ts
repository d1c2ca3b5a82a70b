import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ENGINES } from '../helpers/db.ts';
import { type DocumentStack, startDocumentStack } from '../helpers/doc-api.ts';
import { invoiceDoc, transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderScan, renderScannedPdf } from '../helpers/doc-render.ts';
import { eventually } from '../helpers/engine.ts';

// OCR, kept to a few images: offline (no network at all), a scanned PDF through direct upload,
// and a sideways scan rotated through the API.

test('OCR works with the network absent and writes nothing to the working directory', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'ocr-cwd-'));
  const script = resolve('test/documents/ocr-offline.child.ts');
  const blocker = resolve('test/helpers/no-network.ts');
  const node = [process.execPath, '--import', blocker, script];
  // A network namespace of its own where the machine allows it (no interface but a down loopback).
  const ns = spawnSync('unshare', ['-n', 'true']).status === 0;
  const r = ns
    ? spawnSync('unshare', ['-n', ...node], { cwd, encoding: 'utf8', timeout: 120_000 })
    : spawnSync(node[0]!, node.slice(1), { cwd, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  assert.match(out.probe, /^refused/, 'the child could not reach the network');
  assert.equal(out.read, out.expected);
  assert.deepEqual(readdirSync(cwd), [], 'no traineddata cache written');
  rmSync(cwd, { recursive: true, force: true });
});

for (const engine of ENGINES) {
  describe(`documents: OCR [${engine}]`, () => {
    let s: DocumentStack;
    before(async () => {
      s = await startDocumentStack(engine);
    });
    after(async () => {
      await s?.close();
    });

    test('a scanned invoice PDF (image only) through direct upload is read by OCR', async () => {
      const inv = invoiceDoc(41);
      const pdf = await renderScannedPdf(
        await renderScan(layoutOps(inv, 'inline'), { family: 'Liberation Sans' }),
      );
      const md5 = createHash('md5').update(pdf).digest('base64');
      const blob = await s.t.request('POST', '/v2/direct_uploads', {
        body: {
          blob: {
            filename: 'scan.pdf',
            byte_size: pdf.length,
            checksum: md5,
            content_type: 'application/pdf',
          },
        },
        headers: { 'content-type': 'application/json' },
      });
      const put = await fetch(blob.body.direct_upload.url, {
        method: 'PUT',
        headers: blob.body.direct_upload.headers,
        body: pdf,
      });
      assert.equal(put.status, 204);
      const made = await s.t.request('POST', '/v2/documents', {
        body: {
          data: {
            type: 'document',
            attributes: { name: 'Scanned invoice', attached_document: blob.body.signed_id },
          },
        },
      });
      assert.equal(made.status, 201, made.text);
      const doc = await s.settled(made.body.data.id, undefined, 90_000);
      assert.equal(doc.data.attributes.document_type, 'commercial_invoice');
      const p = doc.included.find((r: { type: string }) => r.type === 'document_representation').attributes
        .payload;
      assert.equal(p.invoice_number, inv.expect.invoice_number);
      assert.equal(p.total_amount, inv.expect.total_amount);
      assert.equal(p.bill_of_lading_number, inv.expect.bill_of_lading_number);
    });

    test('rotate turns an image and reads it again; other degrees are a 422', async () => {
      const bl = transportDoc(42, 'bill_of_lading');
      const png = await renderScan(layoutOps(bl, 'boxed'), { turn: 90, scale: 2 });
      const up = await s.upload(png, 'sideways.png');
      assert.equal(up.status, 201);
      const id = up.body.data.id;
      const first = await s.settled(id, undefined, 90_000);
      const firstRep = first.data.relationships.last_document_representation.data?.id;
      const bad = await s.t.request('POST', `/v2/documents/${id}/rotate`, {
        body: { degrees: 45 },
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(bad.status, 422);
      const ok = await s.t.request('POST', `/v2/documents/${id}/rotate`, {
        body: { degrees: 270 },
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(ok.status, 202);
      const after = await eventually(
        async () => {
          const r = await s.t.request('GET', `/v2/documents/${id}?include=last_document_representation`);
          const rep = r.body.data.relationships.last_document_representation.data;
          return rep && rep.id !== firstRep && r.body.data.attributes.extraction_status === 'extracted'
            ? r.body
            : null;
        },
        90_000,
        'rotated and read again',
      );
      const p = after.included.find((r: { type: string }) => r.type === 'document_representation').attributes
        .payload;
      assert.equal(p.bill_of_lading_number, bl.expect.bill_of_lading_number);
      const url = (await s.t.request('GET', `/v2/documents/${id}/download_url`)).body.download_url;
      const stored = Buffer.from(await (await fetch(url)).arrayBuffer());
      assert.equal(after.data.attributes.file_size_bytes, stored.length, 'size of the rotated file');
      const meta = await sharp(stored).metadata();
      const orig = await sharp(png).metadata();
      assert.equal(meta.width, orig.height, 'stored file turned upright');
      assert.equal(meta.height, orig.width);
    });
  });
}
