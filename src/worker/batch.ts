// Writes that finish within a few milliseconds of each other, gathered into one statement (one
// round trip, one commit): a worker's items finish one by one, so writing each on its own turn of
// the event loop would cost a round trip and a commit per item. The wait is nothing next to a
// refresh or retry cadence; a lease is held a few milliseconds longer.

/** Gathers calls per key (a worker's deps) for `windowMs`, at most `max`, and writes them with one `flush`. */
export function batcher<K extends object, T, R>(opts: {
  windowMs: number;
  max: number;
  /** Writes the items; answers one result per item, in their order. */
  flush: (key: K, items: T[]) => Promise<R[]>;
}): (key: K, item: T) => Promise<R> {
  interface Batch {
    items: Array<{ item: T; resolve(r: R): void; reject(err: unknown): void }>;
    timer: NodeJS.Timeout;
  }
  const open = new WeakMap<K, Batch>();
  const run = (key: K, b: Batch) => {
    clearTimeout(b.timer);
    if (open.get(key) === b) open.delete(key);
    opts
      .flush(
        key,
        b.items.map((i) => i.item),
      )
      .then(
        (results) => {
          for (const [n, i] of b.items.entries()) i.resolve(results[n]!);
        },
        (err) => {
          for (const i of b.items) i.reject(err);
        },
      );
  };
  return (key, item) => {
    let b = open.get(key);
    if (!b) {
      const created: Batch = { items: [], timer: setTimeout(() => run(key, created), opts.windowMs) };
      b = created;
      open.set(key, b);
    }
    const { promise, resolve, reject } = Promise.withResolvers<R>();
    b.items.push({ item, resolve, reject });
    if (b.items.length >= opts.max) run(key, b);
    return promise;
  };
}

/**
 * A batcher of row writes whose statement answers the ids it wrote (`write`): each item learns
 * whether its row was written, which a lease guard in the statement decides. 5 ms, 64 at most.
 */
export function rowWrites<K extends object, T extends { id: string }>(
  write: (key: K, items: T[]) => Promise<Array<{ id: string }>>,
): (key: K, item: T) => Promise<boolean> {
  return batcher<K, T, boolean>({
    windowMs: 5,
    max: 64,
    async flush(key, items) {
      const written = new Set((await write(key, items)).map((r) => r.id));
      return items.map((i) => written.has(i.id));
    },
  });
}
