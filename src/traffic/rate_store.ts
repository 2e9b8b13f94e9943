// What a rate limit's store is (the interface a user's own store
// implements) and the store in memory. The store that several processes
// share lives beside it: redis_traffic_store.ts.

/**
 * What a {@linkcode RateLimitStore} answers to a take: whether a token was
 * taken (`waitMs` 0) or how long until one will be free, and how far the
 * bucket is from full.
 *
 * @example A token taken, the bucket two tokens' time from full
 * ```ts
 * import type { RateLimitTake } from "@fetchline/fetchline/traffic";
 *
 * const taken: RateLimitTake = { waitMs: 0, fullInMs: 200 };
 * ```
 */
export interface RateLimitTake {
  /** 0 when a token was taken; else the ms until one is free (none was taken). */
  readonly waitMs: number;
  /** The ms until the bucket is full again (after this take): 0 for a full bucket. */
  readonly fullInMs: number;
}

/**
 * Where a rate limit ({@linkcode rateLimit}) keeps its buckets, by key: an
 * origin (`http://127.0.0.1:8080`, never a credential) or the name given
 * to a client's one bucket. `take` is atomic: of every caller sharing the
 * store (clients, processes), only as many take a token as the bucket
 * holds. A bucket refills one token every `intervalMs` up to `burst`
 * tokens; a key never taken from is a full bucket.
 *
 * The stores of the library keep one number a key, GCRA's theoretical
 * arrival time (`tat`, when the bucket is full again): a take at `now`
 * computes `tat' = max(tat, now) + intervalMs`; if `tat' - burst *
 * intervalMs > now` the bucket is empty (wait that difference), else it
 * stores `tat'` (and may drop the key once `tat'` passes). A user's own
 * store may keep a token bucket instead: the answer is the same.
 *
 * A store may answer at once or with a promise. One that throws, rejects,
 * answers garbage or does not answer within the limit's `storeTimeout`
 * lets the call through (fail open) and is told to the client's logger.
 *
 * @example A store that never limits (for a test)
 * ```ts
 * import type { RateLimitStore } from "@fetchline/fetchline/traffic";
 *
 * const unlimited: RateLimitStore = { take: () => ({ waitMs: 0, fullInMs: 0 }) };
 * ```
 */
export interface RateLimitStore {
  /**
   * Takes a token from the bucket `key`, which refills one token every
   * `intervalMs` (a positive number, fractions allowed) up to `burst` (a
   * positive integer) tokens, if one is free now; else takes none and says
   * how long until one is.
   */
  take(key: string, intervalMs: number, burst: number): RateLimitTake | Promise<RateLimitTake>;
  /**
   * Optional: gives one token back to the bucket `key` (one taken for a
   * request that turned out not to count: a 304 to a limit with
   * `countNotModified: false`), never past a full bucket. A store without
   * it keeps the token.
   */
  refund?(key: string, intervalMs: number): void | Promise<void>;
}

/**
 * The buckets of one process, in memory (the default store of a
 * {@linkcode rateLimit}): one number a key, GCRA's, on the process's
 * monotonic clock (`performance.now()`). A key whose bucket is full again
 * is dropped, so keys of origins no longer called do not pile up.
 *
 * @example Two limits sharing their buckets
 * ```ts
 * import { MemoryRateLimitStore } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * const store = new MemoryRateLimitStore();
 * assert.equal(store.take("api", 1000, 2).waitMs, 0);
 * assert.equal(store.take("api", 1000, 2).waitMs, 0);
 * assert.ok(store.take("api", 1000, 2).waitMs > 990, "the third waits about a second");
 * ```
 */
export class MemoryRateLimitStore implements RateLimitStore {
  /** Each key's theoretical arrival time, in `performance.now()` ms. */
  readonly #tats = new Map<string, number>();
  /** The number of keys past which full buckets are swept out. */
  #sweepAt = 1024;

  /** How many keys the store holds (full buckets not yet swept out included). */
  get size(): number {
    return this.#tats.size;
  }

  /** Takes a token from `key`'s bucket if one is free ({@linkcode RateLimitStore.take}). */
  take(key: string, intervalMs: number, burst: number): RateLimitTake {
    const now = performance.now();
    const tats = this.#tats;
    const tat = Math.max(tats.get(key) ?? now, now);
    const next = tat + intervalMs;
    // next - burst * intervalMs - now, in an order that is exact for a full
    // bucket (tat = now): the other order could leave a rounding's 1e-8 ms.
    const waitMs = tat - now - (burst - 1) * intervalMs;
    if (waitMs > 0) return { waitMs, fullInMs: tat - now };
    tats.set(key, next);
    if (tats.size > this.#sweepAt) this.#sweep(now);
    return { waitMs: 0, fullInMs: next - now };
  }

  /** Gives a token back to `key`'s bucket ({@linkcode RateLimitStore.refund}): its GCRA time moves one interval back, never before now. */
  refund(key: string, intervalMs: number): void {
    const tat = this.#tats.get(key);
    if (tat === undefined) return;
    const back = tat - intervalMs;
    if (back <= performance.now()) this.#tats.delete(key);
    else this.#tats.set(key, back);
  }

  /** Drops the keys whose buckets are full again: a sweep each time the keys double. */
  #sweep(now: number): void {
    for (const [key, tat] of this.#tats) if (tat <= now) this.#tats.delete(key);
    this.#sweepAt = Math.max(1024, 2 * this.#tats.size);
  }
}
