// The one store type of the traffic controls (API.md "Adaptive
// controls"): what a rate limit, a retry budget and a circuit breaker ask
// of a store shared between processes (RedisTrafficStore is one), and the
// bounded wait every control puts on its answer: a store that is down or
// slow never fails or hangs a call.

import type { Exchange } from "../hooks/hook_interfaces.ts";
import { answerWithin, whenAborted } from "../waits.ts";
import type { RateLimitStore } from "./rate_store.ts";
import type { RetryBudgetStore } from "./retry_budget.ts";

/**
 * Where a {@linkcode circuitBreaker} keeps the state it shares with other
 * processes, by origin: each outcome counted in one window, and whether
 * the circuit is open (and for how long). Atomic on the store.
 *
 * @example A store that never opens a circuit (for a test)
 * ```ts
 * import type { CircuitBreakerStore } from "@fetchline/fetchline/traffic";
 *
 * const never: CircuitBreakerStore = { breakerOpenMs: () => 0, breakerRecord: () => 0 };
 * ```
 */
export interface CircuitBreakerStore {
  /** The ms until `key`'s open circuit half-opens; 0 when it is not open. */
  breakerOpenMs(key: string): number | Promise<number>;
  /**
   * Counts an outcome of `key` (`failed`) in a window of 10 buckets of
   * `bucketMs`; opens the circuit for `openMs` when at least `minimumCalls`
   * were counted and `failureRatio` of them failed, or at once when a
   * `probe` failed. Answers as {@linkcode breakerOpenMs} does after it.
   */
  breakerRecord(
    key: string,
    outcome: {
      readonly failed: boolean;
      readonly probe: boolean;
      readonly bucketMs: number;
      readonly minimumCalls: number;
      readonly failureRatio: number;
      readonly openMs: number;
    },
  ): number | Promise<number>;
}

/**
 * One store for every traffic control that shares state between processes:
 * `rateLimit({ store })`, `retryBudget({ store })`, `circuitBreaker({
 * store })`. {@linkcode RedisTrafficStore} is one.
 *
 * @example A store is all three
 * ```ts
 * import type { TrafficStore } from "@fetchline/fetchline/traffic";
 *
 * const uses = (store: TrafficStore) => [store.take, store.budgetWithdraw, store.breakerRecord];
 * ```
 */
export interface TrafficStore extends RateLimitStore, RetryBudgetStore, CircuitBreakerStore {}

/**
 * What `answer` gives within `ms` and before `exchange` ends, else
 * `undefined` (a store's failure, late answer or garbage alike: the caller
 * goes on with its local state). Never rejects.
 */
export async function askStore<T>(
  answer: () => T | Promise<T>,
  ms: number,
  what: string,
  exchange?: Exchange,
): Promise<T | undefined> {
  let off: (() => void) | undefined;
  try {
    const given = answer();
    if (!(given instanceof Promise)) return given;
    const within = Math.min(ms, exchange?.remainingMs() ?? Infinity);
    const bounded = answerWithin(given, within, what);
    if (exchange === undefined) return await bounded;
    const ended = new Promise<undefined>((resolve) => {
      off = whenAborted(exchange.signal, () => resolve(undefined));
    });
    return await Promise.race([bounded, ended]);
  } catch {
    return undefined;
  } finally {
    off?.();
  }
}
