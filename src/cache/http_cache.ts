// The HTTP cache (API.md "Caching"): a middleware that answers from a store
// what RFC 9111 lets a private cache answer (policy.ts judges, key.ts keys)
// and tells what it did in a Cache-Status header (RFC 9211).

import type { MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import { contextExchange, type ExchangeFacts } from "../models/context.ts";
import type { HttpRequest } from "../models/request.ts";
import {
  headOf,
  type HttpResponse,
  receivedResponse,
  type StreamedBody,
  streamedBodyOf,
  streamedResponse,
} from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf, validatePositive } from "../models/_validate.ts";
import { carryBody } from "../send/body.ts";
import { answerWithin } from "../send/deadline.ts";
import { describeError } from "../masking/views.ts";
import { appendParams } from "../http/url.ts";
import { headerValue } from "../http/headers.ts";
import type { CacheEntry, CacheStore } from "./store.ts";
import { type CacheRequest, cacheRequest, keyOfLocation } from "./key.ts";
import {
  type CachePolicy,
  evaluate,
  parseCacheControl,
  policyFrom,
  type PolicyMessage,
  policyMeta,
  policyOf,
  staleIfError,
} from "./policy.ts";

/** Options of an {@linkcode HttpCache}. */
export interface HttpCacheOptions {
  /** Where responses are kept: a {@linkcode MemoryCacheStore} or any {@linkcode CacheStore}. */
  store: CacheStore;
  /** The largest body stored, in bytes; a larger one passes unstored. Default 8 MiB. */
  maxEntryBytes?: number | undefined;
  /**
   * The longest wait for the store, in seconds (default 1); never longer
   * than half of what the call's timeout leaves. A store that answers
   * later is a miss.
   */
  storeTimeout?: number | undefined;
  /**
   * Told each failure of the store (and of a background revalidation):
   * they never fail a call. Default: a warning to the client's logger (its
   * logging hooks', `withLogging()`), else the console, with credentials
   * in URLs masked; the default's warning too when `onError` throws.
   */
  onError?: ((error: unknown) => void) | undefined;
}

const OPTION_KEYS = keysOf<HttpCacheOptions>({
  store: true,
  maxEntryBytes: true,
  storeTimeout: true,
  onError: true,
});

/** The methods whose responses are stored. */
const STORED_METHODS: ReadonlySet<string> = new Set(["GET", "QUERY"]);
/** The methods a successful response of which invalidates nothing (RFC 9110 9.2.1). */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "QUERY"]);
/** How long a stale response with a validator is kept, in ms: to be revalidated by a 304. */
const KEEP_VALIDATED_MS = 24 * 3600 * 1000;
/** The format of an entry's `meta`. */
const VERSION = 2;

/** A stored response read back and judged. */
interface Stored {
  readonly policy: CachePolicy;
  readonly body: Uint8Array;
}

/**
 * A private HTTP cache (RFC 9111), plugged into a client as middleware
 * (`withMiddleware(cache)` or `withCache(cache)`): it stores the responses
 * to GET and QUERY that RFC 9111 lets a private cache store, serves them
 * while fresh, revalidates stale ones with `If-None-Match` /
 * `If-Modified-Since`, honours the request's own `Cache-Control`
 * (`no-cache`, `no-store`, `max-age`, `max-stale`, `min-fresh`,
 * `only-if-cached`: a miss answers 504), `stale-while-revalidate` and
 * `stale-if-error`, and invalidates a URL's responses on a successful
 * unsafe method. Every response it handled carries a `Cache-Status` header
 * naming `fetchline`. A response to a request with credentials is stored
 * under a hash of them: another caller never receives it. `Set-Cookie` is
 * never stored. A HEAD, a request with `Range`, and one with `no-store`
 * pass by the cache (`fwd=bypass`).
 *
 * @example A client with a cache in memory
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { HttpCache, MemoryCacheStore } from "@fetchline/fetchline/cache";
 * import assert from "node:assert/strict";
 *
 * let served = 0;
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => (served++, new Response("hi", { headers: { "Cache-Control": "max-age=60" } })),
 * );
 * const cache = new HttpCache({ store: new MemoryCacheStore() });
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withCache(cache).build(),
 * );
 * await client.get("/");
 * const again = await client.get("/");
 * assert.equal(again.header("cache-status"), "fetchline; hit");
 * assert.equal(served, 1);
 * ```
 */
