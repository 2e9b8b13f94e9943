// circuitBreaker() (API.md "Traffic control"): a middleware that stops
// calling an origin that keeps failing, per origin: closed, open (every call
// fails at once), half-open (one probe decides).

import type { Exchange, MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import { whenAborted } from "../waits.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { type Duration, durationSeconds } from "../models/duration.ts";
import { ConnectionException, describeCall, endedByCaller, TimeoutException } from "../errors.ts";
import { originOf } from "../http/url.ts";
import { CircuitOpenException } from "./errors.ts";
import { askStore, type CircuitBreakerStore } from "./traffic_store.ts";

/** Options of {@linkcode circuitBreaker}. */
export interface CircuitBreakerOptions {
  /** The share of failed calls in the window, above 0 and at most 1, that opens the circuit. Default 0.5. */
  failureRatio?: number | undefined;
  /** The fewest calls in the window before the ratio counts: a whole number from 1. Default 20. */
  minimumCalls?: number | undefined;
  /**
   * How far back calls count, in seconds or with its unit (`"1m"`); in
   * tenths of it: a call counts 0.9 to 1 window long. Default 30.
   */
  windowSeconds?: number | Duration | undefined;
  /** How long an opened circuit fails calls at once before its probe, in seconds or with its unit. Default 30. */
  openSeconds?: number | Duration | undefined;
  /**
   * Shares each origin's window and open state with the other processes
   * that use the store ({@linkcode RedisTrafficStore}). Default: none (this
   * breaker's own state in memory).
   */
  store?: CircuitBreakerStore | undefined;
  /**
   * The longest wait for the store's answer, in seconds (default 1), within
   * the call's own deadlines: then the breaker's state in memory decides.
   */
  storeTimeout?: number | Duration | undefined;
}

const OPTION_KEYS = keysOf<CircuitBreakerOptions>({
  failureRatio: true,
  minimumCalls: true,
  windowSeconds: true,
  openSeconds: true,
  store: true,
  storeTimeout: true,
});

/** Where an origin's circuit is. */
export type CircuitState = "closed" | "open" | "half-open";

/** An origin's circuit, as {@linkcode CircuitBreaker.state} tells it. */
export interface CircuitBreakerState {
  /** Closed (calls pass), open (calls fail at once), half-open (the next call, alone, probes). */
  readonly state: CircuitState;
  /** The calls counted in the window (closed), or 0. */
  readonly calls: number;
  /** The failures among them. */
  readonly failures: number;
  /** For an open circuit, when it half-opens, in ms since the epoch (`Date.now()`'s clock). */
  readonly halfOpensAt?: number | undefined;
}

/** What {@linkcode circuitBreaker} gives: the middleware, and what it is doing. */
export interface CircuitBreaker {
  /** The middleware: `withMiddleware(breaker)` calls it for each exchange. */
  readonly handle: MiddlewareFunction;
  /** Each origin's circuit, by origin (`http://host:port`), for a dashboard. */
  state(): Record<string, CircuitBreakerState>;
}

/** The window's buckets: each a tenth of it. */
const BUCKETS = 10;
/** Past this many origins, closed circuits with no call in their window are forgotten. */
const ORIGINS_KEPT = 1000;

/** One origin's circuit. */
class Circuit {
  state: CircuitState = "closed";
  /** Moves on at each change of state and each probe: an outcome of an earlier one is not counted. */
  generation = 0;
  /** When it opened, on `performance.now()`'s clock and on `Date.now()`'s. */
  openedAt = 0;
  openedAtWall = 0;
  /** True while the half-open circuit's probe is in flight. */
  probing = false;
  /** Calls and failures per bucket, `bucket` the latest one's number. */
  readonly calls = new Uint32Array(BUCKETS);
  readonly failures = new Uint32Array(BUCKETS);
  bucket = 0;

  /** Moves the window to bucket `at`: the buckets it leaves are emptied. */
  advance(at: number): void {
    if (at - this.bucket >= BUCKETS) {
      this.calls.fill(0);
      this.failures.fill(0);
    } else {
      for (let next = this.bucket + 1; next <= at; next++) {
        this.calls[next % BUCKETS] = 0;
        this.failures[next % BUCKETS] = 0;
      }
    }
    this.bucket = Math.max(this.bucket, at);
  }

  sum(counts: Uint32Array): number {
    let total = 0;
    for (const count of counts) total += count;
    return total;
  }

  /** Goes to `state`: the window starts empty, and outcomes of calls still in flight no longer count. */
  move(state: CircuitState): void {
    this.state = state;
    this.generation++;
    this.probing = false;
    this.calls.fill(0);
    this.failures.fill(0);
    if (state === "open") {
      this.openedAt = performance.now();
      this.openedAtWall = Date.now();
    }
  }

  /** Opens the circuit as a shared store says: it half-opens in `ms`. */
  openFor(ms: number, openSeconds: number): void {
    this.move("open");
    const early = openSeconds * 1000 - Math.min(ms, openSeconds * 1000);
    this.openedAt -= early;
    this.openedAtWall -= early;
  }
}

/**
 * A circuit breaker per origin, as middleware
 * (`withMiddleware(circuitBreaker())`). Failures are connection errors
 * (`ConnectionException`), timeouts (`TimeoutException`) and 5xx responses,
 * never a 4xx; a call that ends otherwise (the caller's signal, the
 * client's close, a body it could not decode) counts neither way. When, in
 * the last `windowSeconds`, at least `minimumCalls` calls were counted and
 * `failureRatio` of them failed, the circuit opens: every call to that
 * origin fails at once with a `CircuitOpenException`, never sent, never
 * retried, for `openSeconds`. It then half-opens: the next call goes through
 * alone as its probe (the others fail at once while it runs); a success
 * (any answer but a 5xx) closes the circuit, a failure opens it again, and a
 * probe ended by its caller leaves it half-open for the next call. A 5xx
 * response is returned to its caller as it is.
 *
 * Defaults: `failureRatio` 0.5, `minimumCalls` 20, `windowSeconds` 30,
 * `openSeconds` 30. Times are on the monotonic clock (`performance.now()`).
 * Place it after the controls that wait (`concurrency()`, `rateLimit()`,
 * `serverPacing()`): a call's timeout while it waits in them is theirs, and
 * is then not counted here. With a `store` ({@linkcode RedisTrafficStore}),
 * each outcome is counted in one window on the store too, and a circuit
 * that it opens (any process's failures) is open for every process that
 * shares it: each call asks the store first, for at most `storeTimeout`
 * within the call's deadlines, and goes on with the state in memory when
 * it does not answer. The client's retries pass through it too: each
 * attempt is a call, and a retry into an open circuit fails at once.
 *
 * @example Open after failures, then fail fast
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { circuitBreaker, CircuitOpenException } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * let served = 0;
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => (served++, new Response("down", { status: 503 })),
 * );
 * const breaker = circuitBreaker({ failureRatio: 1, minimumCalls: 2, openSeconds: 60 });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withRetry({ maxRetries: 0 }).withMiddleware(breaker).build(),
 * );
 * for (let i = 0; i < 2; i++) await client.get("/");
 * await assert.rejects(client.get("/"), CircuitOpenException);
 * assert.equal(served, 2);
 * assert.equal(breaker.state()[`http://127.0.0.1:${server.addr.port}`]?.state, "open");
 * ```
 */
export function circuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  checkKnownKeys("circuitBreaker options", options, OPTION_KEYS);
  const { failureRatio = 0.5, minimumCalls = 20 } = options;
  // `null` is refused, not taken for the default.
  const { windowSeconds: window = 30, openSeconds: open = 30 } = options;
  const windowSeconds = durationSeconds("windowSeconds", window, EXPECTED.seconds);
  const openSeconds = durationSeconds("openSeconds", open, EXPECTED.seconds);
  checked("failureRatio", failureRatio, "ratio");
  checked("minimumCalls", minimumCalls, "count");
  checked("windowSeconds", windowSeconds, "seconds");
  checked("openSeconds", openSeconds, "seconds");
  const { store, storeTimeout = 1 } = options;
  if (
    store !== undefined &&
    (typeof store !== "object" || store === null || typeof store.breakerOpenMs !== "function" ||
      typeof store.breakerRecord !== "function")
  ) {
    throw new TypeError(
      `Invalid store: expected a CircuitBreakerStore (breakerOpenMs and breakerRecord), got ${
        describeType(store)
      }`,
    );
  }
  checked("storeTimeout", storeTimeout, "seconds");
  return new Breaker(
    failureRatio,
    minimumCalls,
    windowSeconds * 1000 / BUCKETS,
    openSeconds,
    store,
    storeTimeout * 1000,
  );
}

