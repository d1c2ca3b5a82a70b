import type { Kysely } from 'kysely';
import { type AddressObject, type ParsedMail, simpleParser } from 'mailparser';
import type { Logger } from 'pino';
import type { DB } from '../db/schema.ts';
import { insertSubmission } from '../documents/email-submissions.ts';
import type { FileStorage } from '../documents/file-storage.ts';
import { detectFileKind } from '../documents/file-type.ts';
import { createDocument } from '../documents/service.ts';
import { ApiError } from '../errors.ts';

// An accepted message becomes one email submission per recipient account and one document per
// supported attachment (PDF, PNG, JPEG, TIFF by their bytes), linked both ways.

const addresses = (a: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address ?? '').filter(Boolean));

export interface IngestResult {
  submissionId: string;
  documentIds: string[];
  skipped: Array<{ filename: string; reason: string }>;
}

export async function ingestMessage(
  deps: { db: Kysely<DB>; storage: FileStorage; log: Logger; maxBytes: number },
  raw: Buffer,
  accountIds: string[],
): Promise<IngestResult[]> {
  const mail: ParsedMail = await simpleParser(raw, { skipHtmlToText: false });
  const out: IngestResult[] = [];
  for (const accountId of accountIds) {
    const submissionId = await insertSubmission(deps.db, {
      account_id: accountId,
      subject: mail.subject ?? null,
      body: (mail.text ?? '').slice(0, 100_000) || null,
      from_addresses: addresses(mail.from),
      to_addresses: addresses(mail.to),
      cc_addresses: addresses(mail.cc),
      message_id: mail.messageId ?? null,
      in_reply_to: mail.inReplyTo ?? null,
      reference_ids: Array.isArray(mail.references)
        ? mail.references
        : mail.references
          ? [mail.references]
          : [],
      content_type: mail.headers.get('content-type')
        ? String((mail.headers.get('content-type') as { value?: string }).value ?? '') || null
        : null,
      sent_at: mail.date ?? null,
    });
    const result: IngestResult = { submissionId, documentIds: [], skipped: [] };
    for (const a of mail.attachments) {
      const filename = a.filename ?? 'attachment';
      // Images embedded in the body (logos, signatures: multipart/related) are not documents.
      if (a.related) {
        result.skipped.push({ filename, reason: 'inline_image' });
        continue;
      }
      if (!detectFileKind(a.content)) {
        result.skipped.push({ filename, reason: 'unsupported_file_type' });
        continue;
      }
      try {
        const doc = await createDocument(
          deps.db,
          deps.storage,
          {
            accountId,
            bytes: a.content,
            fileName: filename,
            source: 'email',
            emailSubmissionId: submissionId,
          },
          deps.maxBytes,
        );
        result.documentIds.push(doc.id);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        result.skipped.push({ filename, reason: err.errors[0]?.code ?? 'refused' });
      }
    }
    if (result.skipped.length)
      deps.log.info({ submissionId, skipped: result.skipped }, 'email attachments skipped');
    out.push(result);
  }
  return out;
}
