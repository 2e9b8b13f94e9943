// The rate limit (API.md "Traffic control"): a middleware that takes a
// token from a bucket (rate_store.ts) before each exchange, per origin or
// one for the client; a call that finds none waits its turn, first come
// first served, for as long as its exchange may last.

import { HttpClientException } from "../errors.ts";
import type { Exchange, MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import {
  checkKnownKeys,
  describeType,
  keysOf,
  validatePositive,
  validateTimeout,
} from "../models/_validate.ts";
import type { Duration } from "../models/duration.ts";
import { describeError } from "../masking/views.ts";
import { headerValue } from "../http/headers.ts";
import { originOf } from "../http/url.ts";
import { scopeKey } from "./scope.ts";
import { MemoryRateLimitStore, type RateLimitStore, type RateLimitTake } from "./rate_store.ts";
import { answerWithin, startWait, whenAborted } from "../waits.ts";

/** Options of {@linkcode rateLimit}. */
export interface RateLimitOptions {
  /** How many calls `perSeconds` allows: a positive integer. */
  requests: number;
  /** The window of `requests`, in seconds (a positive number) or with its unit (`"1m"`). */
  perSeconds: number | Duration;
  /** The most calls sent at once after a quiet spell: a positive integer. Default `requests`. */
  burst?: number | undefined;
  /**
   * `"origin"` (default): a bucket per origin (scheme, host and port);
   * `"client"`: one bucket for every call through this limit.
   */
  scope?: "origin" | "client" | undefined;
  /**
   * The name of the one bucket of scope `"client"` in the store (default
   * `"client"`): the processes that share a store and name the same key
   * share the bucket. Never put a credential in it: a store may show it.
   */
  key?: string | undefined;
  /** Where the buckets are kept. Default: a {@linkcode MemoryRateLimitStore} of this limit's own. */
  store?: RateLimitStore | undefined;
  /**
   * The longest wait for the store's answer, in seconds or with its unit
   * (default 1): a store that answers later, or fails, lets the call
   * through.
   */
  storeTimeout?: number | Duration | undefined;
  /**
   * `false`: a conditional request (`If-None-Match` or `If-Modified-Since`)
   * answered 304 gives its token back, as GitHub's API leaves such requests
   * out of its own limit; with the cache before the limit, revalidating a
   * stale copy then costs no token. The token is still taken before the
   * request goes (its answer is unknown until then), and given back through
   * the store's `refund` (a store without one keeps it). Default `true`.
   */
  countNotModified?: boolean | undefined;
}

const OPTION_KEYS = keysOf<RateLimitOptions>({
  requests: true,
  perSeconds: true,
  burst: true,
  scope: true,
  key: true,
  store: true,
  storeTimeout: true,
  countNotModified: true,
});

/** A bucket as {@linkcode RateLimit.state} shows it. */
export interface RateLimitState {
  /** Whole tokens left, as this limit last heard from its store, refilled since. */
  readonly tokens: number;
  /** With no token left, the ms until the next one; else 0. */
  readonly nextTokenMs: number;
  /** How many calls wait for a token here. */
  readonly queued: number;
}

/** The middleware {@linkcode rateLimit} makes, with the state of its buckets. */
export interface RateLimit {
  /** The middleware: `withMiddleware(limit)` calls it for each exchange. */
  readonly handle: MiddlewareFunction;
  /**
   * Each bucket this limit used that is not full or has calls waiting, by
   * key (an origin, or the key of scope `"client"`). A bucket that other
   * processes share through the store may hold fewer tokens than it says.
   */
  state(): Record<string, RateLimitState>;
}

/** What the wait is named in a timeout's message. */
const WAIT = "the rate limit";

/** A call waiting for a token. */
interface Waiter {
  readonly exchange: Exchange;
  /** Lets the call go on: its token was taken (`taken`), or the store failed. */
  readonly go: (taken: boolean) => void;
}

/** One key's bucket as this limit sees it: the calls waiting, in order. */
class Bucket {
  readonly queue: Waiter[] = [];
  /** Stops the head's wait for the next token: set while it is armed. */
  timer: (() => void) | undefined = undefined;
  /** True while the store's answer to a take is awaited. */
  busy = false;
  /** When the bucket is full again, as the store last said (`performance.now()` ms). */
  fullAt = 0;

  get idle(): boolean {
    return this.queue.length === 0 && !this.busy && this.timer === undefined;
  }
}

/**
 * A rate limit as middleware: at most `requests` calls every `perSeconds`
 * seconds, `burst` of them at once after a quiet spell (a token bucket, as
 * GCRA keeps it: one number a key), per origin (`scope: "origin"`, the
 * default) or for every call through it (`scope: "client"`). A call that
 * finds no token waits for one, first come first served; its wait ends with
 * the call's signal, the client's `close()` and its timeout (a
 * `TimeoutException` that says "waiting in the rate limit"), and leaves no
 * place or timer behind.
 *
 * Each exchange takes a token: a retry, a redirect hop and a resend after a
 * 401 are exchanges of their own, each with a token of its own (a retry's
 * own wait comes first, then its wait here). With `countNotModified:
 * false`, a conditional request answered 304 gives its token back. A `store` shared by several
 * processes, such as {@linkcode RedisTrafficStore}, gives all of them one
 * bucket per key. A store that fails, answers garbage or answers later
 * than `storeTimeout` lets the call through (fail open: the limit is a
 * courtesy to the server, whose own limit still holds) and tells the
 * client's logger (its logging hooks', else the console), masked.
 *
 * Bad options are a `TypeError` naming the field.
 *
 * @example Five calls a second to each origin
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { rateLimit } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   new Response("ok"));
 * const origin = `http://127.0.0.1:${server.addr.port}`;
 * const limit = rateLimit({ requests: 5, perSeconds: 1 });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(origin).withMiddleware(limit).build(),
 * );
 * const started = performance.now();
 * await Promise.all(Array.from({ length: 6 }, () => client.get("/")));
 * assert.ok(performance.now() - started >= 190, "the sixth waited for a token");
 * assert.equal(limit.state()[origin]?.queued, 0);
 * ```
 */
export function rateLimit(options: RateLimitOptions): RateLimit {
  return new Limiter(options);
}

class Limiter implements RateLimit {
  readonly #store: RateLimitStore;
  /** One token every `#intervalMs`. */
  readonly #intervalMs: number;
  readonly #burst: number;
  /** The one key of scope "client"; `undefined` for scope "origin". */
  readonly #key: string | undefined;
  readonly #storeTimeoutMs: number;
  readonly #countNotModified: boolean;
  readonly #buckets = new Map<string, Bucket>();
  /** The number of buckets past which idle full ones are swept out. */
  #sweepAt = 1024;

  constructor(options: RateLimitOptions) {
    checkKnownKeys("rateLimit options", options, OPTION_KEYS);
    const requests = validatePositive("requests", options.requests);
    const perSeconds = validateTimeout("perSeconds", options.perSeconds);
    this.#burst = validatePositive("burst", options.burst ?? requests);
    this.#intervalMs = (perSeconds * 1000) / requests;
    const { scope = "origin", key, store = new MemoryRateLimitStore() } = options;
    this.#key = scopeKey(scope, key);
    if (typeof store !== "object" || store === null || typeof store.take !== "function") {
      throw new TypeError(
        `Invalid store: expected a RateLimitStore (a take method), got ${describeType(store)}`,
      );
    }
    this.#store = store;
    this.#storeTimeoutMs = validateTimeout("storeTimeout", options.storeTimeout ?? 1) * 1000;
    const { countNotModified = true } = options;
    if (typeof countNotModified !== "boolean") {
      throw new TypeError(
        `Invalid countNotModified: expected a boolean, got ${describeType(countNotModified)}`,
      );
    }
    if (!countNotModified && store.refund !== undefined && typeof store.refund !== "function") {
      throw new TypeError(
        `Invalid store: expected refund to be a method, got ${describeType(store.refund)}`,
      );
    }
    this.#countNotModified = countNotModified;
  }

  readonly handle: MiddlewareFunction = (request, next, exchange) =>
    this.#handle(request, next, exchange);

  state(): Record<string, RateLimitState> {
    const now = performance.now();
    const interval = this.#intervalMs;
    const states: Record<string, RateLimitState> = {};
    for (const [key, bucket] of this.#buckets) {
      const debt = bucket.fullAt - now;
      if (debt <= 0 && bucket.idle) {
        this.#buckets.delete(key);
        continue;
      }
      // A whole token is free when the debt is at most burst - 1 intervals (a hair of slack for rounding).
      const tokens = Math.max(0, Math.floor(this.#burst - Math.max(debt, 0) / interval + 1e-9));
      const nextTokenMs = tokens > 0 ? 0 : Math.ceil(debt - (this.#burst - 1) * interval);
      states[key] = { tokens, nextTokenMs, queued: bucket.queue.length };
    }
    return states;
  }

  #handle(
    request: HttpRequest,
    next: Next,
    exchange: Exchange,
  ): Promise<HttpResponse> {
    const key = this.#key ?? originOf(request.url);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= this.#sweepAt) this.#sweep();
      bucket = new Bucket();
      this.#buckets.set(key, bucket);
    }
    if (!bucket.idle) {
      return this.#wait(bucket, exchange).then((taken) =>
        this.#send(key, request, next, exchange, taken)
      );
    }
    const answer = this.#ask(key, exchange);
    if (!(answer instanceof Promise)) {
      if (answer !== undefined) bucket.fullAt = performance.now() + answer.fullInMs;
      if (answer === undefined || !(answer.waitMs > 0)) {
        return this.#send(key, request, next, exchange, answer !== undefined);
      }
    }
    const waited = this.#wait(bucket, exchange);
    this.#settle(key, bucket, answer, exchange);
    return waited.then((taken) => this.#send(key, request, next, exchange, taken));
  }

  /** Sends `request`; with `countNotModified: false`, a 304 to a conditional request gives its `taken` token back. */
  #send(
    key: string,
    request: HttpRequest,
    next: Next,
    exchange: Exchange,
    taken: boolean,
  ): Promise<HttpResponse> {
    const sent = next(request);
    if (this.#countNotModified || !taken || this.#store.refund === undefined) return sent;
    const { headers } = request;
    if (
      headerValue(headers, "if-none-match") === undefined &&
      headerValue(headers, "if-modified-since") === undefined
    ) return sent;
    return sent.then((response) => {
      if (response.statusCode === 304) this.#refund(key, exchange);
      return response;
    });
  }

  /** Gives a token back to `key`'s bucket through the store; the head waiting for one asks again. */
  #refund(key: string, exchange: Exchange): void {
    const given = () => {
      const bucket = this.#buckets.get(key);
      if (bucket === undefined) return;
      bucket.fullAt = Math.max(performance.now(), bucket.fullAt - this.#intervalMs);
      if (bucket.timer === undefined) return;
      bucket.timer();
      bucket.timer = undefined;
      this.#pump(key, bucket);
    };
    const failed = (error: unknown) => void report(error, exchange, "keeps the token");
    try {
      const answer = this.#store.refund!(key, this.#intervalMs);
      if (!(answer instanceof Promise)) return given();
      void answerWithin(answer, this.#storeTimeoutMs, "The rate limit's store").then(given, failed);
    } catch (error) {
      failed(error);
    }
  }

  /** Puts the call in `bucket`'s queue: resolves (with whether a token was taken) when it may go on, rejects when its exchange ends first. */
  #wait(bucket: Bucket, exchange: Exchange): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        exchange,
        go(taken) {
          undo();
          exchange.waiting(undefined);
          resolve(taken);
        },
      };
      bucket.queue.push(waiter);
      exchange.waiting(WAIT);
      // Bound after the waiter: go() runs later, from a timer or the store's answer.
      const undo = whenAborted(exchange.signal, () => {
        const { queue } = bucket;
        const at = queue.indexOf(waiter);
        if (at !== -1) queue.splice(at, 1);
        if (queue.length === 0) {
          bucket.timer?.();
          bucket.timer = undefined;
        }
        reject(new HttpClientException(`The exchange ended while waiting in ${WAIT}`));
      });
    });
  }

  /** Asks the store for `bucket`'s head while a call waits and nothing else is under way. */
  #pump(key: string, bucket: Bucket): void {
    while (bucket.queue.length > 0 && !bucket.busy && bucket.timer === undefined) {
      const { exchange } = bucket.queue[0]!;
      this.#settle(key, bucket, this.#ask(key, exchange), exchange);
    }
  }

  /**
   * Acts on the store's answer to the take `asker` waited for: the head
   * goes with a token (or with none when the store failed: `undefined`);
   * else the head's wait is timed.
   */
  #settle(
    key: string,
    bucket: Bucket,
    answer: RateLimitTake | undefined | Promise<RateLimitTake | undefined>,
    asker: Exchange,
  ): void {
    if (answer instanceof Promise) {
      bucket.busy = true;
      void answer.then((answered) => {
        bucket.busy = false;
        this.#settle(key, bucket, answered, asker);
        this.#pump(key, bucket);
      });
      return;
    }
    if (answer !== undefined) bucket.fullAt = performance.now() + answer.fullInMs;
    if (answer === undefined || !(answer.waitMs > 0)) {
      const head = bucket.queue.shift();
      if (head !== undefined) return head.go(answer !== undefined);
      // Taken for a call that left the queue while the store answered, with none behind it: given
      // back where the store can (a store without `refund` keeps it).
      if (answer !== undefined && this.#store.refund !== undefined) this.#refund(key, asker);
      return;
    }
    if (bucket.queue.length === 0) return;
    bucket.timer = startWait(() => {
      bucket.timer = undefined;
      this.#pump(key, bucket);
    }, Math.ceil(answer.waitMs));
  }

  /** The store's answer to a take from `key`; `undefined` when it failed (told to the logger). */
  #ask(
    key: string,
    exchange: Exchange,
  ): RateLimitTake | undefined | Promise<RateLimitTake | undefined> {
    const failed = (error: unknown) => void report(error, exchange);
    try {
      const answer = this.#store.take(key, this.#intervalMs, this.#burst);
      if (!(answer instanceof Promise)) return checked(answer);
      return answerWithin(answer, this.#storeTimeoutMs, "The rate limit's store").then(checked)
        .catch(failed);
    } catch (error) {
      return failed(error);
    }
  }

  /** Drops the buckets full again with nothing waiting: a sweep each time the buckets double. */
  #sweep(): void {
    const now = performance.now();
    for (const [key, bucket] of this.#buckets) {
      if (bucket.fullAt <= now && bucket.idle) this.#buckets.delete(key);
    }
    this.#sweepAt = Math.max(1024, 2 * this.#buckets.size);
  }
}

/** `answer` when it is a take's answer; else an error that says what the store gave. */
function checked(answer: RateLimitTake): RateLimitTake {
  const { waitMs, fullInMs } = (answer ?? {}) as Partial<RateLimitTake>;
  if (
    typeof waitMs === "number" && waitMs >= 0 && waitMs < Infinity &&
    typeof fullInMs === "number" && fullInMs >= 0 && fullInMs < Infinity
  ) return answer;
  throw new HttpClientException(
    `The rate limit's store answered ${describeType(answer)}, not { waitMs, fullInMs }`,
  );
}

/** Tells the client's logger (else the console) that the store failed, masked. */
function report(
  error: unknown,
  exchange: Exchange,
  outcome = "the call goes without a token",
): undefined {
  (exchange.logger ?? console).warn(
    `fetchline rate limit: the store failed, ${outcome}: ${describeError(error)}`,
  );
  return undefined;
}
