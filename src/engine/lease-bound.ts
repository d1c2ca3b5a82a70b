// A look-up (carrier or terminal) runs under a lease of WORKER_LEASE_MS: past it another worker may
// claim the same item and ask again. So every look-up gets a signal that aborts at half the lease
// (time left to record the outcome while the lease still holds) or when the worker shuts down,
// and the engine stops waiting at that moment even if an adapter ignores the signal.

/** Why a look-up was cut short. */
export type AbortCause = 'lease' | 'shutdown';

export interface LeaseBound {
  signal: AbortSignal;
  /** Why `signal` aborted; null while it has not. */
  cause(): AbortCause | null;
}

/** The signal of one look-up: aborts `leaseMs / 2` from now or when `shutdown` aborts. */
export function leaseBound(leaseMs: number, shutdown?: AbortSignal): LeaseBound {
  const lease = AbortSignal.timeout(Math.max(1, Math.floor(leaseMs / 2)));
  const signal = shutdown ? AbortSignal.any([lease, shutdown]) : lease;
  return { signal, cause: () => (shutdown?.aborted ? 'shutdown' : lease.aborted ? 'lease' : null) };
}

/**
 * `work`'s value, or `aborted()` as soon as `signal` aborts, whichever comes first. An adapter
 * that ignores the signal is left to finish on its own; its answer is then dropped.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, aborted: () => T): Promise<T> {
  if (signal.aborted) return Promise.resolve(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => resolve(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(signal.aborted ? aborted() : v);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) resolve(aborted());
        else reject(err);
      },
    );
  });
}
