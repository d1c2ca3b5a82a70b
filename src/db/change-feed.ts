import type { Database } from './database.ts';

// The database's change feed: migrations/0008 and 0037 make every committed write to an account's
// tracking data NOTIFY `tracker_changes` with the account id, the table and the ids of the resources
// it changed ('<account> <table> <id>,<id>'; the bare account id when they do not fit, '*' for
// shared tables) and every key revocation NOTIFY `tracker_keys`. Storage only publishes what it heard; whoever keeps derived state (the HTTP
// response cache, the API key cache) subscribes where the app is wired, so db/ knows no cache or HTTP.

/** What the feed publishes. Every member is optional: a subscriber takes what it needs. */
export interface ChangeSubscriber {
  /**
   * A committed write to the tracking data of `accountId` ('*' for shared tables). `resources`
   * names the table and the ids it changed; without it anything of the account may have changed.
   */
  changed?(accountId: string, resources?: ChangedResources): void;
  /** An API key was revoked or deleted. */
  keysRevoked?(): void;
  /**
   * The feed is listening (true) or lost its connection (false). While it is down notifications
   * may be missed, so anything derived from the data must be treated as stale until it is up again.
   */
  listening?(up: boolean): void;
}

/** What one statement changed in one account (migrations/0037). */
export interface ChangedResources {
  table: string;
  /** Ids of changed rows (updates, deletes) and of the resources that show them (owners). */
  ids: string[];
}

/** Splits a `tracker_changes` payload; a bare id (or '*') names no resources. */
export function parseChange(payload: string): { accountId: string; resources?: ChangedResources } {
  const [accountId = '', table, ids] = payload.split(' ');
  if (table === undefined) return { accountId };
  return { accountId, resources: { table, ids: ids ? ids.split(',') : [] } };
}

/** Listens until the returned function is called; publishes to `subscribers` in their order. */
export async function startChangeFeed(
  database: Database,
  subscribers: readonly ChangeSubscriber[],
): Promise<() => Promise<void>> {
  return database.listen(['tracker_changes', 'tracker_keys'], {
    onNotify(channel, payload) {
      const change = channel === 'tracker_keys' ? null : parseChange(payload);
      for (const s of subscribers) {
        if (!change) s.keysRevoked?.();
        else s.changed?.(change.accountId, change.resources);
      }
    },
    onState(up) {
      for (const s of subscribers) s.listening?.(up);
    },
  });
}
