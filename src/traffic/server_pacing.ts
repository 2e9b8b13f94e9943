// serverPacing() (API.md "Traffic control"): a middleware that pauses every
// call to an origin whose server said to wait (pacing_signal.ts reads what
// it said), one pause per origin.

import type { Exchange, MiddlewareFunction } from "../hooks/hook_interfaces.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { type Duration, durationSeconds } from "../models/duration.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { originOf } from "../http/url.ts";
import { RateLimitedException } from "./errors.ts";
import { pacingWait } from "./pacing_signal.ts";
import { startWait, whenAborted } from "../waits.ts";

/** Options of {@linkcode serverPacing}. */
export interface ServerPacingOptions {
  /**
   * The longest a call waits for its origin's reset, in seconds or with its
   * unit (`"2m"`): a longer
   * wait fails the call at once with a `RateLimitedException`. Default 60
   * (the default `withRetry({ maxRetryAfter })`); 0: a paused origin's
   * calls never wait, they fail at once.
   */
  maxWaitSeconds?: number | Duration | undefined;
}

const OPTION_KEYS = keysOf<ServerPacingOptions>({ maxWaitSeconds: true });

/** An origin's pause, as {@linkcode ServerPacing.state} tells it. */
export interface ServerPacingState {
  /** When the pause ends, in ms since the epoch (`Date.now()`'s clock). */
  readonly pausedUntil: number;
  /** How many calls wait for it now. */
  readonly waiting: number;
}

/** What {@linkcode serverPacing} gives: the middleware, and what it is doing. */
export interface ServerPacing {
  /** The longest wait for a reset, in seconds. */
  readonly maxWaitSeconds: number;
  /** The middleware: `withMiddleware(pacing)` calls it for each exchange. */
  readonly handle: MiddlewareFunction;
  /** The origins paused now, by origin (`http://host:port`), for a dashboard. */
  state(): Record<string, ServerPacingState>;
}

/** How a wait is named in a timeout that ends it. */
const WAIT_NAME = "the server's rate limit";
/** Past this many origins, the ones whose pause is over are forgotten when another is paused. */
const ORIGINS_KEPT = 1000;

/** A pause of one origin: the later reset wins. */
interface Pause {
  until: number;
  waiting: number;
}

/**
 * Server pacing, as middleware (`withMiddleware(serverPacing())`): when a
 * response says the server's rate limit is reached, every later call to
 * that origin waits until the reset instead of being sent. The signals:
 *
 * - a 429 or 503 with `Retry-After` (seconds, or an HTTP date read against
 *   the response's `Date`), which wins over the headers below;
 * - the IETF httpapi draft's `RateLimit` field (a list, `"default";r=0;t=30`):
 *   an item with `r=0` pauses for its `t` seconds (without `t`, the `w` of
 *   the `RateLimit-Policy` item of the same name); a malformed field is
 *   ignored, as the draft says;
 * - `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` (and the earlier
 *   drafts' `RateLimit-Remaining` / `RateLimit-Reset`), on any status: a
 *   reset below 1e9 is seconds from now, from 1e9 on (2001-09-09) an epoch
 *   time in seconds, and from 1e12 on an epoch time in milliseconds, read
 *   against the response's `Date`.
 *
 * The response that carried the signal is returned to its caller as it is.
 * One pause per origin: a later signal moves it only later, never sooner.
 * A response with a positive `Age` (from a cache) pauses nothing.
 *
 * A call whose wait would be longer than `maxWaitSeconds` fails at once with
 * a `RateLimitedException` carrying `retryAfterSeconds`, never sent, never
 * retried. A wait ends with the call's signal, the client's close and its
 * timeout (`totalTimeout`, else `timeout`): a `TimeoutException` names "the
 * server's rate limit"; nothing is left behind.
 *
 * With the client's retries: the control sits on the exchange, so it sees
 * each attempt. A 429 or 503 that the retry policy retries waits the
 * client's retry wait (its `Retry-After`, at most `maxRetryAfter`), not this
 * one; the retried exchange then passes here like any call and waits for
 * what is left of the pause. Place it after `concurrency()` and
 * `rateLimit()`, before `circuitBreaker()`: a call waiting here holds no
 * concurrency slot of an inner control, and its wait is not a breaker's
 * failure.
 *
 * @example A server's Retry-After past maxWaitSeconds fails the next call at once
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { RateLimitedException, serverPacing } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * let served = 0;
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => (served++, new Response("slow down", { status: 429, headers: { "Retry-After": "120" } })),
 * );
 * const pacing = serverPacing({ maxWaitSeconds: 60 });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withRetry({ maxRetries: 0 }).withMiddleware(pacing).build(),
 * );
 * const first = await client.get("/items");
 * assert.equal(first.statusCode, 429);
 * await assert.rejects(
 *   client.get("/items"),
 *   (error) => error instanceof RateLimitedException && error.retryAfterSeconds === 120,
 * );
 * assert.equal(served, 1);
 * assert.deepEqual(Object.keys(pacing.state()), [`http://127.0.0.1:${server.addr.port}`]);
 * ```
 */
