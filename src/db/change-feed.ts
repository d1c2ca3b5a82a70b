import type { Database } from './database.ts';

// The database's change feed: migrations/0008 makes every committed write to an account's tracking
// data NOTIFY `tracker_changes` with the account id ('*' for shared tables) and every key revocation
// NOTIFY `tracker_keys`. Storage only publishes what it heard; whoever keeps derived state (the HTTP
// response cache, the API key cache) subscribes where the app is wired, so db/ knows no cache or HTTP.

/** What the feed publishes. Every member is optional: a subscriber takes what it needs. */
export interface ChangeSubscriber {
  /** A committed write to the tracking data of `accountId` ('*' for shared tables). */
  changed?(accountId: string): void;
  /** An API key was revoked or deleted. */
  keysRevoked?(): void;
  /**
   * The feed is listening (true) or lost its connection (false). While it is down notifications
   * may be missed, so anything derived from the data must be treated as stale until it is up again.
   */
  listening?(up: boolean): void;
}

/** Listens until the returned function is called; publishes to `subscribers` in their order. */
export async function startChangeFeed(
  database: Database,
  subscribers: readonly ChangeSubscriber[],
): Promise<() => Promise<void>> {
  return database.listen(['tracker_changes', 'tracker_keys'], {
    onNotify(channel, payload) {
      for (const s of subscribers) {
        if (channel === 'tracker_keys') s.keysRevoked?.();
        else s.changed?.(payload);
      }
    },
    onState(up) {
      for (const s of subscribers) s.listening?.(up);
    },
  });
}
