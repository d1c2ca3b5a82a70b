import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import { invalidAttribute, notFound } from '../../errors.ts';
import type { Page } from '../../util/page.ts';
import { isUuid } from '../../util/uuid.ts';
import { EVENT_NAMES, isKnownEvent } from '../catalogue.ts';
import { generateSecret } from '../delivery/sign.ts';
import { sendTestDelivery, type TestDelivery } from '../delivery/test-delivery.ts';
import type { Webhook, WebhookHeader } from './queries.ts';
import * as queries from './queries.ts';
import { ATTRS, checkUrl, type RefusalLog, validateEvents, validateHeaders } from './validate.ts';

// Webhook subscriptions: plain functions over (db, config, account, input) that the routes, and any
// other caller, share. Input has its JSON shape checked already (route schemas); the rules beyond
// it (known events, sendable headers, receivers the outbound guard allows) are checked here.
// Another account's webhook is never found: every query filters by the account.

export interface NewWebhookInput {
  url: string;
  /** Omitted: every event. */
  events?: string[];
  active?: boolean;
  headers?: WebhookHeader[] | null;
  description?: string | null;
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  /** true reactivates a webhook the service deactivated. */
  active?: boolean;
  headers?: WebhookHeader[] | null;
  description?: string | null;
  /** A new secret; the old one keeps signing, as previous, for the rotation grace period. */
  rotate_secret?: boolean;
}

const NO_WEBHOOK = 'No webhook with this id.';

/** An id that cannot be a webhook's is simply not found. */
function webhookId(id: string): string {
  if (!isUuid(id)) throw notFound(NO_WEBHOOK);
  return id;
}

export async function createWebhook(
  db: Kysely<DB>,
  config: Config,
  accountId: string,
  input: NewWebhookInput,
  log: RefusalLog,
): Promise<Webhook> {
  const events = input.events ? validateEvents(input.events, `${ATTRS}/events`) : [...EVENT_NAMES];
  const headers = validateHeaders(input.headers, config);
  const url = await checkUrl(config, input.url, `${ATTRS}/url`, log);
  return queries.insertWebhook(db, accountId, {
    url,
    events,
    active: input.active ?? true,
    headers,
    secret: generateSecret(),
    description: input.description ?? null,
  });
}

/** Newest first. */
export function listWebhooks(
  db: Kysely<DB>,
  accountId: string,
  filter: { active?: boolean },
  page: Page,
): Promise<{ rows: Webhook[]; total: number }> {
  return queries.listWebhooks(db, accountId, filter, page);
}

export async function getWebhook(db: Kysely<DB>, accountId: string, id: string): Promise<Webhook> {
  const w = await queries.findWebhook(db, accountId, webhookId(id));
  if (!w) throw notFound(NO_WEBHOOK);
  return w;
}

export async function editWebhook(
  db: Kysely<DB>,
  config: Config,
  accountId: string,
  id: string,
  changes: WebhookChanges,
  log: RefusalLog,
): Promise<Webhook> {
  webhookId(id);
  // 404 before validation of values: the URL check may take a DNS look-up.
  if (!(await queries.findWebhook(db, accountId, id))) throw notFound(NO_WEBHOOK);
  const events = changes.events ? validateEvents(changes.events, `${ATTRS}/events`) : undefined;
  const headers = changes.headers !== undefined ? validateHeaders(changes.headers, config) : undefined;
  const url =
    changes.url !== undefined ? await checkUrl(config, changes.url, `${ATTRS}/url`, log) : undefined;
  const w = await queries.updateWebhook(db, accountId, id, {
    url,
    events,
    headers,
    active: changes.active,
    description: changes.description,
    rotate: changes.rotate_secret
      ? { secret: generateSecret(), graceMs: config.webhooks.secretRotationGraceMs }
      : undefined,
  });
  if (!w) throw notFound(NO_WEBHOOK);
  return w;
}

/** Deletes a webhook with its notifications and their attempt logs. */
export async function deleteWebhook(db: Kysely<DB>, accountId: string, id: string): Promise<void> {
  if (!(await queries.deleteWebhook(db, accountId, webhookId(id)))) throw notFound(NO_WEBHOOK);
}

/** POSTs one sample notification of `event` to `url`, once, signed when `secret` is given; stores nothing. */
export async function triggerTestDelivery(
  config: Config,
  input: { url: string; event: string; secret?: string },
  log: RefusalLog,
): Promise<TestDelivery> {
  if (!isKnownEvent(input.event)) {
    throw invalidAttribute(
      '/event',
      `Unknown event "${input.event}". GET /v2/webhooks/events lists them.`,
      'unknown_event',
    );
  }
  const url = await checkUrl(config, input.url, '/url', log);
  return sendTestDelivery(config, { url, event: input.event, secret: input.secret }, log);
}
