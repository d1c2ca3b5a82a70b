import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { byId, byIds } from '../../db/by-ids.ts';
import { paged, total } from '../../db/paged.ts';
import type { DB } from '../../db/schema.ts';
import type { Page } from '../../util/page.ts';

// Webhook subscriptions. Every query filters by account_id: another account's webhook is never
// found, listed, changed or deleted.

export interface WebhookHeader {
  name: string;
  value: string;
}

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  headers: WebhookHeader[];
  secret: string;
  previous_secret_expires_at: Date | null;
  description: string | null;
  failing_since: Date | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  deactivated_at: Date | null;
  deactivation_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'url',
  'events',
  'active',
  'headers',
  'secret',
  'previous_secret_expires_at',
  'description',
  'failing_since',
  'last_success_at',
  'last_failure_at',
  'deactivated_at',
  'deactivation_reason',
  'created_at',
  'updated_at',
] as const;

export interface NewWebhook {
  url: string;
  events: string[];
  active: boolean;
  headers: WebhookHeader[];
  secret: string;
  description: string | null;
}

export async function insertWebhook(db: Kysely<DB>, accountId: string, w: NewWebhook): Promise<Webhook> {
  return db
    .insertInto('webhooks')
    .values({
      id: randomUUID(),
      account_id: accountId,
      url: w.url,
      events: w.events,
      active: w.active,
      headers: JSON.stringify(w.headers),
      secret: w.secret,
      description: w.description,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** The account's webhooks with their columns, to narrow with `where`. */
function accountWebhooks(db: Kysely<DB>, accountId: string) {
  return db.selectFrom('webhooks').select(COLUMNS).where('account_id', '=', accountId);
}

export const findWebhook = byId<Webhook>((db, accountId, id) =>
  accountWebhooks(db, accountId).where('id', '=', id).executeTakeFirst(),
);

/** The account's webhooks with these ids (for `include=webhook`). */
export const webhooksByIds = byIds<Webhook>((db, accountId, ids) =>
  accountWebhooks(db, accountId)
    .where('id', 'in', ids)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute(),
);

export async function listWebhooks(
  db: Kysely<DB>,
  accountId: string,
  filter: { active?: boolean },
  page: Page,
): Promise<{ rows: Webhook[]; total: number }> {
  let q = db.selectFrom('webhooks').where('account_id', '=', accountId);
  if (filter.active !== undefined) q = q.where('active', '=', filter.active);
  return paged(q.select(COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc'), q.select(total), page);
}

export interface WebhookPatch {
  url?: string;
  events?: string[];
  headers?: WebhookHeader[];
  active?: boolean;
  description?: string | null;
  /** A new secret; the current one becomes the previous secret for `graceMs`. */
  rotate?: { secret: string; graceMs: number };
}

/**
 * Applies a patch in one statement. Setting `active: true` on an inactive webhook reactivates it:
 * the deactivation fields and the failure window are cleared (on an active webhook it changes
 * nothing, so it cannot be used to postpone a deactivation). A new URL also starts a fresh
 * failure window: the failures belonged to the old endpoint.
 */
export async function updateWebhook(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  patch: WebhookPatch,
): Promise<Webhook | undefined> {
  const set: Record<string, unknown> = {};
  if (patch.url !== undefined) {
    set.url = patch.url;
    set.failing_since = sql`case when url = ${patch.url} then failing_since else null end`;
  }
  if (patch.events !== undefined) set.events = patch.events;
  if (patch.headers !== undefined) set.headers = JSON.stringify(patch.headers);
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.active !== undefined) {
    set.active = patch.active;
    if (patch.active) {
      set.deactivated_at = sql`case when active then deactivated_at else null end`;
      set.deactivation_reason = sql`case when active then deactivation_reason else null end`;
      set.failing_since =
        patch.url !== undefined
          ? sql`case when active and url = ${patch.url} then failing_since else null end`
          : sql`case when active then failing_since else null end`;
    }
  }
  if (patch.rotate) {
    set.secret = patch.rotate.secret;
    // Right-hand sides see the row as it was: the old secret becomes the previous one.
    if (patch.rotate.graceMs > 0) {
      set.previous_secret = sql`secret`;
      set.previous_secret_expires_at = sql`now() + make_interval(secs => ${patch.rotate.graceMs / 1000})`;
    } else {
      set.previous_secret = null;
      set.previous_secret_expires_at = null;
    }
  }
  if (Object.keys(set).length === 0) return findWebhook(db, accountId, id);
  set.updated_at = sql`now()`;
  return db
    .updateTable('webhooks')
    .set(set)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** Deletes a webhook; its notifications and their attempt logs go with it (foreign keys cascade). */
export async function deleteWebhook(db: Kysely<DB>, accountId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('webhooks')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
