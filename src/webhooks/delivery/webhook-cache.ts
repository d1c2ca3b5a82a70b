import { type Kysely, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { DB } from '../../db/schema.ts';

// What delivery needs of a webhook (its URL, headers, secrets and health), cached per process.

export interface WebhookRow {
  id: string;
  url: string;
  headers: Array<{ name: string; value: string }>;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  active: boolean;
  failing_since: Date | null;
}

// Webhook settings change rarely and are read for every delivery: keep them for a second.
const WEBHOOK_CACHE_MS = 1000;
const webhookCache = new LRUCache<string, { at: number; row: WebhookRow | undefined }>({ max: 10_000 });

const WEBHOOK_COLUMNS = [
  'id',
  'url',
  'headers',
  'secret',
  'previous_secret',
  'previous_secret_expires_at',
  'active',
  'failing_since',
] as const;

function cached(id: string): WebhookRow | undefined | null {
  const hit = webhookCache.get(id);
  return hit && Date.now() - hit.at < WEBHOOK_CACHE_MS ? hit.row : null;
}

function remember(id: string, row: WebhookRow | undefined): void {
  webhookCache.set(id, { at: Date.now(), row });
}

/** The given webhooks, from the cache or (those missing or stale) with one query. */
export async function loadWebhooks(
  db: Kysely<DB>,
  ids: string[],
): Promise<Map<string, WebhookRow | undefined>> {
  const out = new Map<string, WebhookRow | undefined>();
  const stale: string[] = [];
  for (const id of new Set(ids)) {
    const hit = cached(id);
    if (hit === null) stale.push(id);
    else out.set(id, hit);
  }
  if (stale.length === 0) return out;
  const rows = await db
    .selectFrom('webhooks')
    .select(WEBHOOK_COLUMNS)
    .where(sql<boolean>`id = any(${stale}::uuid[])`)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r as WebhookRow]));
  for (const id of stale) {
    remember(id, byId.get(id));
    out.set(id, byId.get(id));
  }
  return out;
}

export async function loadWebhook(db: Kysely<DB>, id: string): Promise<WebhookRow | undefined> {
  return (await loadWebhooks(db, [id])).get(id);
}

/** Drops a cached webhook: after its health changed, or before settling on a stale "inactive". */
export function forgetWebhook(id: string): void {
  webhookCache.delete(id);
}
