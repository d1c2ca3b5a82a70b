import type { DatabaseConnection, Dialect, Driver, Kysely } from 'kysely';

/**
 * One holder at a time, in arrival order: PGlite has a single session, so whoever holds the gate
 * (this process's Kysely connection, or a socket client inside a transaction) owns that session.
 */
export class Gate {
  #tail: Promise<void> = Promise.resolve();

  /** Resolves once the gate is held; call the returned function to pass it on. */
  async acquire(): Promise<() => void> {
    const previous = this.#tail;
    let unlock!: () => void;
    this.#tail = new Promise<void>((r) => {
      unlock = r;
    });
    await previous;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      unlock();
    };
  }
}

/**
 * `dialect` (PGlite's) with its one connection behind `gate`. Kysely's PGlite driver hands that
 * connection to every caller at once, so a query issued while another caller's transaction is open
 * would run inside it: one holder at a time, exactly like a pool of size one. The gate is the only
 * serialisation: the adapter says the driver may hand out several connections, so Kysely adds no
 * lock of its own (its lock stays held when acquiring a connection throws, and every later query
 * would wait for ever).
 */
export function behindGate(dialect: Dialect, gate: Gate): Dialect {
  return {
    createAdapter: () => {
      const adapter = dialect.createAdapter();
      return new Proxy(adapter, {
        get: (target, prop) =>
          prop === 'supportsMultipleConnections' ? true : Reflect.get(target, prop, target),
      });
    },
    createIntrospector: (k: Kysely<unknown>) => dialect.createIntrospector(k),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: (): Driver => withMutex(dialect.createDriver(), gate),
  };
}

/**
 * `driver` with its connection behind `gate`: held from acquiring a connection until it is
 * released. An acquisition that fails passes the gate on at once: nobody holds a connection that
 * would release it, and every later caller would wait behind it for ever.
 */
export function withMutex(driver: Driver, gate: Gate): Driver {
  let release: (() => void) | undefined;
  return {
    init: () => driver.init(),
    async acquireConnection(): Promise<DatabaseConnection> {
      const unlock = await gate.acquire();
      try {
        const connection = await driver.acquireConnection();
        release = unlock;
        return connection;
      } catch (err) {
        unlock();
        throw err;
      }
    },
    async releaseConnection(conn) {
      const r = release;
      release = undefined;
      try {
        await driver.releaseConnection(conn);
      } finally {
        r?.();
      }
    },
    beginTransaction: (c, s) => driver.beginTransaction(c, s),
    commitTransaction: (c) => driver.commitTransaction(c),
    rollbackTransaction: (c) => driver.rollbackTransaction(c),
    savepoint: driver.savepoint?.bind(driver),
    rollbackToSavepoint: driver.rollbackToSavepoint?.bind(driver),
    releaseSavepoint: driver.releaseSavepoint?.bind(driver),
    destroy: () => driver.destroy(),
  };
}
