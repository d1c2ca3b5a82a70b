import { ApiError, type ErrorCode } from '../errors.ts';
import { isKnownEvent } from '../webhooks/catalogue.ts';
import { isTimeZone } from './schedule.ts';

// An alert rule's attributes beyond their JSON shape (the route schemas check that): known events,
// e-mail addresses within the configured count, a real time zone, daily_at exactly for daily rules.
// Every problem of a body is reported at once, each pointing at its attribute.

export const ATTRS = '/data/attributes';

export interface RuleInput {
  events: string[];
  recipients: string[];
  schedule: string;
  daily_at: string | null;
  time_zone: string;
  tags: string[];
  custom_fields: Record<string, string | number | boolean>;
}

type Problem = { source: { pointer: string }; detail: string; code: ErrorCode };

// A practical address: a dot-atom local part and a host name with at least one dot (RFC 5321 sizes).
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isEmailAddress(a: string): boolean {
  const at = a.lastIndexOf('@');
  if (at < 1 || a.length > 254) return false;
  const local = a.slice(0, at);
  const labels = a.slice(at + 1).split('.');
  return local.length <= 64 && LOCAL.test(local) && labels.length >= 2 && labels.every((l) => LABEL.test(l));
}

/** Normalised addresses compare equal: surrounding space dropped, lower case. */
export const normaliseAddress = (a: string): string => a.trim().toLowerCase();

/**
 * Checks a whole rule (a create, or an edit merged into the stored rule); answers it normalised or
 * throws one 422 with every problem. `knownSlugs`: the account's shipment custom field slugs.
 */
export function validateRule(r: RuleInput, maxRecipients: number, knownSlugs: Set<string>): RuleInput {
  const problems: Problem[] = [];
  const at = (name: string) => `${ATTRS}/${name}`;
  r.events.forEach((ev, i) => {
    if (!isKnownEvent(ev))
      problems.push({
        source: { pointer: `${at('events')}/${i}` },
        detail: `Unknown event "${ev}". GET /v2/webhooks/events lists them.`,
        code: 'unknown_event',
      });
  });
  const recipients = r.recipients.map(normaliseAddress);
  if (recipients.length > maxRecipients)
    problems.push({
      source: { pointer: at('recipients') },
      detail: `At most ${maxRecipients} recipients (ALERT_MAX_RECIPIENTS).`,
      code: 'too_long',
    });
  const seen = new Set<string>();
  recipients.forEach((a, i) => {
    const pointer = `${at('recipients')}/${i}`;
    if (!isEmailAddress(a))
      problems.push({
        source: { pointer },
        detail: `"${a}" is not an e-mail address.`,
        code: 'invalid_email',
      });
    else if (seen.has(a))
      problems.push({ source: { pointer }, detail: `${a} is given more than once.`, code: 'not_unique' });
    seen.add(a);
  });
  if (!isTimeZone(r.time_zone))
    problems.push({
      source: { pointer: at('time_zone') },
      detail: `"${r.time_zone}" is not an IANA time zone name (e.g. Europe/Berlin).`,
      code: 'invalid_time_zone',
    });
  if (r.schedule === 'daily' && r.daily_at === null)
    problems.push({
      source: { pointer: at('daily_at') },
      detail: 'A daily rule needs daily_at (HH:MM).',
      code: 'blank',
    });
  if (r.schedule === 'immediate' && r.daily_at !== null)
    problems.push({
      source: { pointer: at('daily_at') },
      detail: 'daily_at is for daily rules only; set it to null or the schedule to daily.',
      code: 'invalid',
    });
  for (const slug of Object.keys(r.custom_fields))
    if (!knownSlugs.has(slug))
      problems.push({
        source: { pointer: `${at('filter')}/custom_fields/${slug}` },
        detail: `The account has no shipment custom field "${slug}".`,
        code: 'unknown_reference',
      });
  if (problems.length) throw new ApiError(422, problems);
  return { ...r, recipients };
}
