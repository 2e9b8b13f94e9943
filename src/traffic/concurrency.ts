// concurrency() (API.md "Traffic control"): at most `max` exchanges in
// flight and `perOrigin` to one origin; the rest wait in one FIFO queue,
// bounded by `maxQueue`. Hand-written: p-queue and bottleneck queue
// functions, not exchanges, and know nothing of a call's end (its signal,
// close(), its timeout), which must give the place back at once.

import type { Exchange, MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { describeCall } from "../errors.ts";
import { whenAborted } from "../waits.ts";
import { QueueFullException } from "./errors.ts";
import { originOf } from "../http/url.ts";

/** Options of {@linkcode concurrency}: at least one of `max` and `perOrigin`. */
export interface ConcurrencyOptions {
  /** The most exchanges in flight at once, every origin together. Default: no limit. */
  max?: number | undefined;
  /** The most exchanges in flight at once to one origin. Default: no limit. */
  perOrigin?: number | undefined;
  /**
   * The most calls waiting for a place; one more fails at once with
   * {@linkcode QueueFullException}, never sent. Default: no limit (each
   * waits within its own timeout). 0: no call waits.
   */
  maxQueue?: number | undefined;
}

const OPTION_KEYS = keysOf<ConcurrencyOptions>({ max: true, perOrigin: true, maxQueue: true });

/** How many exchanges are in flight and how many calls wait, of one origin or of all. */
export interface ConcurrencyCounts {
  /** Exchanges in flight: sent and not yet over (a streamed one until its body is). */
  readonly inFlight: number;
  /** Calls waiting in the queue for a place. */
  readonly queued: number;
}

/** What {@linkcode ConcurrencyLimit.state} reports. */
export interface ConcurrencyState extends ConcurrencyCounts {
  /** The counts of each origin with an exchange in flight or a call waiting (`"https://api.example.com"`). */
  readonly origins: Readonly<Record<string, ConcurrencyCounts>>;
}

/** The middleware {@linkcode concurrency} makes, with its state. */
export interface ConcurrencyLimit {
  /** The middleware: `withMiddleware(limit)` calls it for each exchange. */
  readonly handle: MiddlewareFunction;
  /** The exchanges in flight and the calls waiting now, in all and per origin (for a dashboard). */
  state(): ConcurrencyState;
}

/**
 * Limits how many exchanges are in flight at once: at most `max` in all and
 * `perOrigin` to one origin (scheme, host and port). A call past them waits
 * in a queue, first come first served; past `maxQueue` waiting, it fails at
 * once with {@linkcode QueueFullException}, never sent.
 *
 * - The object is the scope: every client given the same
 *   `concurrency()` (`withMiddleware(limit)`, clients derived with
 *   `extend()` included) shares its limits; give each client its own to
 *   limit them apart.
 * - The queue is one line across origins, but a call whose origin is at
 *   `perOrigin` does not hold back a call to another origin behind it: a
 *   freed place goes to the first waiting call whose origin may take it.
 * - A place is held from the exchange's start until its response is
 *   received whole; for a streamed call (`stream()`, `events()`) until its
 *   body is read to its end, cancelled, fails, or the client closes or the
 *   call's signal aborts it: the place stands for the connection.
 * - A waiting call leaves the queue when its call ends: its signal, the
 *   client's `close()`, or its timeout (`totalTimeout`, else `timeout`),
 *   whose `TimeoutException` says it timed out "waiting in the concurrency
 *   queue".
 * - Each exchange takes its own place: a retry, a redirect's next hop and a
 *   resend after a 401 each queue again, and no place is held during a
 *   retry's wait (it happens outside the exchange).
 *
 * The controls act in the order of `withMiddleware()`: put this one after
 * those that answer or share calls without the network (a cache,
 * `dedupe()`), so that a hit takes no place and a shared exchange one.
 *
 * @param options `max`, `perOrigin` (at least one of them), `maxQueue`:
 *   each a positive integer or `Infinity` (`maxQueue` may be 0).
 * @returns The middleware, with `state()`.
 * @throws {TypeError} An option that is not such a number, an unknown
 *   option, or neither `max` nor `perOrigin`.
 *
 * @example At most two exchanges at once
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { concurrency } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * let now = 0, most = 0;
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
 *   most = Math.max(most, ++now);
 *   await new Promise((resolve) => setTimeout(resolve, 10));
 *   now--;
 *   return new Response("ok");
 * });
 * const limit = concurrency({ max: 2, maxQueue: 100 });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withMiddleware(limit).build(),
 * );
 * const calls = Array.from({ length: 10 }, () => client.get("/"));
 * await Promise.all(calls);
 * assert.equal(most, 2);
 * assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
 * ```
 */
export function concurrency(options: ConcurrencyOptions): ConcurrencyLimit {
  checkKnownKeys("concurrency() options", options, OPTION_KEYS);
  const max = count("max", options.max, 1);
  const perOrigin = count("perOrigin", options.perOrigin, 1);
  const maxQueue = count("maxQueue", options.maxQueue, 0);
  if (max === Infinity && perOrigin === Infinity) {
    throw new TypeError("Invalid concurrency() options: expected max or perOrigin");
  }
  const queue = new Queue(max, perOrigin, maxQueue);
  return {
    handle: (request, next, exchange) => queue.run(request, next, exchange),
    state: () => queue.state(),
  };
}

/** `value` of option `name`: an integer of at least `least`, or Infinity; `undefined` is Infinity. */
function count(name: string, value: unknown, least: number): number {
  if (value === undefined || value === Infinity) return Infinity;
  if (Number.isSafeInteger(value) && (value as number) >= least) return value as number;
  const got = typeof value === "number" ? String(value) : describeType(value);
  throw new TypeError(
    `Invalid ${name}: expected an integer of at least ${least} or Infinity, got ${got}`,
  );
}

/** A call waiting for a place. */
interface Waiter {
  /** Its place in the line, across origins. */
  readonly order: number;
  readonly origin: Origin;
  /** Gives it its place (counted already). */
  readonly admit: () => void;
}

/** One origin's exchanges in flight and calls waiting (a Set keeps their order). */
interface Origin {
  readonly name: string;
  inFlight: number;
  readonly waiting: Set<Waiter>;
}

const WAIT_NAME = "the concurrency queue";

/**
 * The places and the line of one `concurrency()` (and of one
 * `adaptiveConcurrency()`, whose limit per key moves: `limitOf`).
 */
export class Queue {
  #inFlight = 0;
  #queued = 0;
  #order = 0;
  /** The origins with an exchange in flight or a call waiting; the others are dropped. */
  readonly #origins = new Map<string, Origin>();

  constructor(
    readonly max: number,
    readonly perOrigin: number,
    readonly maxQueue: number,
    /** The key a request's place is counted under: its origin, or one key for all. */
    readonly keyOf: (request: HttpRequest) => string = (request) => originOf(request.url),
    /** The most in flight under a key: `perOrigin`, or a limit that moves. */
    readonly limitOf: (name: string) => number = () => perOrigin,
  ) {}

  async run(request: HttpRequest, next: Next, exchange: Exchange): Promise<HttpResponse> {
    const name = this.keyOf(request);
    let origin = this.#origins.get(name);
    if (origin === undefined) {
      this.#origins.set(name, origin = { name, inFlight: 0, waiting: new Set() });
    }
    // A place is free for this call only when no waiting call could take it
    // (each release admits those that can): it goes first only then.
    if (this.#inFlight < this.max && origin.inFlight < this.limitOf(name)) this.#take(origin);
    else {
      if (this.#queued >= this.maxQueue) {
        this.#drop(origin);
        throw new QueueFullException(
          `The concurrency queue is full (${this.#queued} waiting): ${describeCall(request)}`,
          { request },
        );
      }
      await this.#wait(origin, exchange);
    }
    let released = false;
    // The exchange's end gives the place back: its body read to the end or
    // cancelled, its failure, its timeout, its caller's signal, close().
    exchange.onEnd(() => {
      if (released) return;
      released = true;
      this.#release(origin);
    });
    return await next(request);
  }

  /** Waits in line for a place in `origin`; leaves the line when the call ends. */
  #wait(origin: Origin, exchange: Exchange): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        order: this.#order++,
        origin,
        admit: () => {
          off();
          exchange.waiting(undefined);
          resolve();
        },
      };
      origin.waiting.add(waiter);
      this.#queued++;
      exchange.waiting(WAIT_NAME);
      // What this rejects with is not seen: the send path fails the call with its end.
      const off = whenAborted(exchange.signal, () => {
        if (!origin.waiting.delete(waiter)) return;
        this.#queued--;
        this.#drop(origin);
        reject(new Error(`The call ended waiting in ${WAIT_NAME}`));
      });
    });
  }

  #take(origin: Origin): void {
    this.#inFlight++;
    origin.inFlight++;
  }

  /** Gives `origin`'s place back, and admits the first waiting calls that may now take one. */
  #release(origin: Origin): void {
    this.#inFlight--;
    origin.inFlight--;
    this.admit();
    this.#drop(origin);
  }

  /** Admits the first waiting calls that may take a place now (after a release, or a limit raised). */
  admit(): void {
    while (this.#inFlight < this.max) {
      // The first in line of those whose origin has a place: one look per origin.
      let first: Waiter | undefined;
      for (const { name, inFlight, waiting } of this.#origins.values()) {
        if (waiting.size === 0 || inFlight >= this.limitOf(name)) continue;
        const head = waiting.values().next().value!;
        if (first === undefined || head.order < first.order) first = head;
      }
      if (first === undefined) break;
      first.origin.waiting.delete(first);
      this.#queued--;
      this.#take(first.origin);
      first.admit();
    }
  }

  /** Forgets `origin` once nothing is in flight or waiting there. */
  #drop(origin: Origin): void {
    if (origin.inFlight === 0 && origin.waiting.size === 0) this.#origins.delete(origin.name);
  }

  state(): ConcurrencyState {
    const origins: Record<string, ConcurrencyCounts> = {};
    for (const { name, inFlight, waiting } of this.#origins.values()) {
      origins[name] = { inFlight, queued: waiting.size };
    }
    return { inFlight: this.#inFlight, queued: this.#queued, origins };
  }
}
