// retryBudget() (API.md "Traffic control" > "Adaptive controls"): retries
// (and hedges) go out only while they stay under a share of the calls sent
// in the last 10 s, as gRPC's retry throttling and Finagle's RetryBudget do:
// a storm of 5xx then costs `1 + ratio` times the calls, not `1 +
// maxRetries` times. The retry decision (send/attempts.ts) asks it through
// the policy's `budget` (config.ts's RetryBudgetHook).

import type { HttpRequest } from "../models/request.ts";
import { checkKnownKeys, describeType, keysOf, validateTimeout } from "../models/_validate.ts";
import { originOf } from "../http/url.ts";
import { scopeKey } from "./scope.ts";
import { answerWithin } from "../waits.ts";

/** The window the budget counts in, in ms: the last 10 s, in buckets of 1 s. */
export const BUDGET_WINDOW_MS = 10_000;
const BUCKETS = 10;
const BUCKET_MS = BUDGET_WINDOW_MS / BUCKETS;

/**
 * Where a {@linkcode retryBudget} keeps its counts, to share them between
 * processes ({@linkcode RedisTrafficStore}): the calls sent and the
 * retries taken per key in the last 10 s. Both are atomic on the store.
 *
 * @example A store that always refuses (for a test)
 * ```ts
 * import type { RetryBudgetStore } from "@fetchline/fetchline/traffic";
 *
 * const none: RetryBudgetStore = { budgetSent() {}, budgetWithdraw: () => false };
 * ```
 */
export interface RetryBudgetStore {
  /** Counts one call sent under `key`. */
  budgetSent(key: string): void | Promise<void>;
  /**
   * Takes one retry from `key`'s budget when the retries of the last 10 s
   * stay under `ratio` of its calls, or under `minimum`: true when taken.
   */
  budgetWithdraw(key: string, ratio: number, minimum: number): boolean | Promise<boolean>;
}

/** Options of {@linkcode retryBudget}. */
export interface RetryBudgetOptions {
  /** The share of the calls of the last 10 s that retries may add: from 0. Default 0.1. */
  ratio?: number | undefined;
  /** Retries allowed a second whatever the ratio (so that a quiet client still retries): from 0. Default 10. */
  minPerSecond?: number | undefined;
  /** `"origin"` (default): a budget per origin; `"client"`: one for every call through it. */
  scope?: "origin" | "client" | undefined;
  /** The name of the one budget of scope `"client"` in a shared store (default `"client"`); never a credential. */
  key?: string | undefined;
  /** Shares the budget between processes ({@linkcode RedisTrafficStore}). Default: in memory, this budget's own. */
  store?: RetryBudgetStore | undefined;
  /** The longest wait for the store's answer, in seconds (default 1): then the budget in memory decides. */
  storeTimeout?: number | undefined;
}

const OPTION_KEYS = keysOf<RetryBudgetOptions>({
  ratio: true,
  minPerSecond: true,
  scope: true,
  key: true,
  store: true,
  storeTimeout: true,
});

/** A budget's counts of the last 10 s, as {@linkcode RetryBudget.state} tells them (this process's). */
export interface RetryBudgetState {
  /** Calls sent. */
  readonly calls: number;
  /** Retries and hedges taken. */
  readonly retries: number;
  /** Retries refused. */
  readonly refused: number;
}

/** What {@linkcode retryBudget} makes: given to `withRetry({ budget })` and `hedge({ budget })`. */
export interface RetryBudget {
  /** Counts a call sent (its first attempt): the retry decision tells it. */
  sent(request: HttpRequest): void;
  /** Takes one retry (or hedge) of `request`'s budget: true when it may go out. */
  withdraw(request: HttpRequest): boolean | Promise<boolean>;
  /** The counts of the last 10 s per key (an origin, or the key of scope `"client"`), of this process. */
  state(): Record<string, RetryBudgetState>;
}

/** One key's counts, in 1 s buckets of the last 10 s. */
class Window {
  readonly calls = new Float64Array(BUCKETS);
  readonly retries = new Float64Array(BUCKETS);
  readonly refused = new Float64Array(BUCKETS);
  bucket = 0;

  /** Moves the window to now's bucket: the buckets it leaves are emptied. */
  advance(now: number): number {
    const at = Math.floor(now / BUCKET_MS);
    if (at - this.bucket >= BUCKETS) {
      this.calls.fill(0), this.retries.fill(0), this.refused.fill(0);
    } else {
      for (let next = this.bucket + 1; next <= at; next++) {
        const i = next % BUCKETS;
        this.calls[i] = 0, this.retries[i] = 0, this.refused[i] = 0;
      }
    }
    this.bucket = Math.max(this.bucket, at);
    return this.bucket % BUCKETS;
  }

  empty(): boolean {
    return sum(this.calls) === 0 && sum(this.retries) === 0 && sum(this.refused) === 0;
  }
}

function sum(counts: Float64Array): number {
  let total = 0;
  for (const count of counts) total += count;
  return total;
}