export class HttpCache {
  /** The store. */
  readonly store: CacheStore;
  /** The largest body stored, in bytes. */
  readonly maxEntryBytes: number;
  /** The longest wait for the store, in seconds. */
  readonly storeTimeout: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  /**
   * The policies of the metadata a store gave (a store in memory gives the
   * same object for the same entry): judged once.
   */
  readonly #policies = new WeakMap<object, CachePolicy>();
  /** The background work running: revalidations (by key) and writes. */
  readonly #running = new Map<unknown, Promise<unknown>>();

  /** Creates a cache over `options.store`. */
  constructor(options: HttpCacheOptions) {
    checkKnownKeys("HttpCache options", options, OPTION_KEYS);
    const { store } = options;
    if (
      typeof store !== "object" || store === null ||
      !["get", "set", "delete"].every((name) => typeof (store as never)[name] === "function")
    ) {
      throw new TypeError(
        `Invalid store: expected a CacheStore (get, set and delete methods), got ${
          describeType(store)
        }`,
      );
    }
    this.store = store;
    this.maxEntryBytes = validatePositive(
      "maxEntryBytes",
      options.maxEntryBytes ?? 8 * 2 ** 20,
      false,
    );
    this.storeTimeout = validatePositive("storeTimeout", options.storeTimeout ?? 1, false);
    const { onError } = options;
    if (onError !== undefined && typeof onError !== "function") {
      throw new TypeError(`Invalid onError: expected a function, got ${describeType(onError)}`);
    }
    this.#onError = onError;
  }

  /** The middleware: `withMiddleware(cache)` calls it for each exchange. */
  readonly handle: MiddlewareFunction = (request, next, context) =>
    this.#handle(request, next, contextExchange(context));

