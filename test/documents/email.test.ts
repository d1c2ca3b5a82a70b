import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { inboundAddress } from '../../src/mail/addresses.ts';
import { type SmtpListener, startSmtpServer } from '../../src/mail/smtp.ts';
import { ENGINES } from '../helpers/db.ts';
import { type DocumentStack, startDocumentStack } from '../helpers/doc-api.ts';
import { transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderPdf, renderScan } from '../helpers/doc-render.ts';
import { eventually } from '../helpers/engine.ts';
import { mimeMessage, sendMail } from '../helpers/smtp-client.ts';

// Mail in, on both engines: a message to an account's inbound address becomes an email
// submission and one document per supported attachment (a text PDF and a scanned PNG read by
// OCR); unknown recipients are refused at RCPT; oversize messages on DATA.

for (const engine of ENGINES) {
  describe(`documents: email in [${engine}]`, () => {
    let s: DocumentStack;
    let smtp: SmtpListener;
    let address: string;

    before(async () => {
      s = await startDocumentStack(engine, { INBOUND_EMAIL_DOMAIN: 'inbox.test', SMTP_MAX_BYTES: '1500000' });
      smtp = await startSmtpServer({
        database: s.t.database,
        config: s.t.config,
        log: pino({ level: 'silent' }),
      });
      address = await inboundAddress(s.t.database.db, s.t.accountId, 'inbox.test');
    });
    after(async () => {
      await smtp?.close();
      await s?.close();
    });

    test('an arrival notice PDF and a scanned B/L arrive as one submission with two documents', async () => {
      const notice = transportDoc(21, 'arrival_notice');
      const scanned = transportDoc(22, 'bill_of_lading');
      const pdf = await renderPdf(layoutOps(notice, 'boxed'), 'helvetica');
      const png = await renderScan(layoutOps(scanned, 'inline'), { skew: 0.4 });
      const sent = new Date('2026-11-20T08:30:00Z');
      const msg = mimeMessage({
        from: 'desk@carrier.example',
        to: [address],
        cc: ['ops@forwarder.example'],
        subject: 'Arrival notice and B/L',
        text: 'Please find attached the arrival notice and the bill of lading.',
        messageId: '<an-123@carrier.example>',
        date: sent,
        attachments: [
          { filename: 'arrival-notice.pdf', contentType: 'application/pdf', content: pdf },
          { filename: 'bl-scan.png', contentType: 'image/png', content: png },
          { filename: 'notes.txt', contentType: 'text/plain', content: Buffer.from('not a document') },
        ],
      });
      const r = await sendMail(smtp.port, { from: 'desk@carrier.example', to: [address] }, msg);
      assert.deepEqual(r.rcpt, [250]);
      assert.equal(r.data, 250, r.dataText);

      const list = await s.t.request('GET', '/v2/email_submissions');
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 1);
      const sub = list.body.data[0];
      assert.equal(sub.attributes.subject, 'Arrival notice and B/L');
      assert.deepEqual(sub.attributes.from, ['desk@carrier.example']);
      assert.deepEqual(sub.attributes.to, [address]);
      assert.deepEqual(sub.attributes.cc, ['ops@forwarder.example']);
      assert.equal(sub.attributes.message_id, '<an-123@carrier.example>');
      assert.equal(sub.attributes.sent_at, sent.toISOString());
      assert.match(sub.attributes.body_preview, /^Please find attached/);
      assert.equal(sub.attributes.documents_count, 2);
      const docIds = sub.relationships.documents.data.map((d: { id: string }) => d.id);
      assert.equal(docIds.length, 2);

      for (const id of docIds) await s.settled(id, undefined, 90_000);
      const one = await s.t.request('GET', `/v2/email_submissions/${sub.id}`);
      assert.equal(one.status, 200);
      const docs = one.body.included.filter((x: { type: string }) => x.type === 'document');
      const reps = one.body.included.filter((x: { type: string }) => x.type === 'document_representation');
      assert.equal(docs.length, 2, 'documents included by default');
      assert.equal(reps.length, 2, 'and their representations');
      const byName = new Map(
        docs.map((d: { id: string; attributes: { name: string } }) => [d.attributes.name, d.id]),
      );

      const an = await s.settled(byName.get('arrival-notice.pdf') as string);
      assert.equal(an.data.attributes.source, 'email');
      assert.equal(an.data.attributes.document_type, 'arrival_notice');
      assert.equal(an.data.relationships.email_submission.data.id, sub.id);
      const anRep = an.included.find((x: { type: string }) => x.type === 'document_representation').attributes
        .payload;
      assert.equal(anRep.bill_of_lading_number, notice.expect.bill_of_lading_number);
      assert.equal(anRep.estimated_arrival_date, notice.expect.estimated_arrival_date);
      assert.equal(anRep.port_of_discharge.locode, notice.expect['port_of_discharge.locode']);

      const bl = await s.settled(byName.get('bl-scan.png') as string);
      assert.equal(bl.data.attributes.file_content_type, 'image/png');
      assert.equal(bl.data.attributes.document_type, 'bill_of_lading');
      const blRep = bl.included.find((x: { type: string }) => x.type === 'document_representation').attributes
        .payload;
      assert.equal(blRep.bill_of_lading_number, scanned.expect.bill_of_lading_number, 'read by OCR');
      assert.equal(
        blRep.containers[0]?.number,
        scanned.containers[0]!.number,
        'container number read by OCR',
      );

      await eventually(
        async () =>
          s.receiver.at('/hook').filter((x) => x.json?.data?.attributes?.event === 'document.extracted')
            .length >= 2,
        15_000,
        'two document.extracted events',
      );
    });

    test('unknown recipients are refused at RCPT; an oversize message on DATA', async () => {
      const r = await sendMail(
        smtp.port,
        { from: 'x@example.com', to: ['nobody@inbox.test', 'a@elsewhere.test'] },
        'Subject: x\r\n\r\nx',
      );
      assert.deepEqual(r.rcpt, [550, 550]);
      assert.equal(r.data, null);
      const big = mimeMessage({
        from: 'x@example.com',
        to: [address],
        subject: 'big',
        text: 'big',
        messageId: '<big@example.com>',
        date: new Date(),
        attachments: [
          { filename: 'big.pdf', contentType: 'application/pdf', content: Buffer.alloc(1_300_000, 1) },
        ],
      });
      const r2 = await sendMail(smtp.port, { from: 'x@example.com', to: [address] }, big);
      assert.equal(r2.data, 552);
      const list = await s.t.request('GET', '/v2/email_submissions');
      assert.equal(list.body.data.length, 1, 'nothing stored for refused mail');
    });
  });
}
