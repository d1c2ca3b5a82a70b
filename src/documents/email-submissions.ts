import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { byIds } from '../db/by-ids.ts';
import type { DB, EmailSubmissionsTable } from '../db/schema.ts';
import { iso, many, one, type Resource } from '../jsonapi/resource.ts';

// E-mails received on an account's inbound address: the record of each, linked both ways to the
// documents made from its attachments.

/** An e-mail as COLUMNS reads it: its table's columns (src/db/schema.ts) and its documents. */
export type EmailSubmissionRow = Selectable<EmailSubmissionsTable> & { document_ids: string[] };

const COLUMNS = sql`e.id, e.account_id, e.subject, e.body, e.from_addresses, e.to_addresses, e.cc_addresses,
  e.message_id, e.in_reply_to, e.reference_ids, e.content_type, e.sent_at, e.created_at, e.updated_at,
  array(select d.id::text from documents d where d.email_submission_id = e.id order by d.created_at, d.id) as document_ids`;

export type NewSubmission = Omit<EmailSubmissionRow, 'id' | 'created_at' | 'updated_at' | 'document_ids'>;

export async function insertSubmission(db: Kysely<DB>, s: NewSubmission): Promise<string> {
  const id = randomUUID();
  await sql`insert into email_submissions (id, account_id, subject, body, from_addresses, to_addresses, cc_addresses,
      message_id, in_reply_to, reference_ids, content_type, sent_at)
    values (${id}, ${s.account_id}, ${s.subject}, ${s.body}, ${s.from_addresses}, ${s.to_addresses}, ${s.cc_addresses},
      ${s.message_id}, ${s.in_reply_to}, ${s.reference_ids}, ${s.content_type}, ${s.sent_at})`.execute(db);
  return id;
}

export const emailSubmissionsByIds = byIds<EmailSubmissionRow>(async (db, accountId, ids) => {
  const r = await sql<EmailSubmissionRow>`select ${COLUMNS} from email_submissions e
      where e.account_id = ${accountId} and e.id = any(${ids}::uuid[])`.execute(db);
  return r.rows;
});

export async function listSubmissions(
  db: Kysely<DB>,
  accountId: string,
  page: { number: number; size: number },
): Promise<{ rows: EmailSubmissionRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    sql<EmailSubmissionRow>`select ${COLUMNS} from email_submissions e where e.account_id = ${accountId}
      order by e.created_at desc, e.id desc limit ${page.size} offset ${(page.number - 1) * page.size}`.execute(
      db,
    ),
    sql<{
      n: number;
    }>`select count(*)::int as n from email_submissions where account_id = ${accountId}`.execute(db),
  ]);
  return { rows: rows.rows, total: total.rows[0]?.n ?? 0 };
}

const preview = (body: string | null) => (body ? body.replace(/\s+/g, ' ').trim().slice(0, 200) : null);

export function serializeSubmission(e: EmailSubmissionRow): Resource {
  return {
    id: e.id,
    type: 'email_submission',
    attributes: {
      subject: e.subject ?? '',
      body: e.body,
      body_preview: preview(e.body),
      from: e.from_addresses,
      to: e.to_addresses,
      cc: e.cc_addresses,
      sent_at: iso(e.sent_at),
      message_id: e.message_id,
      in_reply_to: e.in_reply_to,
      references: e.reference_ids,
      content_type: e.content_type,
      documents_count: e.document_ids.length,
      created_at: iso(e.created_at),
      updated_at: iso(e.updated_at),
    },
    relationships: {
      account: one('account', e.account_id),
      user: { data: null },
      documents: many('document', e.document_ids),
    },
    links: { self: `/v2/email_submissions/${e.id}` },
  };
}

/** The submission as a document includes it (the reference's document_email_submission). */
export function serializeSubmissionForDocument(e: EmailSubmissionRow): Resource {
  return {
    id: e.id,
    type: 'email_submission',
    attributes: {
      subject: e.subject,
      body_preview: preview(e.body),
      from: e.from_addresses,
      to: e.to_addresses,
      cc: e.cc_addresses,
      message_id: e.message_id,
      sent_at: iso(e.sent_at),
      created_at: iso(e.created_at),
      updated_at: iso(e.updated_at),
    },
  };
}