  /** Resolves once no background revalidation or store write of this cache runs. */
  async whenIdle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  async #handle(
    request: HttpRequest,
    next: Next,
    facts: ExchangeFacts | undefined,
  ): Promise<HttpResponse> {
    const since = performance.now();
    const method = request.method;
    const directives = parseCacheControl(headerValue(request.headers, "cache-control"));
    if (!STORED_METHODS.has(method)) {
      const response = await next(request);
      // Waited for: a GET sent once this call returns must not be served what it replaced.
      if (!SAFE_METHODS.has(method) && response.statusCode < 400) {
        await this.#invalidate(request, response, facts);
      }
      return withStatus(response, "fwd=bypass");
    }
    if (
      directives["no-store"] !== undefined || headerValue(request.headers, "range") !== undefined
    ) {
      return withStatus(await next(request), "fwd=bypass");
    }
    const keying = cacheRequest(request, facts);
    const keyed = keying instanceof Promise ? await keying : keying;
    const { key } = keyed;
    if (key === undefined) return withStatus(await next(request), "fwd=bypass");
    const read = this.#read(key, keyed.message, facts);
    let stored = read instanceof Promise ? await read : read;
    // A body past this client's limit is not served from the cache: the exchange refuses it.
    if (
      stored !== undefined && facts !== undefined && !facts.stream &&
      stored.body.byteLength > facts.maxResponseBytes
    ) stored = undefined;
    const onlyIfCached = directives["only-if-cached"] !== undefined;
    if (stored === undefined) {
      if (onlyIfCached) return gatewayTimeout(request, since);
      return this.#forward(request, next, keyed, facts, "miss");
    }
    const { policy } = stored;
    const evaluation = evaluate(policy, keyed.message);
    const { revalidation } = evaluation;
    if (evaluation.response !== undefined) {
      if (revalidation !== undefined) {
        this.#revalidateInBackground(request, keyed, stored, revalidation.headers, facts);
      }
      const detail = revalidation === undefined ? "hit" : "hit; detail=stale-while-revalidate";
      return served(request, stored, evaluation.response.headers, detail, since, facts);
    }
    if (onlyIfCached) return gatewayTimeout(request, since);
    if (!policy._requestMatches(keyed.message, false)) {
      return this.#forward(request, next, keyed, facts, "vary-miss");
    }
    const conditional = conditionalHeaders(revalidation?.headers);
    const fwd = policy.stale() ? "stale" : "request";
    let response: HttpResponse;
    try {
      response = await next(conditional === undefined ? request : request.withHeaders(conditional));
    } catch (error) {
      if (!staleIfError(policy, directives)) throw error;
      this.#report(error, facts);
      const headers = policy.responseHeaders();
      return served(request, stored, headers, `fwd=${fwd}; detail=stale-if-error`, since, facts);
    }
    if (response.statusCode >= 500 && staleIfError(policy, directives)) {
      await response.cancel();
      const detail = `fwd=${fwd}; fwd-status=${response.statusCode}; detail=stale-if-error`;
      return served(request, stored, policy.responseHeaders(), detail, since, facts);
    }
    if (response.statusCode !== 304) {
      return this.#store(response, keyed, facts, `fwd=${fwd}; fwd-status=${response.statusCode}`);
    }
    await response.cancel();
    const { policy: updated, matches } = policy.revalidatedPolicy(
      keyed.message,
      notModified(response),
    );
    // A 304 whose validator selects no stored response cannot stand for it (RFC 9111 4.3.4).
    if (!matches) return this.#forward(request, next, keyed, facts, fwd);
    // Written unless it renews nothing a later request reads: no freshness, the same headers.
    if (updated.maxAge() > 0 || !sameHeaders(policy, updated)) {
      this.#write(key, updated, stored.body, facts);
    }
    const detail = `fwd=${fwd}; fwd-status=304`;
    return served(request, stored, updated.responseHeaders(), detail, since, facts);
  }

  /** Sends `request` on (a miss) and stores what may be stored of its response. */
  async #forward(
    request: HttpRequest,
    next: Next,
    keyed: CacheRequest,
    facts: ExchangeFacts | undefined,
    fwd: string,
  ): Promise<HttpResponse> {
    return this.#store(await next(request), keyed, facts, `fwd=${fwd}`);
  }

  /**
   * Stores `response` when its policy allows: a buffered body at once, a
   * streamed one when it has been read to its end within `maxEntryBytes`.
   */
  #store(
    response: HttpResponse,
    keyed: CacheRequest,
    facts: ExchangeFacts | undefined,
    status: string,
  ): HttpResponse {
    const policy = policyOf(keyed.message, messageOf(response));
    if (!policy.storable() || keepFor(policy) <= 0 || keyed.key === undefined) {
      return withStatus(response, status);
    }
    const key = keyed.key;
    const body = streamedBodyOf(response);
    // A streamed body its Content-Length already puts past the limit is not kept.
    const length = Number(response.headers["content-length"] ?? 0);
    if (body !== undefined && length > this.maxEntryBytes) return withStatus(response, status);
    if (body === undefined) {
      if (response.content.byteLength > this.maxEntryBytes) return withStatus(response, status);
      // A copy: the caller may write into the bytes it was given.
      this.#write(key, policy, response.content.slice(), facts);
      return withStatus(response, `${status}; stored`);
    }
    const limit = this.maxEntryBytes;
    const store = (content: Uint8Array) => this.#write(key, policy, content, facts);
    const kept: StreamedBody = {
      take: () => body.take().pipeThrough(keeper(limit, store)),
      read: async () => {
        const read = await body.read();
        if (read.content.byteLength <= limit) store(read.content.slice());
        return read;
      },
      cancel: () => body.cancel(),
      maxResponseBytes: body.maxResponseBytes,
      held: () => body.held?.(),
    };
    return withStatus(response, `${status}; stored`, kept);
  }

  /**
   * Reads and judges the entry under `key` (at once from a store that
   * answers at once); a failure or garbage is told and is a miss.
   */
  #read(
    key: string,
    request: PolicyMessage,
    facts: ExchangeFacts | undefined,
  ): Stored | undefined | Promise<Stored | undefined> {
    const judged = (entry: unknown) => {
      if (entry === undefined || entry === null) return undefined;
      const { meta, body } = entry as Partial<CacheEntry>;
      if (meta?.v !== VERSION || !(body instanceof Uint8Array)) {
        throw new TypeError("the store answered something that is not a cache entry");
      }
      let policy = this.#policies.get(meta);
      if (policy === undefined) this.#policies.set(meta, policy = policyFrom(meta, request));
      return { policy, body };
    };
    const failed = (error: unknown) => void this.#report(error, facts);
    try {
      const entry = this.store.get(key);
      if (!(entry instanceof Promise)) return judged(entry);
      return this.#bounded(entry, facts).then(judged).catch(failed);
    } catch (error) {
      return failed(error);
    }
  }

  /** Stores `body` under `key` with `policy` (a store's promise is waited for in the background). */
  #write(key: string, policy: CachePolicy, body: Uint8Array, facts: ExchangeFacts | undefined) {
    const ttl = keepFor(policy);
    if (ttl <= 0) return;
    const meta = policyMeta(policy);
    const entry: CacheEntry = { meta: { v: VERSION, ...meta }, body };
    this.#settle(() => this.store.set(key, entry, ttl), facts);
  }

  /** Runs a store's `operation`: its failure is told; its promise is waited for in the background. */
  #settle(operation: () => unknown, facts: ExchangeFacts | undefined): void {
    try {
      const done = operation();
      if (done instanceof Promise) this.#track(this.#bounded(done, facts), facts);
    } catch (error) {
      this.#report(error, facts);
    }
  }

  /**
   * Removes what a successful unsafe `request` made stale: its URL's, its
   * Location's, its Content-Location's; settles once the store has (or its
   * wait is over), a failure told.
   */
  async #invalidate(
    request: HttpRequest,
    response: HttpResponse,
    facts: ExchangeFacts | undefined,
  ): Promise<void> {
    try {
      const keys = [(await cacheRequest(request, facts, true)).getKey];
      for (const name of ["location", "content-location"]) {
        const location = response.header(name);
        if (location === undefined) continue;
        const key = await keyOfLocation(location, response.url, request, facts);
        if (key !== undefined) keys.push(key);
      }
      await Promise.all(keys.map(async (key) => {
        try {
          const done = this.store.delete(key);
          if (done instanceof Promise) await this.#bounded(done, facts);
        } catch (error) {
          this.#report(error, facts);
        }
      }));
    } catch (error) {
      this.#report(error, facts);
    }
  }

  /** Revalidates `stored` in the background, once per key at a time (stale-while-revalidate). */
  #revalidateInBackground(
    request: HttpRequest,
    keyed: CacheRequest,
    stored: Stored,
    headers: Record<string, string>,
    facts: ExchangeFacts | undefined,
  ): void {
    const key = keyed.key!;
    const conditional = conditionalHeaders(headers);
    if (facts === undefined || this.#running.has(key)) return;
    const sent = request.withHeaders(conditional ?? {});
    // Its store waits are bounded by storeTimeout, not by what the call that started it had left.
    const detached: ExchangeFacts = Object.create(facts, { remainingMs: { value: Infinity } });
    const revalidated = facts.background(sent).then((response) => {
      if (response.statusCode === 304) {
        const updated = stored.policy.revalidatedPolicy(keyed.message, notModified(response));
        this.#write(key, updated.policy, stored.body, detached);
      } else this.#store(response, keyed, detached, "");
    });
    this.#track(revalidated, detached, key);
  }

  /** Keeps `work` among the running until it settles; its failure is told. */
  #track(work: Promise<unknown>, facts: ExchangeFacts | undefined, key: unknown = work): void {
    const settled = work.catch((error) => this.#report(error, facts))
      .finally(() => this.#running.delete(key));
    this.#running.set(key, settled);
  }

  /** Tells `error` to `onError`, else warns the client's logger (or the console), masked. */
  #report(error: unknown, facts: ExchangeFacts | undefined): void {
    try {
      if (this.#onError !== undefined) return this.#onError(error);
    } catch {
      // onError failed too: the warning below tells the store's failure.
    }
    (facts?.logger ?? console).warn(`fetchline cache: ${describeError(error)}`);
  }

  /**
   * What the store's `answer` settles to, waited for at most
   * `storeTimeout`, and half of what the call's timeout leaves.
   */
  #bounded<T>(answer: Promise<T>, facts: ExchangeFacts | undefined): Promise<T> {
    const ms = Math.min(this.storeTimeout * 1000, (facts?.remainingMs ?? Infinity) / 2);
    return answerWithin(answer, ms, "The cache store");
  }
}

