// hedge() (API.md "Traffic control" > "Adaptive controls"): for an
// idempotent call whose head has not come after a delay (fixed, or the
// origin's p95 learned from its recent answers), one more exchange of the
// same request; the first head wins, the other is cancelled through
// `next`'s signal. The links after this one (concurrency, rate limits, the
// breaker) see each send as one of theirs: a hedge counts against them.

import type { Exchange, MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { originOf } from "../http/url.ts";
import { isOneShot } from "../http/raw_body.ts";
import { startWait } from "../waits.ts";
import type { RetryBudget } from "./retry_budget.ts";

/** Options of {@linkcode hedge}. */
export interface HedgeOptions {
  /**
   * When a call whose head has not come gets its hedge: a duration
   * (`"150ms"`, `"1.5s"`, or a number of ms), or `"p95"` (`"p99"`…): that
   * percentile of its origin's latency to the head, learned from its last
   * 200 answers (no hedge before 20 of them). Default `"p95"`.
   */
  after?: string | number | undefined;
  /**
   * The most extra load, as a share of the calls this middleware saw in
   * the last 10 s: past it, no hedge starts. From 0. Default 0.05.
   */
  maxExtra?: number | undefined;
  /** A retry budget each hedge is taken from too (`retryBudget()`, the one given to `withRetry`). */
  budget?: RetryBudget | undefined;
}

const OPTION_KEYS = keysOf<HedgeOptions>({ after: true, maxExtra: true, budget: true });

/** What {@linkcode Hedge.state} tells of an origin. */
export interface HedgeState {
  /** The calls seen, decayed with a time constant of 10 s (so fractions). */
  readonly calls: number;
  /** The hedges sent in them. */
  readonly hedges: number;
  /** The hedges whose head came first. */
  readonly won: number;
  /** The delay a hedge waits for now, in ms (`undefined`: too few answers to learn it). */
  readonly afterMs: number | undefined;
}

/** What {@linkcode hedge} makes: the middleware, and its state per origin. */
export interface Hedge {
  /** The middleware: `withMiddleware(hedging)` calls it for each exchange. */
  readonly handle: MiddlewareFunction;
  /** Each origin's counts and delay, for a dashboard. */
  state(): Record<string, HedgeState>;
}

const HEDGED_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "QUERY"]);
/** The latencies kept per origin, and the fewest before a percentile is trusted. */
const SAMPLES = 200;
const FEWEST = 20;
/** The counts decay with this time constant (ms): "the last 10 s". */
const WINDOW_MS = 10_000;

/** One origin's learned latencies and counts. */
class Origin {
  readonly latencies = new Float64Array(SAMPLES);
  samples = 0;
  /** The percentile, recomputed every FEWEST answers. */
  afterMs: number | undefined = undefined;
  calls = 0;
  hedges = 0;
  won = 0;
  at = performance.now();

  /** Decays the counts to now. */
  decay(now: number): void {
    const factor = Math.exp(-(now - this.at) / WINDOW_MS);
    this.calls *= factor;
    this.hedges *= factor;
    this.won *= factor;
    this.at = now;
  }
}

/**
 * Hedged requests: when the head of an idempotent call (GET, HEAD,
 * OPTIONS, QUERY, with a body that can be sent again) has not come after
 * `after`, one more exchange of the same request starts; the first head
 * wins and the other is cancelled through `next`'s signal (its connection
 * attempt, its body). A call that fails before its hedge starts fails as
 * it would have; once both run, the call fails only when both do (with the
 * first one's error).
 *
 * Put it before the controls that limit sends (`concurrency()`,
 * `adaptiveConcurrency()`, `rateLimit()`, `circuitBreaker()`): each send
 * passes through them, so a hedge takes a place, a token and a breaker's
 * count like any exchange; with `budget` it takes from a retry budget too.
 * No hedge starts while the hedges of the last 10 s would pass `maxExtra`
 * of the calls.
 *
 * @param options `after` (`"p95"`), `maxExtra` (0.05), `budget`.
 * @returns The middleware, with `state()`.
 * @throws {TypeError} A bad or unknown option, naming it.
 *
 * @example A hedge after 50 ms wins over a slow first answer
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { hedge } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * let served = 0;
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
 *   if (served++ === 0) await new Promise((resolve) => setTimeout(resolve, 500));
 *   return new Response(`answer ${served}`);
 * });
 * const hedging = hedge({ after: "50ms", maxExtra: 1 });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withMiddleware(hedging).build(),
 * );
 * assert.equal((await client.get("/")).text, "answer 2");
 * ```
 */