export function serverPacing(options: ServerPacingOptions = {}): ServerPacing {
  checkKnownKeys("serverPacing options", options, OPTION_KEYS);
  // `null` is refused, not taken for the default.
  const { maxWaitSeconds: given = 60 } = options;
  const maxWaitSeconds = durationSeconds(
    "maxWaitSeconds",
    given,
    "a finite number of seconds, 0 or more",
  );
  if (typeof maxWaitSeconds !== "number" || !(maxWaitSeconds >= 0) || maxWaitSeconds === Infinity) {
    throw new TypeError(
      `Invalid maxWaitSeconds: expected a finite number of seconds, 0 or more, got ${
        typeof maxWaitSeconds === "number" ? maxWaitSeconds : describeType(maxWaitSeconds)
      }`,
    );
  }
  return new Pacing(maxWaitSeconds);
}

class Pacing implements ServerPacing {
  readonly #pauses = new Map<string, Pause>();

  constructor(readonly maxWaitSeconds: number) {}

  readonly handle: MiddlewareFunction = (request, next, exchange) =>
    this.#handle(request, next, exchange);

  state(): Record<string, ServerPacingState> {
    const now = Date.now();
    const state: Record<string, ServerPacingState> = {};
    for (const [origin, { until, waiting }] of this.#pauses) {
      if (until > now || waiting > 0) state[origin] = { pausedUntil: until, waiting };
    }
    return state;
  }

  async #handle(
    request: HttpRequest,
    next: (request: HttpRequest) => Promise<HttpResponse>,
    exchange: Exchange,
  ): Promise<HttpResponse> {
    const origin = originOf(request.url);
    const pause = this.#pauses.get(origin);
    if (pause !== undefined) await this.#wait(origin, pause, request, exchange);
    const response = await next(request);
    const wait = pacingWait(response);
    if (wait !== undefined && wait > 0) this.#pause(origin, Date.now() + wait);
    return response;
  }

  /** Waits until `pause` ends, or fails at once when that is past `maxWaitSeconds`. */
  async #wait(
    origin: string,
    pause: Pause,
    request: HttpRequest,
    exchange: Exchange,
  ): Promise<void> {
    pause.waiting++;
    try {
      // Each turn waits for the pause as it stands, which a later signal may have moved.
      for (let ms = pause.until - Date.now(); ms > 0; ms = pause.until - Date.now()) {
        if (ms > this.maxWaitSeconds * 1000) {
          const seconds = Math.ceil(ms / 1000);
          throw new RateLimitedException(
            `Rate limited by the server for ${seconds} s (maxWaitSeconds ${this.maxWaitSeconds}): ${
              describeCall(request)
            }`,
            { request, retryAfterSeconds: seconds },
          );
        }
        await sleep(ms, request, exchange);
      }
    } finally {
      pause.waiting--;
      if (pause.waiting === 0 && pause.until <= Date.now()) this.#pauses.delete(origin);
    }
  }

  #pause(origin: string, until: number): void {
    const pause = this.#pauses.get(origin);
    if (pause !== undefined) {
      pause.until = Math.max(pause.until, until);
      return;
    }
    if (this.#pauses.size >= ORIGINS_KEPT) {
      const now = Date.now();
      for (const [kept, { until, waiting }] of this.#pauses) {
        if (until <= now && waiting === 0) this.#pauses.delete(kept);
      }
    }
    this.#pauses.set(origin, { until, waiting: 0 });
  }
}

/**
 * Resolves after `ms`, or rejects when the exchange ends first (its
 * timeout, the caller's signal, the client's close: the call has failed
 * already, with the exception that names the wait), its timer cleared.
 */
function sleep(ms: number, request: HttpRequest, exchange: Exchange): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = startWait(() => {
      off();
      exchange.waiting(undefined);
      resolve();
    }, ms);
    exchange.waiting(WAIT_NAME);
    // Called at once when the exchange has ended already.
    const off = whenAborted(exchange.signal, () => {
      stop();
      reject(
        new HttpClientException(`Call ended waiting in ${WAIT_NAME}: ${describeCall(request)}`, {
          request,
        }),
      );
    });
  });
}