/**
 * A retry budget: retries go out only while the retries of the last 10 s
 * stay under `ratio` of the calls sent in them (or under `minPerSecond`
 * a second, whichever allows more), per origin (`scope: "origin"`) or for
 * every call (`"client"`). Past it, the retry decision is "no": the last
 * response is returned or its error thrown, and the call's
 * `context.metadata.retryBudgetExhausted` is `true`. A storm of 429s or
 * 5xx then costs about `1 + ratio` times the calls instead of `1 +
 * maxRetries` times. `hedge({ budget })` takes its hedges from it too.
 *
 * With a `store` ({@linkcode RedisTrafficStore}), every process that names
 * the same key shares the budget; a store that fails or answers later than
 * `storeTimeout` never fails a call: the budget in memory decides then.
 *
 * @param options `ratio` (default 0.1), `minPerSecond` (default 10),
 *   `scope`, `key`, `store`, `storeTimeout`.
 * @returns The budget, for `withRetry({ budget })`.
 * @throws {TypeError} A bad or unknown option, naming it.
 *
 * @example At most 10% more calls in a storm of 503s
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { retryBudget } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * let served = 0;
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   (served++, new Response("down", { status: 503 })));
 * const budget = retryBudget({ ratio: 0.1, minPerSecond: 0 });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withRetry({ maxRetries: 3, backoff: 0.001, budget }).build(),
 * );
 * for (let i = 0; i < 50; i++) await client.get("/");
 * assert.ok(served <= 55, `${served} requests`);
 * ```
 */
export function retryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  return new Budget(options);
}

class Budget implements RetryBudget {
  readonly #ratio: number;
  /** Retries allowed in the window whatever the ratio. */
  readonly #minimum: number;
  readonly #key: string | undefined;
  readonly #store: RetryBudgetStore | undefined;
  readonly #storeTimeoutMs: number;
  readonly #windows = new Map<string, Window>();

  constructor(options: RetryBudgetOptions) {
    checkKnownKeys("retryBudget options", options, OPTION_KEYS);
    const { ratio = 0.1, minPerSecond = 10, scope = "origin", key, store } = options;
    this.#ratio = atLeastZero("ratio", ratio);
    this.#minimum = atLeastZero("minPerSecond", minPerSecond) * BUDGET_WINDOW_MS / 1000;
    this.#key = scopeKey(scope, key);
    if (
      store !== undefined &&
      (typeof store !== "object" || store === null || typeof store.budgetSent !== "function" ||
        typeof store.budgetWithdraw !== "function")
    ) {
      throw new TypeError(
        `Invalid store: expected a RetryBudgetStore (budgetSent and budgetWithdraw), got ${
          describeType(store)
        }`,
      );
    }
    this.#store = store;
    this.#storeTimeoutMs = validateTimeout("storeTimeout", options.storeTimeout ?? 1) * 1000;
  }

  #keyOf(request: HttpRequest): string {
    return this.#key ?? originOf(request.url);
  }

  #window(key: string, now: number): Window {
    let window = this.#windows.get(key);
    if (window === undefined) {
      if (this.#windows.size >= 1000) {
        for (const [kept, old] of this.#windows) {
          old.advance(now);
          if (old.empty()) this.#windows.delete(kept);
        }
      }
      window = new Window();
      window.bucket = Math.floor(now / BUCKET_MS);
      this.#windows.set(key, window);
    }
    return window;
  }

  sent(request: HttpRequest): void {
    const key = this.#keyOf(request);
    const now = performance.now();
    const window = this.#window(key, now);
    window.calls[window.advance(now)]!++;
    const store = this.#store;
    if (store === undefined) return;
    try {
      const told = store.budgetSent(key);
      // Not awaited: a count lost to a failing store only makes the budget smaller.
      if (told instanceof Promise) told.catch(() => {});
    } catch {
      // As above.
    }
  }

  withdraw(request: HttpRequest): boolean | Promise<boolean> {
    const key = this.#keyOf(request);
    const store = this.#store;
    if (store === undefined) return this.#local(key, true);
    let answer: boolean | Promise<boolean>;
    try {
      answer = store.budgetWithdraw(key, this.#ratio, this.#minimum);
    } catch {
      return this.#local(key, true);
    }
    if (!(answer instanceof Promise)) return this.#counted(key, answer);
    return answerWithin(answer, this.#storeTimeoutMs, "The retry budget's store").then(
      (taken) => this.#counted(key, taken),
      () => this.#local(key, true),
    );
  }

  /** The store's answer, counted in memory too (so that the local state is near it when the store fails). */
  #counted(key: string, taken: unknown): boolean {
    if (typeof taken !== "boolean") return this.#local(key, true);
    const now = performance.now();
    const window = this.#window(key, now);
    const at = window.advance(now);
    if (taken) window.retries[at]!++;
    else window.refused[at]!++;
    return taken;
  }

  /** The budget in memory decides (and counts) a retry of `key`. */
  #local(key: string, take: boolean): boolean {
    const now = performance.now();
    const window = this.#window(key, now);
    const at = window.advance(now);
    const allowed = Math.max(this.#ratio * sum(window.calls), this.#minimum);
    const taken = sum(window.retries) + 1 <= allowed;
    if (take) {
      if (taken) window.retries[at]!++;
      else window.refused[at]!++;
    }
    return taken;
  }

  state(): Record<string, RetryBudgetState> {
    const now = performance.now();
    const state: Record<string, RetryBudgetState> = {};
    for (const [key, window] of this.#windows) {
      window.advance(now);
      if (window.empty()) continue;
      state[key] = {
        calls: sum(window.calls),
        retries: sum(window.retries),
        refused: sum(window.refused),
      };
    }
    return state;
  }
}

function atLeastZero(field: string, value: unknown): number {
  if (typeof value === "number" && value >= 0 && Number.isFinite(value)) return value;
  throw new TypeError(
    `Invalid ${field}: expected a finite number from 0, got ${
      typeof value === "number" ? value : describeType(value)
    }`,
  );
}