/** A TransformStream that passes the body on and, at its end within `limit` bytes, hands it whole to `store`. */
function keeper(
  limit: number,
  store: (body: Uint8Array) => void,
): TransformStream<Uint8Array, Uint8Array> {
  let chunks: Uint8Array[] | undefined = [];
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      if (chunks === undefined) return;
      size += chunk.byteLength;
      if (size > limit) chunks = undefined;
      else chunks.push(chunk.slice());
    },
    flush() {
      if (chunks === undefined) return;
      const body = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        body.set(chunk, at);
        at += chunk.byteLength;
      }
      store(body);
    },
  });
}

/** The stored response for `request`, with `headers` and a Cache-Status of `detail`. */
function served(
  request: HttpRequest,
  stored: Stored,
  headers: Record<string, string>,
  detail: string,
  since: number,
  facts: ExchangeFacts | undefined,
): HttpResponse {
  const url = appendParams(request.url, request.params);
  const init = {
    statusCode: stored.policy.status(),
    // The policy's headers are a new object each time: written in place.
    headers: Object.assign(headers, {
      "cache-status": appendStatus(headers["cache-status"], detail),
    }),
    elapsedMs: performance.now() - since,
    url,
    request,
  };
  // Each caller gets its own copy: the stored bytes are every later hit's.
  const body = stored.body;
  if (facts?.stream !== true) return receivedResponse({ ...init, content: body.slice() });
  let read: Promise<HttpResponse> | undefined;
  return streamedResponse(init, {
    take: () =>
      new ReadableStream({
        start(controller) {
          if (body.byteLength > 0) controller.enqueue(body.slice());
          controller.close();
        },
      }),
    read: () => read ??= Promise.resolve(receivedResponse({ ...init, content: body.slice() })),
    cancel: () => Promise.resolve(),
    maxResponseBytes: facts.maxResponseBytes,
    held: () => body,
  });
}

