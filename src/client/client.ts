// The client: the verbs, `stream()`, `events()`, `extend()` and `close()`;
// the configuration of a derived client, the lifetime and pool a client
// shares with the clients derived from it, and what it sets up on its first
// request (the options its calls share, its token sender).

import {
  checkBaseUrl,
  configView,
  DEFAULT_CONFIG,
  frozenConfig,
  HttpClientConfigBuilder,
} from "../config/config.ts";
import type { HttpClientConfig } from "../config/config.ts";
import { retryPolicy } from "../config/config.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { TokenSender } from "../models/context.ts";
import { defineRedactedInspect, jsonView } from "../masking/views.ts";
import { tokenLoggers } from "../hooks/logging_hooks.ts";
import { MemoryCookieJar } from "../cookies/memory_jar.ts";
import { runtime } from "../transport/runtime.ts";
import { fetchTransport } from "../transport/fetch.ts";
import type { Pool, Transport } from "../transport/types.ts";
import { type CallCounter, CallsInFlight, executeCall } from "../send/attempts.ts";
import type { LifecycleOptions } from "../send/attempts.ts";
import { authScope } from "../send/auth.ts";
import { chainLinks } from "../send/exchange.ts";
import { abortSteps } from "../send/deadline.ts";
import { callLifecycle, checkCallOptions, prepareRequest, splitRequestOptions } from "./call.ts";
import type { CallOptions, RequestOptions } from "./call.ts";
import { EventStream, type EventStreamOptions } from "./event_stream.ts";

export type { CallOptions, RequestOptions };

/**
 * An HTTP client with a connection pool, created on the first request and
 * released by {@linkcode HttpClient.close} (or `using` / `await using`).
 * Every received status resolves to an {@linkcode HttpResponse}; failures
 * reject with {@linkcode HttpClientException} or a subclass.
 *
 * @example Send requests to a local server
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   async (request) => Response.json({ method: request.method, body: await request.text() }),
 * );
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl(`http://127.0.0.1:${server.addr.port}/api`)
 *   .withTimeout(5)
 *   .build();
 * await using client = new HttpClient(config);
 * const response = await client.post("/users", { jsonData: { name: "Ada" } });
 * assert.ok(response.isSuccess);
 * assert.deepEqual(response.json(), { method: "POST", body: '{"name": "Ada"}' });
 * ```
 */
export class HttpClient {
  /** The frozen configuration. */
  readonly config: HttpClientConfig;
  /** Its lifetime and pool, shared with the clients derived from it (ClientScope, below). */
  #scope: ClientScope;
  /** What every call shares; made on the first request. */
  #options: LifecycleOptions | undefined;

  /**
   * Creates a client; no connection is made until the first request.
   *
   * @param config A configuration from {@linkcode HttpClientConfigBuilder}.
   */
  constructor(config: HttpClientConfig = DEFAULT_CONFIG) {
    this.config = config;
    this.#scope = new ClientScope(config);
  }

  /** True once {@linkcode HttpClient.close} has been called, on this client or the one it was derived from. */
  get closed(): boolean {
    return this.#scope.closed;
  }

  /**
   * A new client whose configuration is this one's, changed by `configure` on a builder
   * started from it ({@linkcode HttpClientConfigBuilder.from}): headers merged, settings
   * replaced, hooks appended after this client's (the same hook, auth hook and token manager
   * objects). This client's auth hook stays with its origin unless the builder names another
   * (`withAuthOrigins`); an auth hook the builder sets goes to the origins it names, else to
   * its base URL's. The pool is shared unless `withPool`, `withProxy`, `withTls` or
   * `withFetch` changed; a jar made by `withCookies()` never is (one passed in is). Closing
   * the derived client never closes a pool it shares; closing this client closes the clients
   * derived from it, their pools, and fails their calls in flight.
   *
   * @param configure Changes the builder and returns it.
   * @returns The derived client; this client is unchanged.
   * @throws {HttpClientException} When this client is closed.
   * @throws {TypeError} When `configure` is not a function, or a `with*` call of it is given bad input.
   *
   * @example Derive a client for one tenant
   * ```ts
   * import { createClient } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * await using server = Deno.serve(
   *   { hostname: "127.0.0.1", port: 0, onListen() {} },
   *   (request) => Response.json({ tenant: request.headers.get("x-tenant") }),
   * );
   * await using api = createClient(`http://127.0.0.1:${server.addr.port}`);
   * const tenant = api.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }).withTimeout(5));
   * assert.deepEqual((await tenant.get("/me")).json(), { tenant: "a" });
   * assert.deepEqual((await api.get("/me")).json(), { tenant: null });
   * assert.equal(api.config.timeout, 30);
   * ```
   */
  extend(configure: ExtendConfig): HttpClient {
    if (this.closed) throw new HttpClientException("Client is closed: cannot extend it");
    const config = deriveConfig(this.config, configure);
    const derived = new HttpClient(config);
    derived.#scope = new ClientScope(config, this.#scope);
    return derived;
  }