const EXPECTED = {
  ratio: "a number above 0 and at most 1",
  count: "a whole number from 1",
  seconds: "a finite number of seconds above 0",
};

/** Throws a TypeError naming `field` unless `value` is what `kind` expects. */
function checked(
  field: string,
  value: unknown,
  kind: keyof typeof EXPECTED,
): asserts value is number {
  const valid = typeof value === "number" && value > 0 && Number.isFinite(value) &&
    (kind !== "ratio" || value <= 1) && (kind !== "count" || Number.isSafeInteger(value));
  if (valid) return;
  const got = typeof value === "number" ? value : describeType(value);
  throw new TypeError(`Invalid ${field}: expected ${EXPECTED[kind]}, got ${got}`);
}

class Breaker implements CircuitBreaker {
  readonly #circuits = new Map<string, Circuit>();

  constructor(
    readonly failureRatio: number,
    readonly minimumCalls: number,
    readonly bucketMs: number,
    readonly openSeconds: number,
    readonly store: CircuitBreakerStore | undefined,
    readonly storeTimeoutMs: number,
  ) {}

  readonly handle: MiddlewareFunction = (request, next, exchange) =>
    this.#handle(request, next, exchange);

  state(): Record<string, CircuitBreakerState> {
    const state: Record<string, CircuitBreakerState> = {};
    const bucket = Math.floor(performance.now() / this.bucketMs);
    for (const [origin, circuit] of this.#circuits) {
      circuit.advance(bucket);
      const calls = circuit.sum(circuit.calls);
      const failures = circuit.sum(circuit.failures);
      if (circuit.state !== "open") state[origin] = { state: circuit.state, calls, failures };
      else if (this.#reopened(circuit)) state[origin] = { state: "half-open", calls, failures };
      else {
        const halfOpensAt = circuit.openedAtWall + this.openSeconds * 1000;
        state[origin] = { state: "open", calls, failures, halfOpensAt };
      }
    }
    return state;
  }

  async #handle(
    request: HttpRequest,
    next: Next,
    exchange: Exchange,
  ): Promise<HttpResponse> {
    const origin = originOf(request.url);
    const circuit = this.#circuits.get(origin) ?? this.#add(origin);
    const { store } = this;
    if (store !== undefined && circuit.state === "closed") {
      // Another process may have opened it; no answer in time: the state in memory decides.
      const openMs = await askStore(
        () => store.breakerOpenMs(origin),
        this.storeTimeoutMs,
        "The circuit breaker's store",
        exchange,
      );
      if (typeof openMs === "number" && openMs > 0 && circuit.state === "closed") {
        circuit.openFor(openMs, this.openSeconds);
      }
    }
    if (circuit.state === "open") {
      if (!this.#reopened(circuit)) throw refused(origin, request, "open");
      circuit.move("half-open");
    }
    const probe = circuit.state === "half-open";
    let off: (() => void) | undefined;
    if (probe) {
      if (circuit.probing) throw refused(origin, request, "half-open, its probe in flight");
      circuit.probing = true;
      // A probe of its own generation: once its exchange ends early (its
      // timeout, its caller's signal, the client's close), the next call may
      // probe at once, and the outcome of this one then no longer counts.
      const generation = ++circuit.generation;
      off = whenAborted(exchange.signal, () => {
        if (circuit.generation === generation) circuit.probing = false;
      });
    }
    const { generation } = circuit;
    let failed: boolean | undefined;
    try {
      const response = await next(request);
      failed = response.statusCode >= 500;
      return response;
    } catch (error) {
      // The caller's own signal (an AbortSignal.timeout() too) tells nothing of the server.
      const failure = error instanceof ConnectionException || error instanceof TimeoutException;
      if (failure && !endedByCaller(error)) failed = true;
      throw error;
    } finally {
      off?.();
      if (circuit.generation === generation) this.#count(circuit, probe, failed);
      if (store !== undefined && failed !== undefined) this.#share(origin, probe, failed, exchange);
    }
  }

  /** Counts the outcome in the shared store too; a circuit it opened opens here as well. */
  #share(origin: string, probe: boolean, failed: boolean, exchange: Exchange): void {
    const store = this.store!;
    const outcome = {
      failed,
      probe,
      bucketMs: this.bucketMs,
      minimumCalls: this.minimumCalls,
      failureRatio: this.failureRatio,
      openMs: this.openSeconds * 1000,
    };
    const told = askStore(
      () => store.breakerRecord(origin, outcome),
      this.storeTimeoutMs,
      "The circuit breaker's store",
    ).then((openMs) => {
      const circuit = this.#circuits.get(origin);
      if (typeof openMs === "number" && openMs > 0 && circuit?.state === "closed") {
        circuit.openFor(openMs, this.openSeconds);
      }
    });
    // Not awaited by the call; the client's close() waits for it (bounded).
    exchange.waitUntil(told, this.storeTimeoutMs);
  }

