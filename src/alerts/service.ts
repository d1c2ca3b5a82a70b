import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { catalogueError, notFound } from '../errors.ts';
import type { Page } from '../util/page.ts';
import { isUuid } from '../util/uuid.ts';
import type { AlertRule, RuleValues } from './queries.ts';
import * as queries from './queries.ts';
import { nextDigestAt } from './schedule.ts';
import { linkKey, readUnsubscribeToken } from './unsubscribe.ts';
import { type RuleInput, validateRule } from './validate.ts';

// Alert rules: plain functions over (db, config, account, input) that the routes and the console
// share. The JSON shape is checked by the route schemas; validate.ts checks the rest.

export interface RuleAttributes {
  events?: string[];
  recipients?: string[];
  schedule?: 'immediate' | 'daily';
  daily_at?: string | null;
  time_zone?: string;
  filter?: { tags?: string[]; custom_fields?: Record<string, string | number | boolean> };
}

const NO_RULE = 'No alert rule with this id.';

/** Whether alert e-mails go out at all (SMTP_OUT_URL set): the API and console say so. */
export const deliveryEnabled = (config: Config): boolean => config.alerts.smtp !== null;

async function checked(
  db: Kysely<DB>,
  config: Config,
  accountId: string,
  r: RuleInput,
  now: Date,
  keepDigestAt?: Date | null,
): Promise<RuleValues> {
  const slugs = await queries.shipmentFieldSlugs(db, accountId, Object.keys(r.custom_fields));
  const v = validateRule(r, config.alerts.maxRecipients, slugs);
  return {
    events: v.events,
    recipients: v.recipients,
    schedule: v.schedule,
    daily_at: v.daily_at,
    time_zone: v.time_zone,
    filter_tags: v.tags,
    filter_custom_fields: v.custom_fields,
    next_digest_at:
      v.schedule === 'daily' ? (keepDigestAt ?? nextDigestAt(v.daily_at!, v.time_zone, now)) : null,
  };
}

export async function createRule(
  db: Kysely<DB>,
  config: Config,
  accountId: string,
  a: RuleAttributes & { events: string[]; recipients: string[] },
  now = new Date(),
): Promise<AlertRule> {
  if ((await queries.countRules(db, accountId)) >= config.alerts.maxRules)
    throw catalogueError(
      'limit_reached',
      `The account has ${config.alerts.maxRules} alert rules, the most ALERT_MAX_RULES allows.`,
    );
  const schedule = a.schedule ?? 'immediate';
  const values = await checked(
    db,
    config,
    accountId,
    {
      events: a.events,
      recipients: a.recipients,
      schedule,
      daily_at: a.daily_at ?? null,
      time_zone: a.time_zone ?? 'UTC',
      tags: a.filter?.tags ?? [],
      custom_fields: a.filter?.custom_fields ?? {},
    },
    now,
  );
  return queries.insertRule(db, accountId, values);
}

export function listRules(db: Kysely<DB>, accountId: string, page: Page) {
  return queries.listRules(db, accountId, page);
}

export async function getRule(db: Kysely<DB>, accountId: string, id: string): Promise<AlertRule> {
  const r = await queries.findRule(db, accountId, id);
  if (!r) throw notFound(NO_RULE);
  return r;
}

/** Replaces the attributes given; the whole rule must still be valid. */
export async function editRule(
  db: Kysely<DB>,
  config: Config,
  accountId: string,
  id: string,
  a: RuleAttributes,
  now = new Date(),
): Promise<AlertRule> {
  const old = await getRule(db, accountId, id);
  const merged: RuleInput = {
    events: a.events ?? old.events,
    recipients: a.recipients ?? old.recipients,
    schedule: a.schedule ?? old.schedule,
    daily_at: a.daily_at !== undefined ? a.daily_at : a.schedule === 'immediate' ? null : old.daily_at,
    time_zone: a.time_zone ?? old.time_zone,
    tags: a.filter?.tags ?? old.filter_tags,
    custom_fields: a.filter?.custom_fields ?? old.filter_custom_fields,
  };
  // The next digest keeps its time unless the hour, zone or schedule changed.
  const same =
    merged.schedule === old.schedule &&
    merged.daily_at === old.daily_at &&
    merged.time_zone === old.time_zone;
  const values = await checked(db, config, accountId, merged, now, same ? old.next_digest_at : null);
  const r = await queries.updateRule(db, accountId, id, values);
  if (!r) throw notFound(NO_RULE);
  return r;
}

export async function deleteRule(db: Kysely<DB>, accountId: string, id: string): Promise<void> {
  if (!(await queries.deleteRule(db, accountId, id))) throw notFound(NO_RULE);
}

/**
 * Follows an unsubscribe link: removes its address from its rule. Answers false for a link that is
 * not valid; a valid link whose rule is gone or no longer names the address is still true, so the
 * answer tells nothing about the rule.
 */
export async function unsubscribe(db: Kysely<DB>, config: Config, token: string): Promise<boolean> {
  const t = readUnsubscribeToken(await linkKey(db, config.documents.urlSecret), token);
  if (!t || !isUuid(t.ruleId)) return false;
  await queries.removeRecipient(db, t.ruleId, t.address);
  return true;
}