  /**
   * Sends a request: resolves its URL against the base URL, merges the
   * default headers, follows redirects, reads the whole body.
   *
   * @param request The request.
   * @param callOptions A signal to abort the call; its `totalTimeout` and
   * `readTimeout`, overriding the client's.
   * @returns The response, for any received status.
   * @throws {HttpClientException} When the client is closed, the URL cannot
   * be resolved, or the exchange fails ({@linkcode TimeoutException},
   * {@linkcode ConnectionException}).
   */
  request(request: HttpRequest, callOptions: CallOptions = {}): Promise<HttpResponse> {
    if (!(request instanceof HttpRequest)) {
      return Promise.reject(new TypeError("Invalid request: expected an HttpRequest"));
    }
    let prepared: HttpRequest;
    let options: LifecycleOptions;
    try {
      checkCallOptions(callOptions);
      if (this.closed) {
        throw new HttpClientException(`Client is closed: ${describeCall(request)}`, { request });
      }
      prepared = prepareRequest(request, this.config);
      options = callLifecycle(this.#options ??= this.#lifecycleOptions(), callOptions);
    } catch (error) {
      return Promise.reject(error);
    }
    return executeCall(prepared, options);
  }

  /**
   * Sends a request and resolves at the response head, after redirects,
   * auth refreshes and retries, with the body unread: read it with
   * `read()`, `body`, `lines()` or `events()`, or `cancel()` it. The call's
   * `timeout` ends at the head; each wait for a chunk has `readTimeout`.
   *
   * @param method The HTTP method.
   * @param url A relative or absolute URL.
   * @param options As for {@linkcode HttpClient.get}, and a body.
   * @returns The response, its body unread (`isStreamed`).
   *
   * @example Read a response's lines as they arrive
   * ```ts
   * import { createClient } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * await using server = Deno.serve(
   *   { hostname: "127.0.0.1", port: 0, onListen() {} },
   *   () => new Response("one\ntwo\n"),
   * );
   * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
   * await using response = await client.stream("GET", "/lines");
   * assert.deepEqual(await Array.fromAsync(response.lines()), ["one", "two"]);
   * ```
   */
  stream(method: string, url: string | URL, options: RequestOptions = {}): Promise<HttpResponse> {
    return this.#call(method, url, { ...options, stream: true });
  }

  /**
   * Reads the Server-Sent Events of `url` with this client's headers, auth
   * and hooks, reconnecting as EventSource does (see {@linkcode EventStream}).
   * GET only: a POST stream (an LLM's reply) must never be sent twice.
   *
   * @param url A relative or absolute URL.
   * @param options A GET's fields and call options, and the reconnection's.
   * @returns The reader; nothing is sent until its loop starts.
   * @throws {TypeError} For an unknown option or a bad value.
   */
  events(url: string | URL, options: EventStreamOptions = {}): EventStream {
    const send = (request: HttpRequest, call: CallOptions) => this.request(request, call);
    return new EventStream(url, options, { send, closed: this.#scope.signal });
  }

  /**
   * Sends a GET request.
   *
   * @param url A relative or absolute URL.
   * @param options Params, headers, timeout, signal.
   * @returns The response.
   */
  get(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("GET", url, options);
  }

  /**
   * Sends a POST request.
   *
   * @param url A relative or absolute URL.
   * @param options A body (`jsonData`, `data`, `files`) and the other fields.
   * @returns The response.
   */
  post(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("POST", url, options);
  }

  /** Sends a PUT request; `options` as for {@linkcode HttpClient.post}. */
  put(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("PUT", url, options);
  }

  /** Sends a PATCH request; `options` as for {@linkcode HttpClient.post}. */
  patch(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("PATCH", url, options);
  }

  /** Sends a DELETE request (a body is allowed); `options` as for {@linkcode HttpClient.post}. */
  delete(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("DELETE", url, options);
  }

  /** Sends a HEAD request; the response has an empty body. `options` as for {@linkcode HttpClient.get}. */
  head(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("HEAD", url, options);
  }

  /** Sends an OPTIONS request; `options` as for {@linkcode HttpClient.get}. */
  options(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("OPTIONS", url, options);
  }

  /**
   * Releases the connection pool, and closes every client derived from
   * this one ({@linkcode HttpClient.extend}); a pool this client shares with
   * the client it was derived from stays open. Requests in flight fail with
   * {@linkcode HttpClientException}; later calls fail with "Client is closed".
   * Calling it again does nothing.
   */
  close(): void {
    this.#scope.close();
  }

  /**
   * The masked view `console.log()` shows, for `JSON.stringify()`: the
   * configuration with the base URL's user-info, credential-like default
   * headers, the proxy's password and the `withTls` key masked, and whether
   * the client is closed.
   *
   * @returns The view; no credential is in it.
   *
   * @example Serialize a client with a proxy for a log
   * ```ts
   * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const config = new HttpClientConfigBuilder()
   *   .withBaseUrl("http://ada:s3cret@127.0.0.1/")
   *   .withProxy("http://ada:pr0xy@127.0.0.1:3128")
   *   .build();
   * using client = new HttpClient(config);
   * const shown = JSON.parse(JSON.stringify(client));
   * assert.equal(shown.config.baseUrl, "http://ada:***@127.0.0.1/");
   * assert.equal(shown.config.proxy.url, "http://ada:***@127.0.0.1:3128");
   * ```
   */
  toJSON(): Record<string, unknown> {
    return jsonView(this);
  }

  /** Closes the client at the end of a `using` block. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** Lets requests in flight finish (derived clients' too), then closes, at the end of an `await using` block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#scope.calls.idle();
    this.close();
  }

  #call(method: string, url: string | URL, options: RequestOptions = {}): Promise<HttpResponse> {
    try {
      const [init, call] = splitRequestOptions(options);
      return this.request(new HttpRequest(method, url, init), call);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The options every call shares, with the transport: the pool is made here, on the first request. */
  #lifecycleOptions(): LifecycleOptions {
    const { signal, calls } = this.#scope;
    return clientSetup(this.config, this.#scope, signal, calls, this.#scope.transport());
  }
}

defineRedactedInspect(HttpClient, (client) => ({
  config: configView(client.config),
  closed: client.closed,
}));

/**
 * Creates a client with the default configuration and an optional base URL.
 *
 * @param baseUrl The base URL relative request URLs are resolved against.
 * @returns The client.
 *
 * @example Create a client and close it with `using`
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * using client = createClient("http://127.0.0.1:8080/api/");
 * assert.equal(client.config.baseUrl, "http://127.0.0.1:8080/api/");
 * assert.equal(client.config.timeout, 30);
 * ```
 */
export function createClient(baseUrl?: string | URL): HttpClient {
  // As `new HttpClientConfigBuilder().withBaseUrl(baseUrl).build()` does, without the
  // builder: a bundle that only creates clients leaves the builder's methods out.
  const config = baseUrl === undefined
    ? DEFAULT_CONFIG
    : { ...DEFAULT_CONFIG, baseUrl: checkBaseUrl(baseUrl) };
  return new HttpClient(frozenConfig(config));
}

// The configuration of a derived client (`HttpClient.extend()`): the
// parent's, changed by the caller's function of a builder started from it.

/** The function `HttpClient.extend()` takes: it changes the builder and returns it. */
export type ExtendConfig = (
  builder: HttpClientConfigBuilder,
) => HttpClientConfigBuilder | void;

/**
 * Builds the configuration `configure` makes of a builder started from
 * `config` ({@linkcode HttpClientConfigBuilder.from}).
 *
 * @throws {TypeError} When `configure` is not a function or returns neither
 * a builder nor nothing; what a `with*` call of it throws passes through.
 */
function deriveConfig(config: HttpClientConfig, configure: ExtendConfig): HttpClientConfig {
  if (typeof configure !== "function") {
    throw new TypeError("Invalid extend: expected a function of the config builder");
  }
  const builder = HttpClientConfigBuilder.from(config);
  const returned: unknown = configure(builder);
  if (returned === undefined) return authScoped(config, builder.build());
  if (returned instanceof HttpClientConfigBuilder) return authScoped(config, returned.build());
  throw new TypeError("Invalid extend: expected the function to return the config builder");
}

/** The derived configuration with the auth scope its auth hook has: the parent's, or a new one. */
function authScoped(parent: HttpClientConfig, derived: HttpClientConfig): HttpClientConfig {
  return derived.authHook === parent.authHook
    ? keepAuthOrigin(parent, derived)
    : newAuthScope(parent, derived);
}

/**
 * An auth hook set by the derived builder (`withAuthHook`, `withTokenAuth`)
 * starts a new auth scope: the origins that builder names with
 * `withAuthOrigins`, else the defaults (the base URL's origin). The
 * parent's list was given for the parent's credentials, never for these.
 */
function newAuthScope(parent: HttpClientConfig, derived: HttpClientConfig): HttpClientConfig {
  // The builder's withAuthOrigins() makes a new set: the same one is the parent's.
  if (derived.authOrigins === undefined || derived.authOrigins !== parent.authOrigins) {
    return derived;
  }
  const { authOrigins: _parents, ...rest } = derived;
  return frozenConfig(rest);
}

/**
 * The parent's auth hook stays with the parent's origin. Its credentials
 * were given for the parent's base URL; a derived client pointed at another
 * origin must not send them there unless its caller says so, with
 * `withAuthOrigins` or an auth hook of its own. So when the derived client
 * keeps the parent's hook and its default origins (those of the base URL),
 * and its base URL moves to another origin, the parent's origin is pinned.
 */
function keepAuthOrigin(parent: HttpClientConfig, derived: HttpClientConfig): HttpClientConfig {
  if (derived.authHook === undefined) return derived;
  if (derived.authOrigins !== parent.authOrigins || parent.authOrigins !== undefined) {
    return derived;
  }
  // Without a base URL the parent's hook follows each call's own origin: nothing to pin.
  if (parent.baseUrl === undefined) return derived;
  const origin = new URL(parent.baseUrl).origin;
  if (derived.baseUrl !== undefined && new URL(derived.baseUrl).origin === origin) return derived;
  return HttpClientConfigBuilder.from(derived).withAuthOrigins([origin]).build();
}

// What a client shares with the clients derived from it (`extend()`), and
// who closes what. A derived client sends through its parent's pool when it
// kept the parent's pool settings (the same `withPool`, `withProxy`,
// `withTls` and `withFetch` objects); with any of them changed it has a
// pool of its own. A client's close reaches every client derived from it,
// as a scope does: their calls fail as its own do, and the pools they own
// are released. A derived client's close never closes the pool it shares.
//
// The parent holds no strong reference to a derived client (a client
// derived for one call, sharing the pool, and never closed costs nothing
// once dropped; one with a pool of its own keeps that pool open until it or
// the parent closes, as any unclosed client keeps its pool): the
// derived client's `closed` signal follows the parent's through
// `AbortSignal.any()`, a step knows its client's scope and its parents, and
// only a pool, once made, listens for its owner's close.

/** The pool settings a client sends with; a derived client shares the pool only when all are the same objects. */
type PoolSettings = Pick<HttpClientConfig, "pool" | "proxy" | "tls" | "fetch">;

/** The lifetime of one client, and its place among the clients derived from one another. */
class ClientScope {
  /** The scope of the client this one's was derived from; its close ends this one too. */
  readonly parent: ClientScope | undefined;
  /** Aborted when this client, or one it was derived from, is closed. */
  readonly signal: AbortSignal;
  /** This client's calls in flight, counted for its parents too (their `await using` waits for them). */
  readonly calls: CallsInFlight;
  readonly #closer = new AbortController();
  readonly #pool: SharedPool;

  /** A client's scope: a new pool, or its parent's when `parent` is given and the settings match. */
  constructor(settings: PoolSettings, parent?: ClientScope) {
    this.parent = parent;
    if (parent === undefined) {
      this.signal = this.#closer.signal;
      this.calls = new CallsInFlight();
    } else {
      this.signal = AbortSignal.any([this.#closer.signal, parent.signal]);
      this.calls = new NestedCalls(parent.calls);
    }
    this.#pool = parent !== undefined && parent.#pool.fits(settings)
      ? parent.#pool
      : new SharedPool(settings, this.signal);
  }

  /** True once this client, or one it was derived from, is closed. */
  get closed(): boolean {
    return this.signal.aborted;
  }

  /** True when this scope sends through its parent's pool. */
  get sharesPool(): boolean {
    return this.parent !== undefined && this.parent.#pool === this.#pool;
  }

  /** The transport of this client's pool, made on first use. */
  transport(): Transport {
    return this.#pool.transport();
  }

  /**
   * Closes this client and every client derived from it: their steps in
   * flight are aborted, and the pools they own released (a pool listens for
   * its owner's `signal`). A shared pool stays open for its owner.
   */
  close(): void {
    if (this.#closer.signal.aborted) return;
    this.#closer.abort(new DOMException("Client is closed", "AbortError"));
    abortSteps(this);
  }
}

/** A derived client's count of calls in flight, which its parent's count includes. */
class NestedCalls extends CallsInFlight {
  readonly #parent: CallCounter;

  constructor(parent: CallCounter) {
    super();
    this.#parent = parent;
  }

  override started(): void {
    super.started();
    this.#parent.started();
  }

  override ended(): void {
    super.ended();
    this.#parent.ended();
  }
}

/**
 * A pool and the settings it was made with, made on the first request of
 * any client that sends through it, and released when its owner's `closed`
 * signal aborts (the owner's close, or the close of a client the owner was
 * derived from). A custom fetch (`withFetch`) has no pool to release.
 */
class SharedPool {
  readonly #settings: PoolSettings;
  readonly #closed: AbortSignal;
  #transport: Transport | undefined;

  constructor(settings: PoolSettings, closed: AbortSignal) {
    this.#settings = settings;
    this.#closed = closed;
  }

  /** True when a client with these settings may send through this pool: the same objects, or none of each. */
  fits(settings: PoolSettings): boolean {
    const own = this.#settings;
    return settings.pool === own.pool && settings.proxy === own.proxy &&
      settings.tls === own.tls && settings.fetch === own.fetch;
  }

  transport(): Transport {
    return this.#transport ??= this.#create();
  }

  #create(): Transport {
    const { fetch, pool: options, proxy, tls } = this.#settings;
    if (fetch !== undefined) return fetchTransport(fetch);
    const pool: Pool = runtime.createPool(options, proxy === undefined ? { tls } : { proxy, tls });
    this.#closed.addEventListener("abort", () => pool.close(), { once: true });
    return pool.transport;
  }
}

// What a client sets up once, on its first request: the options every call
// of it shares, over the transport its scope gives (a pool made with the
// client's pool options, proxy and TLS settings, maybe shared with the
// client it was derived from, or its custom fetch), and its middleware
// chain, the cookie jar first.

/**
 * The options every call of a client shares. A jar of the client's own
 * (`withCookies()`) is made here, so a derived client starts with an empty
 * one and never shares a session by accident.
 */
function clientSetup(
  config: HttpClientConfig,
  owner: object,
  closed: AbortSignal,
  calls: CallsInFlight,
  transport: Transport,
): LifecycleOptions {
  const cookies = config.cookies === true ? new MemoryCookieJar() : config.cookies;
  const options: LifecycleOptions = {
    transport,
    timeout: config.timeout,
    readTimeout: config.readTimeout,
    totalTimeout: config.totalTimeout,
    maxRedirects: config.maxRedirects,
    maxResponseBytes: config.maxResponseBytes,
    closed,
    owner,
    requestHooks: config.requestHooks,
    responseHooks: config.responseHooks,
    errorHooks: config.errorHooks,
    retry: config.retry,
    authHook: config.authHook,
    middleware: chainLinks(config.middleware, cookies),
    cookies,
    ...authScope(config),
    calls,
  };
  return config.authHook === undefined
    ? options
    : { ...options, tokenSender: tokenSender(options, config) };
}

// The seam between an auth hook's token fetch and the client it runs for:
// the token request is one more call of the client, through the same
// lifecycle, without the parts that belong to the user's calls.

/**
 * Sends an auth hook's token requests (clientCredentialsStep's) through the
 * client's pool (its proxy and TLS settings) and its logging hooks, which
 * log it as any request, secrets masked. The client's other hooks do not
 * run on it: they are written for the calls of the API (a hook that signs
 * or rewrites requests must not touch a token request), and neither do its
 * auth hook, default headers or retries. Nor its cookie jar: the grant
 * authenticates the application, not a user's session, so the session's
 * cookies stay away from the token endpoint, and a cookie it sets stays out
 * of the session (as with a TokenManager used on its own, and one shared by
 * clients of different users). The client's close aborts it; a
 * call's own signal does not, as the token may serve several calls (the
 * call stops waiting for it instead). The sender carries the client's
 * `closed` signal, so the calls of other clients sharing its token run
 * fetch anew when it closes.
 */
function tokenSender(options: LifecycleOptions, config: HttpClientConfig): TokenSender {
  const retry = retryPolicy({ maxRetries: 0 }, config.retry);
  const tokenOptions: LifecycleOptions = {
    ...options,
    requestHooks: options.requestHooks.filter((hook) => tokenLoggers.has(hook)),
    responseHooks: options.responseHooks.filter((hook) => tokenLoggers.has(hook)),
    errorHooks: options.errorHooks.filter((hook) => tokenLoggers.has(hook)),
    authHook: undefined,
    middleware: [],
    cookies: undefined,
    retry,
    calls: undefined,
  };
  const prepare = { headers: {}, retry };
  const send = (request: HttpRequest) => {
    try {
      return executeCall(prepareRequest(request, prepare), tokenOptions);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return Object.assign(send, { closed: options.closed });
}
