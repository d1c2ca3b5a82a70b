import type { Logger } from 'pino';
import type { KeyCache } from '../accounts/key-cache.ts';
import type { ChangedResources, ChangeSubscriber } from '../db/change-feed.ts';
import type { ResponseCache } from './response-cache.ts';

// Keeps an API process's caches honest by subscribing them to the database change feed. A lost
// listening connection may have missed notifications, so the caches are emptied and switched off
// until it listens again; turning them back on empties them once more (setEnabled bumps every
// generation), so nothing read while the feed was deaf, or written while it reconnected (database.ts
// retries with back-off), is served.
//
// A change that names its resources drops the entries tagged with those ids and the account's lists
// that can show rows of that table (cache-hooks.ts tags the entries); a change of a table not
// listed here, or one without resources, drops the whole account.

const LISTS_OF_TABLE: Record<string, readonly string[]> = {
  shipments: ['list:shipments', 'list:containers', 'list:tracking_requests'],
  containers: ['list:containers', 'list:shipments'],
  // Container attributes (milestones, holds) come from their events.
  transport_events: ['list:containers', 'list:shipments'],
  estimated_events: ['list:containers', 'list:shipments'],
  raw_events: ['list:raw_events'],
  tracking_requests: ['list:tracking_requests', 'list:shipments'],
  custom_field_values: ['list:shipments', 'list:containers', 'list:tracking_requests'],
};

/** The cache tags a change drops; null: the whole account. */
export function tagsChanged(resources: ChangedResources | undefined): string[] | null {
  const lists = resources && LISTS_OF_TABLE[resources.table];
  return lists ? [...resources.ids, ...lists] : null;
}

export function cacheSubscriber(
  caches: { responses: ResponseCache | null; keys: KeyCache },
  log?: Pick<Logger, 'warn' | 'info'>,
): ChangeSubscriber {
  let wasUp = false;
  return {
    changed(accountId, resources) {
      const tags = tagsChanged(resources);
      if (tags) caches.responses?.invalidateTags(accountId, tags);
      else caches.responses?.invalidate(accountId);
    },
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
