// The HTTP cache (API.md "Caching"): a middleware that answers from a store
// what RFC 9111 lets a private cache answer (policy.ts judges, key.ts keys)
// and tells what it did in a Cache-Status header (RFC 9211).

import type { BodyObserver, Exchange, MiddlewareFunction, Next } from "../hooks/hook_interfaces.ts";
import { credentialsOf, type HttpRequest } from "../models/request.ts";
import { isCredentialHeader } from "../masking/credentials.ts";
import {
  type HttpResponse,
  receivedResponse,
  streamedBodyOf,
  streamedResponse,
} from "../models/response.ts";
import { checkKnownKeys, describeType, keysOf, validatePositive } from "../models/_validate.ts";
import { type Duration, durationSeconds } from "../models/duration.ts";
import { answerWithin } from "../waits.ts";
import { describeError, maskSentIn, sentSecrets } from "../masking/views.ts";
import { appendParams } from "../http/url.ts";
import { headerValue } from "../http/headers.ts";
import type { CacheEntry, CacheStore } from "./store.ts";
import { type CacheRequest, cacheRequest, type Caller, keyOfLocation } from "./key.ts";
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
   * The longest wait for the store, in seconds or with its unit (`"500ms"`;
   * default 1); never longer than half of what the call's timeout leaves.
   * A store that answers later is a miss.
   */
  storeTimeout?: number | Duration | undefined;
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
    this.storeTimeout = validatePositive(
      "storeTimeout",
      durationSeconds("storeTimeout", options.storeTimeout ?? 1, "a positive number"),
      false,
    );
    const { onError } = options;
    if (onError !== undefined && typeof onError !== "function") {
      throw new TypeError(`Invalid onError: expected a function, got ${describeType(onError)}`);
    }
    this.#onError = onError;
  }

  /** The middleware: `withMiddleware(cache)` calls it for each exchange. */
  readonly handle: MiddlewareFunction = (request, next, exchange) =>
    this.#handle(request, next, exchange);

  /** Resolves once no background revalidation or store write of this cache runs. */
  async whenIdle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  async #handle(
    request: HttpRequest,
    next: Next,
    exchange: Exchange,
  ): Promise<HttpResponse> {
    const since = performance.now();
    const method = request.method;
    const directives = parseCacheControl(headerValue(request.headers, "cache-control"));
    if (!STORED_METHODS.has(method)) {
      const response = await next(request);
      // Waited for: a GET sent once this call returns must not be served what it replaced.
      if (!SAFE_METHODS.has(method) && response.statusCode < 400) {
        await this.#invalidate(request, response, exchange);
      }
      return withStatus(response, "fwd=bypass");
    }
    if (
      directives["no-store"] !== undefined || headerValue(request.headers, "range") !== undefined
    ) {
      return withStatus(await next(request), "fwd=bypass");
    }
    const keying = cacheRequest(request, callerOf(request, exchange));
    const keyed = keying instanceof Promise ? await keying : keying;
    const { key } = keyed;
    if (key === undefined) return withStatus(await next(request), "fwd=bypass");
    const read = this.#read(key, keyed.message, exchange);
    let stored = read instanceof Promise ? await read : read;
    // A body past this client's limit is not served from the cache: the exchange refuses it.
    if (
      stored !== undefined && !exchange.streamed &&
      stored.body.byteLength > exchange.maxResponseBytes
    ) stored = undefined;
    const onlyIfCached = directives["only-if-cached"] !== undefined;
    if (stored === undefined) {
      if (onlyIfCached) return gatewayTimeout(request, since);
      return this.#forward(request, next, keyed, exchange, "miss");
    }
    // A stored answer is the client's network policy's to allow, as the
    // network is, whoever stored it: a refusal fails the call.
    const checked = exchange.checkDestination(appendParams(request.url, request.params));
    if (checked !== undefined) await checked;
    const { policy } = stored;
    const evaluation = evaluate(policy, keyed.message);
    const { revalidation } = evaluation;
    if (evaluation.response !== undefined) {
      if (revalidation !== undefined) {
        this.#revalidateInBackground(request, keyed, stored, revalidation.headers, exchange);
      }
      const detail = revalidation === undefined ? "hit" : "hit; detail=stale-while-revalidate";
      return served(request, stored, evaluation.response.headers, detail, since, exchange);
    }
    if (onlyIfCached) return gatewayTimeout(request, since);
    if (!policy._requestMatches(keyed.message, false)) {
      return this.#forward(request, next, keyed, exchange, "vary-miss");
    }
    const conditional = conditionalHeaders(revalidation?.headers);
    const fwd = policy.stale() ? "stale" : "request";
    let response: HttpResponse;
    try {
      response = await next(conditional === undefined ? request : request.withHeaders(conditional));
    } catch (error) {
      if (!staleIfError(policy, directives)) throw error;
      this.#report(error, exchange);
      const headers = policy.responseHeaders();
      return served(request, stored, headers, `fwd=${fwd}; detail=stale-if-error`, since, exchange);
    }
    if (response.statusCode >= 500 && staleIfError(policy, directives)) {
      await response.cancel();
      const detail = `fwd=${fwd}; fwd-status=${response.statusCode}; detail=stale-if-error`;
      return served(request, stored, policy.responseHeaders(), detail, since, exchange);
    }
    if (response.statusCode !== 304) {
      // A refused credential ends stale serving: what was stored for it is removed.
      if (refused(response)) this.#remove(key, exchange);
      const detail = `fwd=${fwd}; fwd-status=${response.statusCode}`;
      return this.#store(response, request, keyed, exchange, detail);
    }
    await response.cancel();
    const { policy: updated, matches } = policy.revalidatedPolicy(
      keyed.message,
      notModified(response, secretsOf(request, keyed)),
    );
    // A 304 whose validator selects no stored response cannot stand for it (RFC 9111 4.3.4).
    if (!matches) return this.#forward(request, next, keyed, exchange, fwd);
    // A 304 with no-store removes the entry (RFC 9111 4.3.4, 5.2.2.5); else it is
    // written unless it renews nothing a later request reads: no freshness, the same headers.
    if (!updated.storable()) this.#remove(key, exchange);
    else if (updated.maxAge() > 0 || !sameHeaders(policy, updated)) {
      this.#write(key, updated, stored.body, exchange);
    }
    const detail = `fwd=${fwd}; fwd-status=304`;
    return served(request, stored, updated.responseHeaders(), detail, since, exchange);
  }

  /** Sends `request` on (a miss) and stores what may be stored of its response. */
  async #forward(
    request: HttpRequest,
    next: Next,
    keyed: CacheRequest,
    exchange: Exchange,
    fwd: string,
  ): Promise<HttpResponse> {
    return this.#store(await next(request), request, keyed, exchange, `fwd=${fwd}`);
  }

  /**
   * Stores `response` when its policy allows: a buffered body at once, a
   * streamed one when it has been read to its end within `maxEntryBytes`.
   */
  #store(
    response: HttpResponse,
    request: HttpRequest,
    keyed: CacheRequest,
    exchange: Exchange,
    status: string,
  ): HttpResponse {
    const policy = policyOf(keyed.message, messageOf(response, secretsOf(request, keyed)));
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
      this.#write(key, policy, response.content.slice(), exchange);
      return withStatus(response, `${status}; stored`);
    }
    const store = (content: Uint8Array) => this.#write(key, policy, content, exchange);
    // Kept as the caller reads it, whole at its end within maxEntryBytes: never read ahead.
    const kept = exchange.observe(response, keeper(this.maxEntryBytes, store));
    return withStatus(kept, `${status}; stored`);
  }

  /**
   * Reads and judges the entry under `key` (at once from a store that
   * answers at once); a failure or garbage is told and is a miss.
   */
  #read(
    key: string,
    request: PolicyMessage,
    exchange: Exchange,
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
    const failed = (error: unknown) => void this.#report(error, exchange);
    try {
      const entry = this.store.get(key);
      if (!(entry instanceof Promise)) return judged(entry);
      return this.#bounded(entry, exchange).then(judged).catch(failed);
    } catch (error) {
      return failed(error);
    }
  }

  /** Stores `body` under `key` with `policy` (a store's promise is waited for in the background). */
  #write(key: string, policy: CachePolicy, body: Uint8Array, exchange: Exchange) {
    const ttl = keepFor(policy);
    if (ttl <= 0) return;
    const meta = policyMeta(policy);
    const entry: CacheEntry = { meta: { v: VERSION, ...meta }, body };
    this.#settle(() => this.store.set(key, entry, ttl), exchange);
  }

  /** Removes the entry under `key` (its promise waited for in the background). */
  #remove(key: string, exchange: Exchange): void {
    this.#settle(() => this.store.delete(key), exchange);
  }

  /** Runs a store's `operation`: its failure is told; its promise is waited for in the background. */
  #settle(operation: () => unknown, exchange: Exchange): void {
    try {
      const done = operation();
      if (done instanceof Promise) this.#track(this.#bounded(done, exchange), exchange);
    } catch (error) {
      this.#report(error, exchange);
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
    exchange: Exchange,
  ): Promise<void> {
    try {
      const keys = [(await cacheRequest(request, callerOf(request, exchange), true)).getKey];
      for (const name of ["location", "content-location"]) {
        const location = response.header(name);
        if (location === undefined) continue;
        const key = await keyOfLocation(
          location,
          response.url,
          request,
          callerOf(request, exchange),
        );
        if (key !== undefined) keys.push(key);
      }
      await Promise.all(keys.map(async (key) => {
        try {
          const done = this.store.delete(key);
          if (done instanceof Promise) await this.#bounded(done, exchange);
        } catch (error) {
          this.#report(error, exchange);
        }
      }));
    } catch (error) {
      this.#report(error, exchange);
    }
  }

  /** Revalidates `stored` in the background, once per key at a time (stale-while-revalidate). */
  #revalidateInBackground(
    request: HttpRequest,
    keyed: CacheRequest,
    stored: Stored,
    headers: Record<string, string>,
    exchange: Exchange,
  ): void {
    const key = keyed.key!;
    const conditional = conditionalHeaders(headers);
    if (this.#running.has(key)) return;
    const sent = request.withHeaders(conditional ?? {});
    // Its store waits are bounded by storeTimeout, not by what the call that started it had left.
    const detached: Exchange = Object.create(exchange, { remainingMs: { value: () => Infinity } });
    const revalidated = exchange.background(sent).then((response) => {
      if (response.statusCode === 304) {
        const secrets = secretsOf(request, keyed);
        const updated = stored.policy.revalidatedPolicy(
          keyed.message,
          notModified(response, secrets),
        ).policy;
        if (!updated.storable()) this.#remove(key, detached);
        else this.#write(key, updated, stored.body, detached);
      } else {
        if (refused(response)) this.#remove(key, detached);
        this.#store(response, sent, keyed, detached, "");
      }
    });
    this.#track(revalidated, detached, key);
  }

  /**
   * Keeps `work` among the running until it settles, and hands it to the
   * client, whose close waits for it at most `storeTimeout`; its failure is
   * told.
   */
  #track(work: Promise<unknown>, exchange: Exchange, key: unknown = work): void {
    const settled = work.catch((error) => this.#report(error, exchange))
      .finally(() => this.#running.delete(key));
    this.#running.set(key, settled);
    exchange.waitUntil(settled, this.storeTimeout * 1000);
  }

  /** Tells `error` to `onError`, else warns the client's logger (or the console), masked. */
  #report(error: unknown, exchange: Exchange): void {
    try {
      if (this.#onError !== undefined) return this.#onError(error);
    } catch {
      // onError failed too: the warning below tells the store's failure.
    }
    (exchange.logger ?? console).warn(`fetchline cache: ${describeError(error)}`);
  }

  /**
   * What the store's `answer` settles to, waited for at most
   * `storeTimeout`, and half of what the call's timeout leaves.
   */
  #bounded<T>(answer: Promise<T>, exchange: Exchange): Promise<T> {
    const ms = Math.min(this.storeTimeout * 1000, exchange.remainingMs() / 2);
    return answerWithin(answer, ms, "The cache store");
  }
}