  /**
   * Counts an outcome of the circuit's current generation: `failed`
   * undefined for a call that tells nothing of the server. A probe's
   * failure opens the circuit again (its timeout too, unless another probe
   * has started since), its success closes it.
   */
  #count(circuit: Circuit, probe: boolean, failed: boolean | undefined): void {
    if (probe) {
      if (failed === undefined) circuit.probing = false;
      else circuit.move(failed ? "open" : "closed");
      return;
    }
    if (failed === undefined) return;
    const bucket = Math.floor(performance.now() / this.bucketMs);
    circuit.advance(bucket);
    circuit.calls[bucket % BUCKETS]!++;
    if (failed) circuit.failures[bucket % BUCKETS]!++;
    const calls = circuit.sum(circuit.calls);
    if (calls >= this.minimumCalls && circuit.sum(circuit.failures) / calls >= this.failureRatio) {
      circuit.move("open");
    }
  }

  #reopened(circuit: Circuit): boolean {
    return performance.now() - circuit.openedAt >= this.openSeconds * 1000;
  }

  #add(origin: string): Circuit {
    if (this.#circuits.size >= ORIGINS_KEPT) {
      const bucket = Math.floor(performance.now() / this.bucketMs);
      for (const [kept, circuit] of this.#circuits) {
        circuit.advance(bucket);
        if (circuit.state === "closed" && circuit.sum(circuit.calls) === 0) {
          this.#circuits.delete(kept);
        }
      }
    }
    const circuit = new Circuit();
    circuit.bucket = Math.floor(performance.now() / this.bucketMs);
    this.#circuits.set(origin, circuit);
    return circuit;
  }
}

function refused(origin: string, request: HttpRequest, where: string): CircuitOpenException {
  return new CircuitOpenException(
    `The circuit breaker of ${origin} is ${where}: ${describeCall(request)}`,
    { request },
  );
}
