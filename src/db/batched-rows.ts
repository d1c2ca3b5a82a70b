import { availableParallelism } from 'node:os';
import type { Database, Statement } from './database.ts';

// Look-ups by id that arrive together share one statement. Under load most of a hot read's
// database time is the statement itself, not its row: the protocol round, the executor's start and
// the backend waking for it cost ~75 µs, the shipment document ~60 µs (docs/benchmarks.md). While
// enough batched statements are in flight (inFlightLimit), the look-ups that arrive wait in a
// queue, and the next statement takes every waiting look-up of the same statement and account, up
// to its slots. So a lone request is sent at once, as before, and under load one statement answers
// many: 16 shipments cost PostgreSQL ~63 µs each against ~130 µs alone, and the process a third
// of its driver work.

/**
 * A statement that answers many ids: $1 the account, then `slots` ids ($2 … $(slots + 1), null
 * where the batch is shorter), then `extra` parameters shared by the batch. It answers a row per id
 * it finds, the id (as text, lower case) first. Slots and not an array parameter: with the array's
 * length unknown, PostgreSQL estimated 100 ids for the generic plan and planned every execution
 * again (~450 µs); with a fixed list of slots both plans count the same ids, so the generic plan
 * holds.
 */
export interface BatchStatement {
  statement: Statement;
  slots: number;
}

interface Waiting {
  /** Everything the statement's parameters hold besides the ids: who may share a statement. */
  group: string;
  batch: BatchStatement;
  accountId: string;
  extra: readonly unknown[];
  id: string;
  resolve(row: unknown[] | undefined): void;
  reject(err: unknown): void;
}

interface Batches {
  queue: Waiting[];
  inFlight: number;
}

const batchesOf = new WeakMap<Database, Batches>();

/**
 * The row of `id` (compared in lower case), from a statement of `batch` shared with the other
 * look-ups of the same statement, account and `extra` that are waiting when it is sent. Undefined
 * when the statement answers no row for it (not found, or not the account's). `id` must already be
 * a valid UUID: a batch fails as a whole.
 */
export function batchedRow(
  database: Database,
  batch: BatchStatement,
  accountId: string,
  id: string,
  extra: readonly unknown[] = [],
): Promise<unknown[] | undefined> {
  let state = batchesOf.get(database);
  if (!state) {
    state = { queue: [], inFlight: 0 };
    batchesOf.set(database, state);
  }
  const batches = state;
  const group = JSON.stringify([batch.statement.name, accountId, extra]);
  return new Promise((resolve, reject) => {
    batches.queue.push({ group, batch, accountId, extra, id: id.toLowerCase(), resolve, reject });
    pump(database, batches);
  });
}

/**
 * Batched statements in flight at once: one per core of this machine (at least two), never more
 * than the database has connections (PGlite: one). With PostgreSQL on the same cores, more
 * statements at once only take turns on them while the waiting reads make the next batches
 * fuller: on 2 cores, two in flight served 6,600-8,100 shipment reads/s and five (the pool)
 * 5,200-7,600 (docs/benchmarks.md).
 */
const CORES = Math.max(2, availableParallelism());
const inFlightLimit = (database: Database) => Math.min(database.connections, CORES);

/** Sends statements while look-ups wait and fewer than the limit are in flight. */
function pump(database: Database, state: Batches): void {
  const limit = inFlightLimit(database);
  while (state.inFlight < limit && state.queue.length > 0) {
    const taken = take(state);
    state.inFlight++;
    void send(database, taken).finally(() => {
      state.inFlight--;
      pump(database, state);
    });
  }
}

/** The oldest waiting look-up and the others of its group, up to its slots of distinct ids, in order. */
function take(state: Batches): Waiting[] {
  const first = state.queue[0]!;
  const ids = new Set<string>();
  const taken: Waiting[] = [];
  const rest: Waiting[] = [];
  for (const w of state.queue) {
    if (w.group === first.group && (ids.has(w.id) || ids.size < first.batch.slots)) {
      ids.add(w.id);
      taken.push(w);
    } else rest.push(w);
  }
  state.queue = rest;
  return taken;
}

/** One statement for the look-ups `taken` (one group); each gets its row or the statement's error. */
async function send(database: Database, taken: Waiting[]): Promise<void> {
  const { batch, accountId, extra } = taken[0]!;
  const ids = [...new Set(taken.map((w) => w.id))];
  const slots = [...ids, ...new Array<null>(batch.slots - ids.length).fill(null)];
  try {
    const rows = await database.queryRows(batch.statement, [accountId, ...slots, ...extra]);
    const byId = new Map(rows.map((r) => [r[0] as string, r]));
    for (const w of taken) w.resolve(byId.get(w.id));
  } catch (err) {
    for (const w of taken) w.reject(err);
  }
}
