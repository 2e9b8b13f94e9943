// The waits the library schedules, for every layer and feature alike: a
// timer of any length, a sleep a signal ends, and a bounded wait for an
// answer (a store's). A leaf: it imports nothing of the library.

/**
 * What `answer` settles to, or a rejection with an Error saying that `what`
 * did not answer within `ms` (a store's wait: the cache's, the rate limit's).
 */
export function answerWithin<T>(answer: Promise<T>, ms: number, what: string): Promise<T> {
  let stop: (() => void) | undefined;
  const late = new Promise<never>((_, reject) => {
    stop = startWait(
      () => reject(new Error(`${what} did not answer within ${Math.round(ms)} ms`)),
      ms,
    );
  });
  return Promise.race([answer, late]).finally(() => stop!());
}

// The waits the library schedules (a retry's, a rate limit's, a server's
// pause, an event stream's reconnection): a server's Retry-After or reset can
// ask for any length, and a runtime's setTimeout given more than 2^31 - 1 ms
// fires at once (Node, Deno and browsers alike), so a 30-day Retry-After
// resent every retry at once. Every wait goes through `startWait`, which arms
// one timer at a time for the longest stretch one counts, until the whole
// wait has run.

/** The longest wait one timer counts, in milliseconds (about 24.8 days). */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `run` once after `ms` milliseconds, however long (`Infinity`: never;
 * `NaN` or less than 0: as 0), unless the function it returns is called
 * first. One timer runs at a time; none is left once it ran or was stopped.
 */
export function startWait(run: () => void, ms: number): () => void {
  let left = ms > 0 ? ms : 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    const stretch = Math.min(left, LONGEST_TIMER_MS);
    left -= stretch;
    timer = setTimeout(() => (left > 0 ? arm() : (timer = undefined, run())), stretch);
  };
  arm();
  return () => {
    clearTimeout(timer);
    timer = undefined;
  };
}

/**
 * Resolves after `ms` milliseconds, however long ({@linkcode startWait}), or
 * rejects with `signal`'s reason once it aborts, its timer cleared.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const stop = startWait(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort() {
      stop();
      reject(signal.reason);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Calls `listener` once `signal` aborts (at once when it has); gives what
 * undoes it. The waits of the traffic controls leave their line with it
 * when the exchange they wait for ends.
 */
export function whenAborted(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener();
    return () => {};
  }
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}