export function hedge(options: HedgeOptions = {}): Hedge {
  checkKnownKeys("hedge options", options, OPTION_KEYS);
  const { after = "p95", maxExtra = 0.05, budget } = options;
  const delay = parseAfter(after);
  if (typeof maxExtra !== "number" || !(maxExtra >= 0) || !Number.isFinite(maxExtra)) {
    throw new TypeError(
      `Invalid maxExtra: expected a finite number from 0, got ${
        typeof maxExtra === "number" ? maxExtra : describeType(maxExtra)
      }`,
    );
  }
  if (
    budget !== undefined &&
    (typeof budget !== "object" || budget === null || typeof budget.withdraw !== "function")
  ) {
    throw new TypeError(`Invalid budget: expected a retryBudget(), got ${describeType(budget)}`);
  }
  const origins = new Map<string, Origin>();

  const originFor = (name: string, now: number): Origin => {
    let origin = origins.get(name);
    if (origin === undefined) {
      if (origins.size >= 1000) {
        for (const [key, old] of origins) {
          old.decay(now);
          if (old.calls < 1) origins.delete(key);
        }
      }
      origins.set(name, origin = new Origin());
    }
    origin.decay(now);
    return origin;
  };

  const afterMs = (origin: Origin): number | undefined =>
    typeof delay === "number" ? delay : origin.afterMs;

  /**
   * Learns a latency to the head of the first send. When its hedge won, the
   * first send's latency is unknown, only that it had not answered when the
   * hedge's head came: it is learned as that time (a censored sample, at its
   * lower bound), so it counts past the delay. Learning the delay itself put
   * it at the percentile, never past it: with more slow answers than the
   * percentile leaves, the delay stayed among the fast answers, the fast
   * ones just past it took hedges too, and the hedges went past the
   * percentile's share (and `maxExtra` turned the slow calls' hedges away).
   */
  const learn = (origin: Origin, ms: number) => {
    if (typeof delay === "number") return;
    origin.latencies[origin.samples++ % SAMPLES] = ms;
    if (origin.samples >= FEWEST && origin.samples % (FEWEST / 2) === 0) {
      const kept = origin.latencies.slice(0, Math.min(origin.samples, SAMPLES)).sort();
      // Nearest rank: the least latency that the percentile's share of answers do not pass.
      origin.afterMs = kept[Math.max(0, Math.ceil(kept.length * delay.percentile) - 1)];
    }
  };

  const handle = async (
    request: HttpRequest,
    next: Next,
    exchange: Exchange,
  ): Promise<HttpResponse> => {
    if (!HEDGED_METHODS.has(request.method) || isOneShot(request.body)) return next(request);
    const started = performance.now();
    const origin = originFor(originOf(request.url), started);
    origin.calls++;
    const wait = afterMs(origin);
    if (wait === undefined || maxExtra === 0) {
      const response = await next(request);
      learn(origin, performance.now() - started);
      return response;
    }
    return await race(request, next, exchange, origin, wait, started);
  };

  /** The first send, and its hedge after `wait` ms unless its head came: the first head wins. */
  const race = (
    request: HttpRequest,
    next: Next,
    exchange: Exchange,
    origin: Origin,
    wait: number,
    started: number,
  ): Promise<HttpResponse> =>
    new Promise((resolve, reject) => {
      const sends: { controller: AbortController; sent: Promise<HttpResponse> }[] = [];
      let settled = false;
      let failures = 0;
      let firstError: unknown;
      let stopTimer: (() => void) | undefined;
      const send = (hedged: boolean) => {
        const controller = new AbortController();
        const sent = next(request, { signal: controller.signal });
        const entry = { controller, sent };
        sends.push(entry);
        sent.then((response) => {
          if (settled) {
            // Lost the race by a hair: its body goes back unread.
            void response.cancel().catch(() => {});
            return;
          }
          settled = true;
          stopTimer?.();
          if (hedged) origin.won++;
          learn(origin, performance.now() - started);
          for (const other of sends) if (other !== entry) other.controller.abort();
          resolve(response);
        }, (error) => {
          if (settled) return;
          if (failures++ === 0) firstError = error;
          // Before its hedge, the first send's failure fails the call as it would have;
          // after, the call fails only when both sends have.
          if (failures === sends.length) {
            settled = true;
            stopTimer?.();
            reject(firstError);
          }
        });
      };
      send(false);
      stopTimer = startWait(() => {
        stopTimer = undefined;
        if (settled || exchange.signal.aborted) return;
        const now = performance.now();
        origin.decay(now);
        // This call counted whole (its count has decayed since it came).
        const calls = origin.calls + 1 - Math.exp(-(now - started) / WINDOW_MS);
        if (origin.hedges + 1 > maxExtra * calls + 1e-9) return;
        // Counted now, not once the budget says yes: a budget with a store answers later, and
        // the calls whose delays pass meanwhile must see this hedge against `maxExtra`.
        origin.hedges++;
        const allowed = budget === undefined ? true : budget.withdraw(request);
        const go = (taken: boolean) => {
          if (taken && !settled) return send(true);
          const later = performance.now();
          origin.decay(later);
          origin.hedges = Math.max(0, origin.hedges - Math.exp(-(later - now) / WINDOW_MS));
        };
        if (allowed instanceof Promise) allowed.then(go, () => go(true));
        else go(allowed);
      }, wait);
    });

  return {
    handle,
    state() {
      const now = performance.now();
      const state: Record<string, HedgeState> = {};
      for (const [name, origin] of origins) {
        origin.decay(now);
        state[name] = {
          calls: origin.calls,
          hedges: origin.hedges,
          won: origin.won,
          afterMs: afterMs(origin),
        };
      }
      return state;
    },
  };
}

/** `after` as ms, or as the percentile to learn. */
function parseAfter(after: unknown): number | { percentile: number } {
  if (typeof after === "number" && after >= 0 && Number.isFinite(after)) return after;
  if (typeof after === "string") {
    const percentile = /^p(\d{1,2}(?:\.\d+)?)$/.exec(after);
    if (percentile !== null && Number(percentile[1]) > 0) {
      return { percentile: Number(percentile[1]) / 100 };
    }
    const duration = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(after);
    if (duration !== null) return Number(duration[1]) * (duration[2] === "s" ? 1000 : 1);
  }
  throw new TypeError(
    `Invalid after: expected a duration ("150ms", "1.5s", ms) or a percentile ("p95"), got ${
      typeof after === "string" ? JSON.stringify(after) : describeType(after)
    }`,
  );
}
