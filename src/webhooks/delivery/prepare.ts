import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { renderRows } from '../notifications/render.ts';
import type { Claimed } from './claim.ts';
import type { DeliveryDeps } from './deps.ts';
import { loadWebhooks, type WebhookRow } from './webhook-cache.ts';

/** A claimed notification ready to go: its webhook loaded, its body stored (null only when the
 * webhook was inactive at claim time). */
export interface Ready extends Claimed {
  webhook: WebhookRow | undefined;
}

/**
 * Prepares a claim for sending: loads the webhooks (one query for those not cached), renders the
 * bodies of first attempts all at once, and stores them with one statement before anything is
 * sent, so every attempt (retries and redeliveries included) sends exactly the stored body.
 * Notifications of inactive webhooks are not rendered (they are settled as failed). Returns the
 * notifications that can go; the others are left out: deleted meanwhile (with their webhook), or
 * not renderable now (reported, and due again when their lease expires).
 */
export async function prepareClaimed(deps: DeliveryDeps, claimed: Claimed[]): Promise<Ready[]> {
  const { db } = deps;
  const webhooks = await loadWebhooks(
    db,
    claimed.map((n) => n.webhook_id),
  );
  const toRender = claimed.filter((n) => n.body === null && webhooks.get(n.webhook_id)?.active);
  const bodies = toRender.length > 0 ? await renderAll(deps, toRender) : new Map<string, string>();
  const stored = bodies.size > 0 ? await storeBodies(db, bodies) : bodies;
  const out: Ready[] = [];
  for (const n of claimed) {
    const body = n.body ?? stored.get(n.id) ?? null;
    const webhook = webhooks.get(n.webhook_id);
    if (body !== null || !webhook?.active) out.push({ ...n, body, webhook });
  }
  return out;
}

async function renderAll(deps: DeliveryDeps, rows: Claimed[]): Promise<Map<string, string>> {
  const render = deps.render ?? renderRows;
  try {
    return await render(deps.db, rows);
  } catch (err) {
    // One bad record must not hold back the batch: render one by one to find it.
    deps.log.warn({ err }, 'rendering a batch of notifications failed; rendering one by one');
    const bodies = new Map<string, string>();
    for (const n of rows) {
      try {
        for (const [k, v] of await render(deps.db, [n])) bodies.set(k, v);
      } catch (e) {
        deps.log.error({ err: e, notification: n.id }, 'rendering failed; retried when its lease expires');
      }
    }
    return bodies;
  }
}

/** Stores rendered bodies where none is stored yet; returns what is stored, id -> body. */
async function storeBodies(db: Kysely<DB>, bodies: Map<string, string>): Promise<Map<string, string>> {
  const ids = [...bodies.keys()];
  // Each body is a parameter of its own: sent as is, where an array literal would be escaped.
  const r = await sql<{ id: string }>`
    update webhook_notifications n set body = i.body
      from unnest(${ids}::uuid[], array[${sql.join(ids.map((id) => bodies.get(id)!))}]::text[]) as i(id, body)
     where n.id = i.id and n.body is null
    returning n.id`.execute(db);
  const stored = new Map<string, string>();
  for (const row of r.rows) stored.set(row.id, bodies.get(row.id)!);
  // Another worker may have rendered some first (after a lease expiry): deliver what is stored.
  const others = ids.filter((id) => !stored.has(id));
  if (others.length > 0) {
    const rows = await db
      .selectFrom('webhook_notifications')
      .select(['id', 'body'])
      .where(sql<boolean>`id = any(${others}::uuid[])`)
      .execute();
    for (const row of rows) if (row.body !== null) stored.set(row.id, row.body);
  }
  return stored;
}
