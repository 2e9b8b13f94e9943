// adaptiveConcurrency() (API.md "Traffic control" > "Adaptive controls"):
// the limit of exchanges in flight per origin moves by itself, AIMD as
// Netflix's concurrency-limits has it: one more for a limit's worth of
// answers that held while the limit was in use, times 0.9 on a 429, a 503,
// a timeout or a latency rise. The queue is concurrency()'s.

import type { MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import type { HttpRequest } from "../models/request.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { endedByCaller, TimeoutException } from "../errors.ts";
import { originOf } from "../http/url.ts";
import { scopeKey } from "./scope.ts";
import { Queue } from "./concurrency.ts";

/** Options of {@linkcode adaptiveConcurrency}. */
export interface AdaptiveConcurrencyOptions {
  /** The limit before any answer: a positive integer. Default 16. */
  initial?: number | undefined;
  /** The lowest the limit goes: a positive integer. Default 1. */
  min?: number | undefined;
  /** The highest the limit goes: a positive integer or `Infinity`. Default 256. */
  max?: number | undefined;
  /** `"origin"` (default): a limit per origin; `"client"`: one limit for every call through it. */
  scope?: "origin" | "client" | undefined;
  /** The most calls waiting, as `concurrency()`'s (`QueueFullException` past it). Default: no limit. */
  maxQueue?: number | undefined;
  /**
   * How much slower the last answers may come than the many before them
   * before the limit goes down (a latency rise): a number above 1.
   * Default 2.
   */
  latencyTolerance?: number | undefined;
}

const OPTION_KEYS = keysOf<AdaptiveConcurrencyOptions>({
  initial: true,
  min: true,
  max: true,
  scope: true,
  maxQueue: true,
  latencyTolerance: true,
});

/** What {@linkcode adaptiveConcurrency} makes: the middleware, and its limits. */
export interface AdaptiveConcurrencyLimit {
  /** The middleware: `withMiddleware(limiter)` calls it for each exchange. */
  readonly handle: MiddlewareFunction;
  /**
   * The limit of `origin` now (`"http://host:port"`, or any key for scope
   * `"client"`): `initial` before any answer.
   */
  limit(origin?: string): number;
  /** Each key's limit and its exchanges in flight and waiting, for a dashboard. */
  state(): Record<string, AdaptiveConcurrencyState>;
}

/** One key's limit as {@linkcode AdaptiveConcurrencyLimit.state} tells it. */
export interface AdaptiveConcurrencyState {
  /** The limit now. */
  readonly limit: number;
  /** Exchanges in flight. */
  readonly inFlight: number;
  /** Calls waiting for a place. */
  readonly queued: number;
}

/** The backoff of a drop: the limit times this. */
const BACKOFF = 0.9;
/**
 * How much slower the limit grows back to the level a drop came at: a
 * limit a few above what the server allows would else find it again every
 * few answers (a drop of 10% of 5 is half an exchange): at 20 times slower,
 * one answer in about 20 times the limit finds it.
 */
const PROBE = 20;
/** How fast the short and the long smoothed latencies follow each answer. */
const SHORT = 0.1;
const LONG = 0.01;
/** A rise of less than this (ms) is noise, whatever the ratio (loopback answers in well under 1 ms). */
const NOISE_MS = 1;

/** One key's limit. */
class Limit {
  /** Fractional: it grows by 1 / itself an answer. */
  value: number;
  /** When the limit last went down: drops of exchanges sent before it do not count again. */
  droppedAt = -Infinity;
  /** The whole limit the last drop came at (too many), until the limit passes it without one. */
  ceiling = Infinity;
  /** The latency (ms) smoothed over the last answers and over many more: a rise is the first past the second. */
  short = 0;
  long = 0;

  constructor(initial: number) {
    this.value = initial;
  }
}

/**
 * A concurrency limit that finds itself: the exchanges in flight per origin
 * (or per client) may be at most a limit that starts at `initial` and
 * moves between `min` and `max`: it rises by one for each limit's worth of
 * answers that held while the limit was in use (20 times slower back to
 * the level of its last fall, until it passes it), and falls (times 0.9) on a
 * 429, a 503, a timeout or a latency rise (the latency of the last answers,
 * smoothed, past `latencyTolerance` times that of many more): AIMD. A drop counts
 * once: the answers of exchanges sent before the limit fell do not lower
 * it again. `limiter.limit(origin)` reads it. Calls past the limit wait in
 * `concurrency()`'s queue, with its bounds and errors (`maxQueue`,
 * `QueueFullException`, the call's signal, `close()` and timeout).
 *
 * @param options `initial` (16), `min` (1), `max` (256), `scope`
 *   (`"origin"`), `maxQueue`, `latencyTolerance` (2).
 * @returns The middleware, with `limit()` and `state()`.
 * @throws {TypeError} A bad or unknown option, naming it.
 *
 * @example The limit falls on 503s
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { adaptiveConcurrency } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   new Response("busy", { status: 503 }));
 * const origin = `http://127.0.0.1:${server.addr.port}`;
 * const limiter = adaptiveConcurrency({ initial: 20, min: 1, max: 100 });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(origin).withRetry({ maxRetries: 0 })
 *     .withMiddleware(limiter).build(),
 * );
 * assert.equal(limiter.limit(origin), 20);
 * for (let i = 0; i < 5; i++) await client.get("/");
 * assert.ok(limiter.limit(origin) < 20);
 * ```
 */
export function adaptiveConcurrency(
  options: AdaptiveConcurrencyOptions = {},
): AdaptiveConcurrencyLimit {
  checkKnownKeys("adaptiveConcurrency options", options, OPTION_KEYS);
  const min = integer("min", options.min ?? 1, false);
  const max = integer("max", options.max ?? 256, true);
  const initial = integer("initial", options.initial ?? Math.min(16, max), false);
  if (min > max || initial < min || initial > max) {
    throw new RangeError(
      `Invalid adaptiveConcurrency options: expected min <= initial <= max, got ${min}, ${initial}, ${max}`,
    );
  }
  const maxQueue = options.maxQueue ?? Infinity;
  if (maxQueue !== Infinity && !(Number.isSafeInteger(maxQueue) && maxQueue >= 0)) {
    throw new TypeError(
      `Invalid maxQueue: expected an integer of at least 0 or Infinity, got ${
        typeof maxQueue === "number" ? maxQueue : describeType(maxQueue)
      }`,
    );
  }
  const tolerance = options.latencyTolerance ?? 2;
  if (typeof tolerance !== "number" || !(tolerance > 1) || !Number.isFinite(tolerance)) {
    throw new TypeError(
      `Invalid latencyTolerance: expected a finite number above 1, got ${
        typeof tolerance === "number" ? tolerance : describeType(tolerance)
      }`,
    );
  }
  const { scope = "origin" } = options;
  scopeKey(scope);
  const limits = new Map<string, Limit>();
  const limitOf = (name: string) => Math.floor(limits.get(name)?.value ?? initial);
  const keyOf = scope === "client"
    ? () => "client"
    : (request: HttpRequest) => originOf(request.url);
  const queue = new Queue(Infinity, Infinity, maxQueue, keyOf, limitOf);

  /** Moves `name`'s limit after an answer of an exchange sent at `sentAt` that took `ms`. */
  const learn = (name: string, sentAt: number, ms: number, dropped: boolean) => {
    let limit = limits.get(name);
    if (limit === undefined) {
      // Forget the limits of keys with nothing in flight, past 1000 of them.
      if (limits.size >= 1000) {
        const origins = queue.state().origins;
        for (const key of limits.keys()) if (origins[key] === undefined) limits.delete(key);
      }
      limits.set(name, limit = new Limit(initial));
    }
    if (!dropped && ms >= 0) {
      if (limit.long === 0) limit.short = limit.long = ms;
      limit.short += SHORT * (ms - limit.short);
      limit.long += LONG * (ms - limit.long);
      if (limit.short > tolerance * limit.long && limit.short - limit.long > NOISE_MS) {
        dropped = true;
      }
    }
    if (dropped) {
      if (sentAt < limit.droppedAt) return;
      limit.droppedAt = performance.now();
      limit.ceiling = Math.floor(limit.value);
      limit.value = Math.max(min, limit.value * BACKOFF);
      // The rise is answered: the short latency starts again from the long one.
      limit.short = limit.long;
      return;
    }
    const inFlight = queue.state().origins[name]?.inFlight ?? 0;
    // Only a limit in use grows (an idle one would grow without bound, as Netflix's AIMD says).
    if (inFlight + 1 < limit.value / 2) return;
    const before = Math.floor(limit.value);
    const probing = before + 1 >= limit.ceiling;
    limit.value = Math.min(max, limit.value + 1 / (probing ? limit.value * PROBE : limit.value));
    const after = Math.floor(limit.value);
    if (after > limit.ceiling) limit.ceiling = Infinity;
    if (after > before) queue.admit();
  };

  const measured = (name: string, next: Next): Next => async (request, nextOptions) => {
    const sentAt = performance.now();
    try {
      const response = await next(request, nextOptions);
      const status = response.statusCode;
      learn(name, sentAt, performance.now() - sentAt, status === 429 || status === 503);
      return response;
    } catch (error) {
      if (error instanceof TimeoutException && !endedByCaller(error)) learn(name, sentAt, -1, true);
      throw error;
    }
  };

  return {
    handle: (request, next, exchange) =>
      queue.run(request, measured(keyOf(request), next), exchange),
    limit: (origin = "client") => limitOf(origin),
    state() {
      const origins = queue.state().origins;
      const state: Record<string, AdaptiveConcurrencyState> = {};
      for (const name of new Set([...limits.keys(), ...Object.keys(origins)])) {
        const counts = origins[name];
        state[name] = {
          limit: limitOf(name),
          inFlight: counts?.inFlight ?? 0,
          queued: counts?.queued ?? 0,
        };
      }
      return state;
    },
  };
}

/** `value` of option `name`: a positive integer (or Infinity when `infinite`). */
function integer(name: string, value: unknown, infinite: boolean): number {
  if (infinite && value === Infinity) return Infinity;
  if (Number.isSafeInteger(value) && (value as number) >= 1) return value as number;
  throw new TypeError(
    `Invalid ${name}: expected a positive integer${infinite ? " or Infinity" : ""}, got ${
      typeof value === "number" ? value : describeType(value)
    }`,
  );
}
