import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { byId } from '../db/by-ids.ts';
import { paged, total } from '../db/paged.ts';
import type { DB } from '../db/schema.ts';
import type { Page } from '../util/page.ts';
import { isUuid } from '../util/uuid.ts';
import { gatherDigest } from './delivery/queries.ts';

// Alert rules. Every query filters by account_id: another account's rule is never found, listed,
// changed or deleted.

export interface AlertRule {
  id: string;
  account_id: string;
  events: string[];
  recipients: string[];
  schedule: string;
  daily_at: string | null;
  time_zone: string;
  filter_tags: string[];
  filter_custom_fields: Record<string, string | number | boolean>;
  next_digest_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'account_id',
  'events',
  'recipients',
  'schedule',
  'daily_at',
  'time_zone',
  'filter_tags',
  'filter_custom_fields',
  'next_digest_at',
  'created_at',
  'updated_at',
] as const;

export type RuleValues = Omit<AlertRule, 'id' | 'account_id' | 'created_at' | 'updated_at'>;

export async function insertRule(db: Kysely<DB>, accountId: string, r: RuleValues): Promise<AlertRule> {
  return db
    .insertInto('alert_rules')
    .values({
      id: randomUUID(),
      account_id: accountId,
      ...r,
      filter_custom_fields: JSON.stringify(r.filter_custom_fields),
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export const findRule = byId<AlertRule>((db, accountId, id) =>
  db
    .selectFrom('alert_rules')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst(),
);

export async function countRules(db: Kysely<DB>, accountId: string): Promise<number> {
  const r = await db
    .selectFrom('alert_rules')
    .select(total)
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Newest first. */
export function listRules(
  db: Kysely<DB>,
  accountId: string,
  page: Page,
): Promise<{ rows: AlertRule[]; total: number }> {
  const q = db.selectFrom('alert_rules').where('account_id', '=', accountId);
  return paged(q.select(COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc'), q.select(total), page);
}

/**
 * Writes a rule's new values and drops what was waiting for addresses it no longer names (pending
 * messages are cancelled, digest items not yet gathered deleted), in one transaction. A daily rule
 * made immediate sends what waited for its digest at once.
 */
export async function updateRule(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  r: RuleValues,
): Promise<AlertRule | undefined> {
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable('alert_rules')
      .set({ ...r, filter_custom_fields: JSON.stringify(r.filter_custom_fields), updated_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
    if (row) await dropWaiting(tx, id, r.recipients, true);
    // A rule that is no longer daily has no digest hour left: what waited for one goes now, as
    // the digest it was to be, rather than waiting for ever.
    if (row && r.schedule === 'immediate') await gatherDigest(tx, id, null);
    return row;
  });
}

/**
 * Cancels what waits for `addresses` of a rule (or, with `except`, for every address but them):
 * pending messages and digest items not yet gathered. Sent and failed messages stay as they are.
 */
export async function dropWaiting(
  tx: Kysely<DB>,
  ruleId: string,
  addresses: string[],
  except = false,
): Promise<void> {
  const match = except
    ? sql<boolean>`not (address = any (${addresses}::text[]))`
    : sql<boolean>`address = any (${addresses}::text[])`;
  await sql`update alert_messages set status = 'cancelled', lease_owner = null, lease_expires_at = null,
                   updated_at = now()
             where rule_id = ${ruleId} and status = 'pending' and ${match}`.execute(tx);
  await sql`delete from alert_items where rule_id = ${ruleId} and message_id is null and ${match}`.execute(
    tx,
  );
}

export async function deleteRule(db: Kysely<DB>, accountId: string, id: string): Promise<boolean> {
  // An id that is no UUID names no rule; the database would refuse the cast (see byId).
  if (!isUuid(id)) return false;
  const r = await db
    .deleteFrom('alert_rules')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * Removes one address from a rule (the unsubscribe link): it is no longer alerted, and what was
 * waiting for it is cancelled. Answers whether the rule named it.
 */
export async function removeRecipient(db: Kysely<DB>, ruleId: string, address: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const r = await sql<{ id: string }>`
      update alert_rules set recipients = array_remove(recipients, ${address}), updated_at = now()
       where id = ${ruleId} and ${address} = any (recipients)
      returning id`.execute(tx);
    await dropWaiting(tx, ruleId, [address]);
    return r.rows.length > 0;
  });
}

/** The account's custom field slugs of shipments among `slugs` (a filter may name only those). */
export async function shipmentFieldSlugs(
  db: Kysely<DB>,
  accountId: string,
  slugs: string[],
): Promise<Set<string>> {
  if (slugs.length === 0) return new Set();
  const rows = await db
    .selectFrom('custom_field_definitions')
    .select('api_slug')
    .where('account_id', '=', accountId)
    .where('entity_type', '=', 'Shipment')
    .where('api_slug', 'in', slugs)
    .execute();
  return new Set(rows.map((r) => r.api_slug));
}