/** An observer of a body that, at its end within `limit` bytes, hands it whole to `store`. */
function keeper(limit: number, store: (body: Uint8Array) => void): BodyObserver {
  let chunks: Uint8Array[] | undefined = [];
  let size = 0;
  return {
    onChunk(chunk) {
      if (chunks === undefined) return;
      size += chunk.byteLength;
      if (size > limit) chunks = undefined;
      else chunks.push(chunk.slice());
    },
    onEnd() {
      if (chunks === undefined) return;
      const body = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        body.set(chunk, at);
        at += chunk.byteLength;
      }
      chunks = undefined;
      store(body);
    },
  };
}

/** The stored response for `request`, with `headers` and a Cache-Status of `detail`. */
function served(
  request: HttpRequest,
  stored: Stored,
  headers: Record<string, string>,
  detail: string,
  since: number,
  exchange: Exchange,
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
  if (!exchange.streamed) return receivedResponse({ ...init, content: body.slice() });
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
    maxResponseBytes: exchange.maxResponseBytes,
    held: () => body,
  });
}

/** `response` with `detail` appended to its Cache-Status. */
function withStatus(response: HttpResponse, detail: string): HttpResponse {
  return response.withHeaders({
    "cache-status": appendStatus(response.headers["cache-status"], detail),
  });
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

/**
 * `response` as the policy reads it and a store keeps it: no credential
 * header (`Set-Cookie`, a login's `X-Subject-Token`: {@linkcode isCredentialHeader}
 * with the call's names), never stored; no Cache-Status; and each of
 * `secrets` (what the call sent: a header that quotes it back) masked.
 */
function messageOf(response: HttpResponse, secrets: readonly string[]): PolicyMessage {
  const headers: Record<string, string> = {};
  const names = credentialsOf(response.request);
  for (const [name, value] of Object.entries(response.headers)) {
    if (name === "cache-status" || isCredentialHeader(name, names)) continue;
    headers[name] = secrets.length === 0 ? value : maskSentIn(value, secrets);
  }
  return { status: response.statusCode, headers };
}

/**
 * The credentials `request` sent ({@linkcode sentSecrets}), to be masked
 * wherever a response quotes them. None, without looking again, for a
 * request its key found none in (`keyed`, the same headers, URL, params and
 * auth) and that has no form or JSON body: sentSecrets parses the URL and
 * walks every field, 16% of the cache's own CPU on a 304 in a --cpu-prof
 * of 4,000 revalidations (Deno 2.9.6).
 */
function secretsOf(request: HttpRequest, keyed?: CacheRequest): string[] {
  if (
    keyed?.credentialFree === true && request.data === undefined && request.jsonData === undefined
  ) {
    return [];
  }
  return sentSecrets(request, credentialsOf(request));
}

/** What the cache knows of the client sending `request`, for its key. */
function callerOf(request: HttpRequest, exchange: Exchange): Caller {
  return {
    credentialHeaders: credentialsOf(request),
    clientCertificate: exchange.clientCertificate,
  };
}

/** True for a 401 or a 403: the server refused the request's credential. */
function refused(response: HttpResponse): boolean {
  return response.statusCode === 401 || response.statusCode === 403;
}

/**
 * A 304 as the policy reads it, with `Age: 0` when it carries none: the
 * stored response's headers are updated with the 304's (RFC 9111 4.3.4),
 * and a stored `Age` is not the revalidated response's age (kept, it would
 * leave a response that came stale by its Age stale after each 304).
 */
function notModified(response: HttpResponse, secrets: readonly string[]): PolicyMessage {
  const message = messageOf(response, secrets);
  message.headers.age ??= "0";
  return message;
}
