import type { Logger } from 'pino';
import type { KeyCache } from '../accounts/key-cache.ts';
import type { ResponseCache } from '../http/response-cache.ts';
import type { Database } from './database.ts';

// Keeps an API process's caches honest: migrations/0008 makes every committed write to an
// account's tracking data NOTIFY `tracker_changes` with the account id ('*' for shared tables)
// and every key revocation NOTIFY `tracker_keys`. A lost listening connection may have missed
// notifications, so the caches are emptied and switched off until it listens again; turning them
// back on empties them once more (setEnabled bumps every generation), so nothing read while the
// feed was deaf, or written while it reconnected (database.ts retries with back-off), is served.

export async function startChangeFeed(
  database: Database,
  caches: { responses: ResponseCache | null; keys: KeyCache },
  log?: Pick<Logger, 'warn' | 'info'>,
): Promise<() => Promise<void>> {
  let wasUp = false;
  return database.listen(['tracker_changes', 'tracker_keys'], {
    onNotify(channel, payload) {
      if (channel === 'tracker_keys') caches.keys.clear();
      else caches.responses?.invalidate(payload);
    },
    onState(up) {
      caches.responses?.setEnabled(up);
      caches.keys.setEnabled(up);
      if (!up && wasUp) log?.warn('change feed lost: response and key caches off until it reconnects');
      if (up && !wasUp) log?.info('change feed listening: response and key caches on');
      wasUp = up;
    },
  });
}