/** `response` with `detail` appended to its Cache-Status (and `body` in place of its streamed body). */
function withStatus(response: HttpResponse, detail: string, body?: StreamedBody): HttpResponse {
  const headers = {
    ...response.headers,
    "cache-status": appendStatus(response.headers["cache-status"], detail),
  };
  const init = { ...headOf(response), headers };
  const streamed = body ?? streamedBodyOf(response);
  if (streamed === undefined) return receivedResponse({ ...init, content: response.content });
  return carryBody(
    response,
    streamedResponse(init, {
      take: () => streamed.take(),
      read: async () => {
        const read = await streamed.read();
        return receivedResponse({ ...init, content: read.content });
      },
      cancel: () => streamed.cancel(),
      maxResponseBytes: streamed.maxResponseBytes,
      held: () => streamed.held?.(),
    }),
  );
}

/** A Cache-Status value with this cache's member appended (RFC 9211: the closest to the client last). */
function appendStatus(existing: string | undefined, detail: string): string {
  const member = `fetchline; ${detail}`;
  return existing === undefined || existing === "" ? member : `${existing}, ${member}`;
}

/** The 504 that answers `only-if-cached` when nothing stored may be served (RFC 9111 5.2.1.7). */
function gatewayTimeout(request: HttpRequest, since: number): HttpResponse {
  return receivedResponse({
    statusCode: 504,
    headers: { "cache-status": "fetchline; detail=only-if-cached" },
    content: new Uint8Array(0),
    elapsedMs: performance.now() - since,
    url: appendParams(request.url, request.params),
    request,
  });
}

/** The validators of a revalidation's request headers, or `undefined` when it has none. */
function conditionalHeaders(
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  const tag = headers?.["if-none-match"];
  const since = headers?.["if-modified-since"];
  if (tag === undefined && since === undefined) return undefined;
  return {
    ...(tag === undefined ? {} : { "If-None-Match": tag }),
    ...(since === undefined ? {} : { "If-Modified-Since": since }),
  };
}

/** True when the stored headers of `a` and `b` are the same but for Date and Age. */
function sameHeaders(a: CachePolicy, b: CachePolicy): boolean {
  const [left, right] = [a._resHeaders, b._resHeaders];
  let names = 0;
  for (const name in left) {
    if (name === "date" || name === "age") continue;
    if (left[name] !== right[name]) return false;
    names++;
  }
  for (const name in right) if (name !== "date" && name !== "age") names--;
  return names === 0;
}

/**
 * How long the response of `policy` is of use, in ms: while it may be
 * served, and a day more when it has a validator (an ETag or a
 * Last-Modified), to be revalidated by a 304. 0 for one of no use (stale on
 * arrival with no validator, `Vary: *`): it is not stored.
 */
function keepFor(policy: CachePolicy): number {
  const headers = policy._resHeaders;
  const validated = headers.etag !== undefined || headers["last-modified"] !== undefined;
  return policy.timeToLive() + (validated ? KEEP_VALIDATED_MS : 0);
}

/** `response` as the policy reads it: no Set-Cookie (never stored), no Cache-Status. */
function messageOf(response: HttpResponse): PolicyMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (name !== "set-cookie" && name !== "cache-status") headers[name] = value;
  }
  return { status: response.statusCode, headers };
}

/**
 * A 304 as the policy reads it, with `Age: 0` when it carries none: the
 * stored response's headers are updated with the 304's (RFC 9111 4.3.4),
 * and a stored `Age` is not the revalidated response's age (kept, it would
 * leave a response that came stale by its Age stale after each 304).
 */
function notModified(response: HttpResponse): PolicyMessage {
  const message = messageOf(response);
  message.headers.age ??= "0";
  return message;
}
