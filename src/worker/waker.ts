/**
 * A poll loop's sleep that can be cut short: `wake()` ends the current sleep at once, or, when the
 * loop is not sleeping, makes its next sleep return immediately (so a wake-up is never lost
 * between a poll finding nothing and the loop going to sleep).
 */
export function createWaker(): { sleep(ms: number): Promise<void>; wake(): void } {
  let wakeUp: (() => void) | null = null;
  let woken = false;
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        if (woken) {
          woken = false;
          resolve();
          return;
        }
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakeUp = null;
          woken = false;
          resolve();
        }
        wakeUp = done;
      }),
    wake() {
      if (wakeUp) wakeUp();
      else woken = true;
    },
  };
}
