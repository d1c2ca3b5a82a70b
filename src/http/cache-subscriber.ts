import type { Logger } from 'pino';
import type { KeyCache } from '../accounts/key-cache.ts';
import type { ChangeSubscriber } from '../db/change-feed.ts';
import type { ResponseCache } from './response-cache.ts';

// Keeps an API process's caches honest by subscribing them to the database change feed. A lost
// listening connection may have missed notifications, so the caches are emptied and switched off
// until it listens again; turning them back on empties them once more (setEnabled bumps every
// generation), so nothing read while the feed was deaf, or written while it reconnected (database.ts
// retries with back-off), is served.

export function cacheSubscriber(
  caches: { responses: ResponseCache | null; keys: KeyCache },
  log?: Pick<Logger, 'warn' | 'info'>,
): ChangeSubscriber {
  let wasUp = false;
  return {
    changed: (accountId) => caches.responses?.invalidate(accountId),
    keysRevoked: () => caches.keys.clear(),
    listening(up) {
      caches.responses?.setEnabled(up);
      caches.keys.setEnabled(up);
      if (!up && wasUp) log?.warn('change feed lost: response and key caches off until it reconnects');
      if (up && !wasUp) log?.info('change feed listening: response and key caches on');
      wasUp = up;
    },
  };
}
