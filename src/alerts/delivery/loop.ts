import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { isConnectionError } from '../../db/connection-errors.ts';
import type { DB } from '../../db/schema.ts';
import { nextAttemptDelayMs } from '../../webhooks/delivery/schedule.ts';
import { lockLease } from '../../worker/leases.ts';
import { type Loop, startLoop } from '../../worker/loop.ts';
import { nextDigestAt } from '../schedule.ts';
import { linkKey, unsubscribeToken } from '../unsubscribe.ts';
import { type Mailer, smtpError } from './mailer.ts';
import {
  type ClaimedMessage,
  claimDueMessages,
  dueDigestRules,
  gatherDigest,
  markEmpty,
  markFailed,
  markSent,
  messageEvents,
} from './queries.ts';
import { renderMessage } from './render.ts';

// The alert loop of a worker process: gathers the digests whose hour has come (by `now`, the
// worker's clock, injectable so tests run a day in milliseconds), then sends due messages with the
// queue machinery webhook delivery uses: leases with SKIP LOCKED (worker/leases.ts), the loop of
// worker/loop.ts, and the retry schedule of webhooks/delivery/schedule.ts. A message is settled
// under its lease, so a worker that lost it writes nothing; its Message-ID is the same on every
// attempt, so if a worker dies between the server's "250" and the settlement, the one resend is
// the same message to the receiving side.

export interface AlertDeps {
  db: Kysely<DB>;
  config: Config;
  log: Logger;
  owner: string;
  mailer: Mailer;
  now?: () => Date;
}

const JITTER = 0.1;

/** Digests due by `now`: one message per address of each due rule, and the rule's next digest time. */
export async function gatherDueDigests(db: Kysely<DB>, now: Date): Promise<number> {
  return db.transaction().execute(async (tx) => {
    let made = 0;
    for (const r of await dueDigestRules(tx, now, 100))
      made += await gatherDigest(tx, r.id, nextDigestAt(r.daily_at, r.time_zone, now));
    return made;
  });
}

async function sendOne(deps: AlertDeps, m: ClaimedMessage): Promise<void> {
  const { db, config, owner } = deps;
  const settle = (write: (tx: Kysely<DB>) => Promise<void>) =>
    db.transaction().execute(async (tx) => {
      await lockLease(tx, 'alert_messages', m.id, owner);
      await write(tx);
    });
  const { events, total } = await messageEvents(db, m.id, config.alerts.digestMaxEvents);
  if (total === 0) return settle((tx) => markEmpty(tx, m.id));
  const origin = config.publicBaseUrl ?? `http://localhost:${config.port}`;
  const token = unsubscribeToken(await linkKey(db, config.documents.urlSecret), m.rule_id, m.address);
  const unsubscribeUrl = `${origin}/v2/alert_rules/unsubscribe?token=${token}`;
  const body = renderMessage({
    kind: m.kind,
    events,
    total,
    consoleOrigin: origin,
    unsubscribeUrl,
    timeZone: m.time_zone,
  });
  const domain = config.alerts.from.split('@')[1] ?? 'localhost';
  try {
    await deps.mailer.send({
      from: config.alerts.from,
      to: m.address,
      ...body,
      messageId: `<alert-${m.id}@${domain}>`,
      headers: {
        'List-Unsubscribe': `<${unsubscribeUrl}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'Auto-Submitted': 'auto-generated',
      },
    });
  } catch (err) {
    const error = smtpError(err);
    const delay = nextAttemptDelayMs(m.attempt_count + 1, {
      scheduleMs: config.alerts.retryScheduleMs,
      jitter: JITTER,
    });
    deps.log.warn({ message: m.id, error, retryInMs: delay }, 'alert e-mail not accepted by the SMTP server');
    return settle((tx) => markFailed(tx, m.id, error, delay));
  }
  await settle((tx) => markSent(tx, m.id));
}

export function startAlertLoop(deps: AlertDeps): Loop {
  const now = deps.now ?? (() => new Date());
  const loop = startLoop<ClaimedMessage>({
    name: 'alerts',
    concurrency: deps.config.alerts.concurrency,
    pollIntervalMs: deps.config.worker.pollIntervalMs,
    async claim(limit) {
      await gatherDueDigests(deps.db, now());
      return claimDueMessages(deps.db, deps.owner, limit, deps.config.worker.leaseMs);
    },
    run: (m) => sendOne(deps, m),
    onError(err, m) {
      if (isConnectionError(err))
        deps.log.warn(
          { message: m?.id },
          'alerts interrupted: database unavailable; retried when the lease expires',
        );
      else deps.log.error({ err, message: m?.id }, 'alert e-mail failed; retried when its lease expires');
    },
  });
  return {
    wake: loop.wake,
    inFlight: loop.inFlight,
    async stop() {
      await loop.stop();
      deps.mailer.close();
    },
  };
}
