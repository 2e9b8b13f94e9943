// dedupe() (API.md "Traffic control"): identical GET, HEAD and QUERY
// exchanges in flight at once share one, sent in a step of its own
// (the `Exchange`'s `background()`) so that no caller's end ends it for the others.

import type { Exchange, MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import type { HttpRequest } from "../models/request.ts";
import { type HttpResponse, receivedResponse } from "../models/response.ts";
import { appendParams } from "../http/url.ts";
import { comparableBody } from "../http/raw_body.ts";
import { originOf } from "../http/url.ts";

/** How many exchanges are shared and how many calls wait on them, of one origin or of all. */
export interface DedupeCounts {
  /** Exchanges in flight, each sent once for every call waiting on it. */
  readonly inFlight: number;
  /** Calls waiting on those exchanges (the one that started each included). */
  readonly callers: number;
}

/** What {@linkcode Dedupe.state} reports. */
export interface DedupeState extends DedupeCounts {
  /** The counts of each origin with an exchange in flight (`"https://api.example.com"`). */
  readonly origins: Readonly<Record<string, DedupeCounts>>;
}

/** The middleware {@linkcode dedupe} makes, with its state. */
export interface Dedupe {
  /** The middleware: `withMiddleware(shared)` calls it for each exchange. */
  readonly handle: MiddlewareFunction;
  /** The exchanges shared now and their callers, in all and per origin (for a dashboard). */
  state(): DedupeState;
}

/** The methods whose exchanges are shared: safe, and answered alike to the same request. */
const SHARED_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "QUERY"]);

/** One exchange in flight and the calls waiting on it. */
interface Shared {
  /** The URL it was sent to, whose origin `state()` names. */
  readonly url: string;
  callers: number;
  readonly response: Promise<HttpResponse>;
}

/**
 * Shares one exchange between identical GET, HEAD and QUERY calls in
 * flight at once: the same method, URL with its params, every header
 * (credentials and cookies included), Basic `auth`, body (a QUERY's), the
 * same client certificate and `maxResponseBytes`. A call that arrives once
 * the exchange is over sends its own: nothing is cached.
 *
 * - Each caller gets its own response, with its own copy of the body's
 *   bytes.
 * - The shared exchange runs in a step of its own, bounded by the client's
 *   timeout (or the first caller's own `timeout` when longer) and
 *   `close()`, not by any caller's signal: a caller whose signal aborts or
 *   whose timeout passes stops waiting alone, and the others keep waiting.
 *   Its failure is each caller's.
 * - Never shared: a streamed call (`stream()`, `events()`), a body that
 *   can be sent only once or not compared (a stream, a Blob, files), and
 *   any other method.
 * - A shared exchange reads its body whole and tells no call's progress
 *   callbacks.
 * - The object is the scope: clients given the same `dedupe()` share their
 *   exchanges, which run on the client of the call that started them: share
 *   one only between clients of the same network settings.
 * - The requests it compares are kept in memory while their exchange is in
 *   flight, and never shown (`state()` names origins only).
 *
 * Put it before `concurrency()` in `withMiddleware()`: a shared exchange
 * takes one place.
 *
 * @returns The middleware, with `state()`.
 *
 * @example Ten identical calls, one request
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { dedupe } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * let served = 0;
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
 *   served++;
 *   await new Promise((resolve) => setTimeout(resolve, 20));
 *   return new Response("the report");
 * });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withMiddleware(dedupe()).build(),
 * );
 * const responses = await Promise.all(Array.from({ length: 10 }, () => client.get("/report")));
 * assert.equal(served, 1);
 * assert.ok(responses.every((response) => response.text === "the report"));
 * ```
 */
export function dedupe(): Dedupe {
  const inFlight = new Map<string, Shared>();
  const handle = (request: HttpRequest, next: Next, exchange: Exchange) => {
    if (exchange.streamed || !SHARED_METHODS.has(request.method)) {
      return next(request);
    }
    const key = keyOf(request, exchange);
    if (key === undefined) return next(request);
    let shared = inFlight.get(key);
    if (shared === undefined) {
      const response = exchange.background(request);
      const entry: Shared = {
        url: request.url,
        callers: 0,
        response,
      };
      const forget = () => void (inFlight.get(key) === entry && inFlight.delete(key));
      response.then(forget, forget);
      inFlight.set(key, shared = entry);
    }
    return waitOn(shared, request, exchange);
  };
  return {
    handle,
    state() {
      const origins: Record<string, { inFlight: number; callers: number }> = {};
      let callers = 0;
      for (const shared of inFlight.values()) {
        const origin = originOf(shared.url);
        const counts = origins[origin] ??= { inFlight: 0, callers: 0 };
        counts.inFlight++;
        counts.callers += shared.callers;
        callers += shared.callers;
      }
      return { inFlight: inFlight.size, callers, origins };
    },
  };
}

/**
 * A response of its own for `request` from `shared`'s; stops waiting when
 * the call ends (what it rejects with then is not seen: the send path fails
 * the call with its end).
 */
function waitOn(
  shared: Shared,
  request: HttpRequest,
  exchange: Exchange,
): Promise<HttpResponse> {
  const since = performance.now();
  shared.callers++;
  return new Promise((resolve, reject) => {
    let waiting = true;
    const leave = () => {
      if (!waiting) return false;
      waiting = false;
      shared.callers--;
      return true;
    };
    // The exchange's end (its timeout, its signal, close()) stops the wait; after it, nothing.
    exchange.onEnd(() => leave() && reject(new Error("The call ended waiting")));
    shared.response.then((response) => {
      if (!leave()) return;
      resolve(receivedResponse({
        statusCode: response.statusCode,
        headers: response.headers,
        // A copy: a caller may write into the bytes it was given.
        content: response.content.slice(),
        elapsedMs: performance.now() - since,
        url: response.url,
        request,
        ...(response.encoding === undefined ? {} : { encoding: response.encoding }),
      }));
    }, (error) => leave() && reject(error));
  });
}

/**
 * What makes `request` the same as another for `exchange`'s client, or
 * `undefined` when its body cannot be compared. Held in memory only.
 */
function keyOf(request: HttpRequest, exchange: Exchange): string | undefined {
  const body = comparableBody(request);
  if (body === undefined) return undefined;
  const headers = Object.entries(request.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    request.method,
    appendParams(request.url, request.params),
    headers,
    request.auth ?? null,
    body,
    exchange.clientCertificate ?? null,
    exchange.maxResponseBytes,
  ]);
}
