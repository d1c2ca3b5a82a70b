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
