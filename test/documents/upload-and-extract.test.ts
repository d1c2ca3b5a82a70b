import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../helpers/db.ts';
import { type DocumentStack, startDocumentStack } from '../helpers/doc-api.ts';
import { invoiceDoc, transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderPdf } from '../helpers/doc-render.ts';
import { eventually } from '../helpers/engine.ts';

// Text PDFs through multipart and direct upload, on both engines: extraction, links, the
// tracking request made by auto-tracking, the events delivered, downloads, duplicates, edits.

for (const engine of ENGINES) {
  describe(`documents: upload and extract [${engine}]`, () => {
    let s: DocumentStack;
    const bl = `SIMBL1C${String(Date.now() % 1e6).padStart(6, '0')}`;
    const blDoc = transportDoc(11, 'bill_of_lading', { scac: 'TEST', bl });
    let blPdf: Buffer;
    let blId: string;

    before(async () => {
      s = await startDocumentStack(engine, {
        DOCUMENT_MAX_BYTES: '150000',
        DOCUMENT_DOWNLOAD_URL_TTL_MS: '1500',
      });
      blPdf = await renderPdf(layoutOps(blDoc, 'inline'), 'helvetica');
    });
    after(async () => {
      await s?.close();
    });

    test('a B/L uploaded as multipart is read, creates one tracking request, links to the shipment and is announced', async () => {
      const up = await s.upload(blPdf, 'bl-scan.pdf');
      assert.equal(up.status, 201, JSON.stringify(up.body));
      const a = up.body.data.attributes;
      assert.equal(a.name, 'bl-scan.pdf');
      assert.equal(a.source, 'api');
      assert.equal(a.file_content_type, 'application/pdf');
      assert.equal(a.file_size_bytes, blPdf.length);
      assert.equal(a.extraction_status, 'pending');
      blId = up.body.data.id;

      const doc = await s.settled(blId);
      assert.equal(doc.data.attributes.extraction_status, 'extracted');
      assert.equal(doc.data.attributes.document_type, 'bill_of_lading');
      assert.match(doc.data.attributes.classification_notes, /bill of lading/);
      const rep = doc.included.find((r: { type: string }) => r.type === 'document_representation');
      assert.equal(rep.id, doc.data.relationships.last_document_representation.data.id);
      assert.match(rep.attributes.schema_version, /^bill_of_lading@\d{4}-\d{2}-\d{2}$/);
      const p = rep.attributes.payload;
      assert.equal(p.bill_of_lading_number, bl);
      assert.equal(p.scac, 'TEST');
      assert.equal(p.vessel_name, blDoc.expect.vessel_name);
      assert.equal(p.voyage_number, blDoc.expect.voyage_number);
      assert.equal(p.port_of_loading.locode, blDoc.expect['port_of_loading.locode']);
      assert.equal(p.port_of_discharge.locode, blDoc.expect['port_of_discharge.locode']);
      assert.equal(p.shipper.name, blDoc.expect['shipper.name']);
      assert.deepEqual(
        p.containers.map((c: { number: string }) => c.number),
        blDoc.containers.map((c) => c.number),
      );
      assert.equal(p.containers[0].seal_numbers[0], blDoc.containers[0]!.seal);
      assert.equal(p.containers[0].gross_weight_kg, blDoc.containers[0]!.weight_kg);
      assert.ok(rep.attributes.field_confidence.bill_of_lading_number > 0.5);

      // Auto-tracking: exactly one tracking request for the B/L, and the shipment it makes links.
      const trs = await s.t.request('GET', `/v2/tracking_requests?filter[request_number]=${bl}`);
      assert.equal(trs.body.data.length, 1);
      assert.equal(trs.body.data[0].attributes.scac, 'TEST');
      const linked = await eventually(
        async () => {
          const r = await s.t.request('GET', `/v2/documents/${blId}`);
          return r.body.data.relationships.shipments.data.length ? r.body : null;
        },
        20_000,
        'document linked to the tracked shipment',
      );
      const shipmentId = linked.data.relationships.shipments.data[0].id;
      const sh = await s.t.request('GET', `/v2/shipments/${shipmentId}`);
      assert.equal(sh.body.data.attributes.bill_of_lading_number, bl);

      // document.extracted, signed, with the document and its representation included.
      const delivered = await eventually(
        async () =>
          s.receiver.at('/hook').find((r) => r.json?.data?.attributes?.event === 'document.extracted'),
        15_000,
        'document.extracted delivered',
      );
      assert.ok(delivered.headers['x-service-webhook-signature']);
      assert.deepEqual(delivered.json.data.relationships.reference_object.data, {
        type: 'document',
        id: blId,
      });
      const types = delivered.json.included.map((r: { type: string }) => r.type);
      assert.ok(types.includes('document') && types.includes('document_representation'), types.join());
    });

    test('the same bytes again are a 409 naming the existing document; another account may upload them', async () => {
      const again = await s.upload(blPdf, 'copy.pdf');
      assert.equal(again.status, 409);
      assert.equal(again.body.errors[0].code, 'duplicate_document');
      assert.equal(again.body.errors[0].meta.existing_document_id, blId);
      const other = await s.t.newAccount('other');
      const theirs = await s.upload(blPdf, 'copy.pdf', { key: other.key });
      assert.equal(theirs.status, 201);
      const mine = await s.t.request('GET', `/v2/documents/${theirs.body.data.id}`);
      assert.equal(mine.status, 404);
    });

    test('direct upload: declared blob, PUT checked for size and MD5, then the document', async () => {
      const inv = invoiceDoc(5, bl);
      const pdf = await renderPdf(layoutOps(inv, 'inline'), 'times');
      const md5 = createHash('md5').update(pdf).digest('base64');
      const blob = await s.t.request('POST', '/v2/direct_uploads', {
        body: {
          blob: {
            filename: 'invoice.pdf',
            byte_size: pdf.length,
            checksum: md5,
            content_type: 'application/pdf',
          },
        },
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(blob.status, 200, blob.text);
      const { signed_id, direct_upload } = blob.body;
      const wrong = Buffer.from(pdf);
      wrong[wrong.length - 10] = wrong[wrong.length - 10]! ^ 1;
      const bad = await fetch(direct_upload.url, {
        method: 'PUT',
        headers: direct_upload.headers,
        body: wrong,
      });
      assert.equal(bad.status, 422);
      const early = await s.t.request('POST', '/v2/documents', {
        body: { data: { type: 'document', attributes: { name: 'Invoice', attached_document: signed_id } } },
      });
      assert.equal(early.status, 422, 'no document from a blob whose bytes did not match');
      const put = await fetch(direct_upload.url, {
        method: 'PUT',
        headers: direct_upload.headers,
        body: pdf,
      });
      assert.equal(put.status, 204, await put.clone().text());
      const forged = await s.t.request('POST', '/v2/documents', {
        body: {
          data: {
            type: 'document',
            attributes: {
              name: 'x',
              attached_document: `${signed_id.slice(0, -2)}${signed_id.endsWith('xx') ? 'yy' : 'xx'}`,
            },
          },
        },
      });
      assert.equal(forged.status, 422);
      const made = await s.t.request('POST', '/v2/documents', {
        body: { data: { type: 'document', attributes: { name: 'Invoice', attached_document: signed_id } } },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.data.attributes.name, 'Invoice');
      assert.equal(made.body.data.attributes.file_size_bytes, pdf.length);
      const doc = await s.settled(made.body.data.id);
      assert.equal(doc.data.attributes.document_type, 'commercial_invoice');
      const p = doc.included.find((r: { type: string }) => r.type === 'document_representation').attributes
        .payload;
      assert.equal(p.invoice_number, inv.expect.invoice_number);
      assert.equal(p.total_amount, inv.expect.total_amount);
      assert.equal(p.lines.length, inv.lines!.length);
      // It quotes the B/L: linked to the same shipment, and no second tracking request.
      await eventually(async () => {
        const r = await s.t.request('GET', `/v2/documents/${made.body.data.id}`);
        return r.body.data.relationships.shipments.data.length === 1;
      });
      const trs = await s.t.request('GET', `/v2/tracking_requests?filter[request_number]=${bl}`);
      assert.equal(trs.body.data.length, 1);
    });

    test('download links serve the bytes without a key, refuse tampering and expiry, and die with the document', async () => {
      const url = (await s.t.request('GET', `/v2/documents/${blId}/download_url`)).body
        .download_url as string;
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/pdf');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), blPdf);
      // Change the signature's first character to one it is not (a fixed 'A' matched 1 run in 64).
      const tampered = url.replace(/signature=(.)/, (_, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
      assert.notEqual(tampered, url);
      assert.equal((await fetch(tampered)).status, 403);
      assert.equal((await fetch(url.replace(/expires=\d+/, `expires=${Date.now() + 60_000}`))).status, 403);
      await new Promise((r) => setTimeout(r, 1600));
      assert.equal((await fetch(url)).status, 403, 'expired');
      const fresh = (await s.t.request('GET', `/v2/documents/${blId}/download_url`)).body
        .download_url as string;
      assert.equal((await fetch(fresh)).status, 200);

      const list = await s.t.request(
        'GET',
        '/v2/documents?filter[document_types]=bill_of_lading,packing_list',
      );
      assert.deepEqual(
        list.body.data.map((d: { id: string }) => d.id),
        [blId],
      );
      const byName = await s.t.request('GET', '/v2/documents?filter[filename]=scan');
      assert.deepEqual(
        byName.body.data.map((d: { id: string }) => d.id),
        [blId],
      );
      assert.equal((await s.t.request('GET', '/v2/documents?filter[document_types]=nope')).status, 400);
      const byRef = await s.t.request(
        'GET',
        `/v2/documents?filter[reference]=${blDoc.containers[0]!.number}`,
      );
      assert.deepEqual(
        byRef.body.data.map((d: { id: string }) => d.id),
        [blId],
      );

      assert.equal((await s.t.request('DELETE', `/v2/documents/${blId}`)).status, 204);
      assert.equal((await fetch(fresh)).status, 404);
      assert.equal((await s.t.request('GET', `/v2/documents/${blId}`)).status, 404);
      // Deleted documents do not count as duplicates.
      const back = await s.upload(blPdf, 'bl-again.pdf');
      assert.equal(back.status, 201);
      blId = back.body.data.id;
    });

    test('limits and file types: over DOCUMENT_MAX_BYTES is a 413, unknown bytes a 422', async () => {
      const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(150_001)]);
      assert.equal((await s.upload(big, 'big.pdf')).status, 413);
      const text = await s.upload(Buffer.from('just some text, named like a PDF'), 'fake.pdf');
      assert.equal(text.status, 422);
      assert.equal(text.body.errors[0].code, 'unsupported_file_type');
    });

    test('a corrupt PDF fails cleanly with a reason and a document.extraction_failed event', async () => {
      const corrupt = Buffer.concat([
        Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog'),
        Buffer.alloc(200, 0x41),
      ]);
      const up = await s.upload(corrupt, 'broken.pdf');
      assert.equal(up.status, 201);
      const doc = await s.settled(up.body.data.id);
      assert.equal(doc.data.attributes.extraction_status, 'failed');
      assert.equal(doc.data.attributes.extraction_failed_reason, 'unreadable_file');
      const ev = await eventually(
        async () =>
          s.receiver
            .at('/hook')
            .find(
              (r) =>
                r.json?.data?.attributes?.event === 'document.extraction_failed' &&
                r.json.data.relationships.reference_object.data.id === up.body.data.id,
            ),
        15_000,
        'extraction_failed delivered',
      );
      assert.ok(ev.json.included.some((r: { type: string }) => r.type === 'document'));
    });

    test('PATCH saves manual values; reextract makes a new representation and announces it again; rotate refuses PDFs', async () => {
      const doc = await s.settled(blId);
      const firstRep = doc.data.relationships.last_document_representation.data.id;
      const bad = await s.t.request('PATCH', `/v2/documents/${blId}`, {
        body: { data: { type: 'document', attributes: { document_type_manual: 'napkin' } } },
      });
      assert.equal(bad.status, 422);
      const ok = await s.t.request('PATCH', `/v2/documents/${blId}`, {
        body: {
          data: {
            type: 'document',
            attributes: { document_type_manual: 'sea_waybill', extracted_data_manual: { po: '42' } },
          },
        },
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.data.attributes.document_type_manual, 'sea_waybill');
      assert.equal(ok.body.data.attributes.document_type, 'bill_of_lading');
      assert.deepEqual(ok.body.data.attributes.extracted_data_manual, { po: '42' });
      const cleared = await s.t.request('PATCH', `/v2/documents/${blId}`, {
        body: { data: { type: 'document', attributes: { extracted_data_manual: null } } },
      });
      assert.equal(cleared.body.data.attributes.extracted_data_manual, null);

      const before = s.receiver
        .at('/hook')
        .filter((r) => r.json?.data?.relationships?.reference_object?.data?.id === blId).length;
      const re = await s.t.request('POST', `/v2/documents/${blId}/reextract`);
      assert.equal(re.status, 202);
      assert.deepEqual(re.body, { status: 'accepted' });
      const after = await eventually(async () => {
        const r = await s.t.request('GET', `/v2/documents/${blId}?include=last_document_representation`);
        const rep = r.body.data.relationships.last_document_representation.data;
        return rep && rep.id !== firstRep && r.body.data.attributes.extraction_status === 'extracted'
          ? r.body
          : null;
      });
      const rep = after.included.find((r: { type: string }) => r.type === 'document_representation');
      assert.match(rep.attributes.schema_version, /^sea_waybill@/, 'the manual type decides the schema');
      await eventually(
        async () =>
          s.receiver
            .at('/hook')
            .filter((r) => r.json?.data?.relationships?.reference_object?.data?.id === blId).length > before,
        15_000,
        'second document.extracted',
      );
      for (const path of ['reclassify', 'relink']) {
        assert.equal((await s.t.request('POST', `/v2/documents/${blId}/${path}`)).status, 202);
      }
      const rot = await s.t.request('POST', `/v2/documents/${blId}/rotate`, {
        body: { degrees: 90 },
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(rot.status, 422);
      assert.equal(
        (await s.t.request('POST', '/v2/documents/00000000-0000-4000-8000-000000000000/relink')).status,
        404,
      );
    });

    test('a document of no known type ends extracted as other, with a minimal payload and no links', async () => {
      const letter = await renderPdf(
        [
          { x: 50, y: 60, size: 14, text: 'Season greetings' },
          { x: 50, y: 90, size: 10, text: 'Dear customer, thank you for a good year of business together.' },
        ],
        'helvetica',
      );
      const up = await s.upload(letter, 'letter.pdf');
      const doc = await s.settled(up.body.data.id);
      assert.equal(doc.data.attributes.extraction_status, 'extracted');
      assert.equal(doc.data.attributes.document_type, 'other');
      assert.deepEqual(doc.data.relationships.shipments.data, []);
      const rep = doc.included.find((r: { type: string }) => r.type === 'document_representation');
      assert.match(rep.attributes.schema_version, /^other@/);
      assert.equal(rep.attributes.payload.title, 'Season greetings');
      assert.deepEqual(rep.attributes.payload.container_numbers, []);
    });

    test('types and schemas', async () => {
      const types = await s.t.request('GET', '/v2/documents/types');
      const codes = types.body.document_types.map((x: { code: string }) => x.code);
      for (const c of [
        'bill_of_lading',
        'sea_waybill',
        'arrival_notice',
        'booking_confirmation',
        'commercial_invoice',
        'packing_list',
        'delivery_order',
        'other',
      ]) {
        assert.ok(codes.includes(c), c);
      }
      const bare = await s.t.request('GET', '/v2/document_schemas/bill_of_lading');
      assert.equal(bare.status, 200);
      assert.equal(bare.body.data.attributes.schema_format, 'json_schema');
      const full = await s.t.request('GET', `/v2/document_schemas/${bare.body.data.id}`);
      assert.equal(full.body.data.attributes.full_version, bare.body.data.id);
      assert.ok(full.body.data.attributes.schema_payload.properties.containers);
      assert.equal((await s.t.request('GET', '/v2/document_schemas/unknown@2026-03-23')).status, 404);
      const ex = await s.t.request('GET', '/v2/webhook_notifications/examples?event=document.extracted');
      // The examples endpoint answers a list of one notification.
      assert.equal(ex.body.data[0].relationships.reference_object.data.type, 'document');
      assert.deepEqual(
        ex.body.included.map((r: { type: string }) => r.type),
        ['document', 'document_representation'],
      );
    });
  });
}
