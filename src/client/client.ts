// The client: the verbs, `stream()`, `extend()` and `close()`;
// the configuration of a derived client, the lifetime and pool a client
// shares with the clients derived from it, and what it sets up on its first
// request (the options its calls share, its token sender).

import {
  checkBaseUrl,
  configView,
  DEFAULT_CONFIG,
  frozenConfig,
  type HttpClientConfig,
  HttpClientConfigBuilder,
  retryPolicy,
} from "../config/config.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { type HttpMethod, HttpRequest } from "../models/request.ts";
import type { HttpResponse, StreamedHttpResponse } from "../models/response.ts";
import type { TokenSender } from "../models/context.ts";
import { defineRedactedInspect, jsonView } from "../masking/views.ts";
import { tokenLoggers } from "../hooks/logging_hooks.ts";
import { type CookieJarLike, cookieLink } from "../cookies/jar.ts";
import type { Middleware, MiddlewareFunction } from "../hooks/hook_interfaces.ts";
import { runtime } from "../transport/runtime.ts";
import { fetchTransport } from "../transport/fetch.ts";
import type { Pool, Transport } from "../transport/types.ts";
import { type CallCounter, executeCall } from "../send/attempts.ts";
import type { LifecycleOptions } from "../send/attempts.ts";
import { authScope } from "../send/auth.ts";
import type { BackgroundWork } from "../send/chain.ts";
import { abortSteps } from "../send/deadline.ts";
import { callLifecycle, checkCallOptions, prepareRequest, splitRequestOptions } from "./call.ts";
import type { CallOptions, RequestOptions } from "./call.ts";

export type { CallOptions, RequestOptions };

let closedSignal: (client: HttpClient) => AbortSignal;

/**
 * The signal aborted when `client`, or one it was derived from, is closed:
 * what a reader of another entry point (the reconnecting SSE reader) waits
 * on between its calls, where no call of the client would tell it.
 */
export function closedSignalOf(client: HttpClient): AbortSignal {
  return closedSignal(client);
}

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
  static {
    closedSignal = (client) => client.#scope.signal;
  }

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
   * Sends a request as {@linkcode HttpClient.stream} does: resolves at the
   * response head, the body unread.
   *
   * @param request The request.
   * @param callOptions `stream: true`, and the other call options.
   * @returns The response, its body unread.
   */
  request(
    request: HttpRequest,
    callOptions: CallOptions & { stream: true },
  ): Promise<StreamedHttpResponse>;
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
  request(request: HttpRequest, callOptions?: CallOptions): Promise<HttpResponse>;
  request(request: HttpRequest, callOptions: CallOptions = {}): Promise<HttpResponse> {
    if (!(request instanceof HttpRequest)) {
      return Promise.reject(new TypeError("Invalid request: expected an HttpRequest"));
    }
    try {
      checkCallOptions(callOptions);
      if (this.closed) {
        throw new HttpClientException(`Client is closed: ${describeCall(request)}`, { request });
      }
      const prepared = prepareRequest(request, this.config);
      return executeCall(
        prepared,
        callLifecycle(this.#options ??= this.#lifecycleOptions(), callOptions),
      );
    } catch (error) {
      return Promise.reject(error);
    }
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
   * @returns The response, its body unread (`isStreamed`), typed without
   * the members that need it whole: `content`, `text`, `json()` compile
   * only on what `read()` gives.
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
  stream(
    method: HttpMethod | Lowercase<HttpMethod>,
    url: string | URL,
    options: RequestOptions = {},
  ): Promise<StreamedHttpResponse> {
    return this.#call(method, url, { ...options, stream: true });
  }

  /** Sends a GET request to `url` (relative or absolute); `options`: params, headers, timeout, signal… */
  get(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("GET", url, options);
  }

  /** Sends a POST request; `options`: a body (`jsonData`, `data`, `files`, `body`) and a GET's. */
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
   * Sends a QUERY request (RFC 10008): a safe, idempotent request with a
   * body, for a search too large or too structured for the URL. `options`
   * as for {@linkcode HttpClient.post}; retried like a GET, and a 301 or
   * 302 keeps the method and body (a 303 turns it into a GET).
   *
   * @example Send a query in the body
   * ```ts
   * import { createClient } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * await using server = Deno.serve(
   *   { hostname: "127.0.0.1", port: 0, onListen() {} },
   *   async (request) => Response.json({ method: request.method, body: await request.text() }),
   * );
   * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
   * const response = await client.query("/users", { jsonData: { role: "admin" } });
   * assert.deepEqual(response.json(), { method: "QUERY", body: '{"role": "admin"}' });
   * ```
   */
  query(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("QUERY", url, options);
  }

  /**
   * Releases the connection pool, and closes every client derived from
   * this one ({@linkcode HttpClient.extend}); a pool this client shares with
   * the client it was derived from stays open. Requests in flight fail with
   * {@linkcode HttpClientException}; later calls fail with "Client is closed".
   * Calling it again does nothing.
   *
   * @returns A promise that resolves once the work its middleware left
   * running (a cache's pending store writes and background revalidations)
   * has settled, each at most the bound its middleware gave (a cache's
   * `storeTimeout`): await it before closing the store's own client (a
   * `Deno.Kv`, Redis). It never rejects.
   */
  close(): Promise<void> {
    this.#scope.close();
    return this.#scope.work.settled();
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

  /**
   * Closes the client at the end of a `using` block (which cannot wait for
   * its middleware's work: `await using` does).
   */
  [Symbol.dispose](): void {
    void this.close();
  }

  /**
   * Lets requests in flight finish (derived clients' too), then closes, at
   * the end of an `await using` block, and waits as {@linkcode HttpClient.close} does.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#scope.calls.idle();
    await this.close();
  }

  #call(method: string, url: string | URL, options: RequestOptions = {}): Promise<HttpResponse> {
    try {
      const [init, call] = splitRequestOptions(options);
      return this.request(new HttpRequest(method, url, init), call);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The options every call shares, made on the first request with the pool. A jar of the
   * client's own (`withCookies()`) is made here too, so a derived client starts with an
   * empty one and never shares a session by accident.
   */
  #lifecycleOptions(): LifecycleOptions {
    const { config } = this;
    const scope = this.#scope;
    const cookies = config.cookies === true ? defaultJar() : config.cookies;
    const options: LifecycleOptions = {
      transport: scope.transport(),
      timeout: config.timeout,
      readTimeout: config.readTimeout,
      totalTimeout: config.totalTimeout,
      maxRedirects: config.maxRedirects,
      maxResponseBytes: config.maxResponseBytes,
      closed: scope.signal,
      owner: scope,
      requestHooks: config.requestHooks,
      responseHooks: config.responseHooks,
      errorHooks: config.errorHooks,
      retry: config.retry,
      authHook: config.authHook,
      middleware: chainLinks(config.middleware, cookies, config.authHook),
      clientCertificate: config.tls?.cert,
      logger: [...config.errorHooks, ...config.responseHooks, ...config.requestHooks]
        .map((hook) => tokenLoggers.get(hook)).find((logger) => logger !== undefined),
      cookies,
      checkDestination: scope.checkDestination(),
      backgroundWork: scope.work,
      ...authScope(config),
      calls: scope.calls,
    };
    return config.authHook === undefined
      ? options
      : { ...options, tokenSender: tokenSender(options, config) };
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

/** The function `HttpClient.extend()` takes: it changes the builder and returns it. */
export type ExtendConfig = (
  builder: HttpClientConfigBuilder,
) => HttpClientConfigBuilder | void;

/**
 * The configuration of a client derived from one with `parent`: what `configure` makes of a
 * builder started from it ({@linkcode HttpClientConfigBuilder.from}), with its auth scope.
 *
 * @throws {TypeError} When `configure` is not a function or returns neither
 * a builder nor nothing; what a `with*` call of it throws passes through.
 */
function deriveConfig(parent: HttpClientConfig, configure: ExtendConfig): HttpClientConfig {
  if (typeof configure !== "function") {
    throw new TypeError("Invalid extend: expected a function of the config builder");
  }
  const builder = HttpClientConfigBuilder.from(parent);
  const returned: unknown = configure(builder);
  if (returned !== undefined && !(returned instanceof HttpClientConfigBuilder)) {
    throw new TypeError("Invalid extend: expected the function to return the config builder");
  }
  const derived = (returned ?? builder).build();
  if (derived.authHook !== parent.authHook) {
    // A new auth hook starts a new auth scope: the origins its builder names (withAuthOrigins()
    // makes a new set: the same one is the parent's), else its base URL's; never the parent's.
    if (derived.authOrigins === undefined || derived.authOrigins !== parent.authOrigins) {
      return derived;
    }
    const { authOrigins: _parents, ...rest } = derived;
    return frozenConfig(rest);
  }
  // The parent's hook, given for the parent's base URL, stays with its origin: a derived client
  // keeping it and the default origins, with a base URL on another origin, pins the parent's
  // (unless `withAuthOrigins` says otherwise). Without a base URL, it follows each call's origin.
  if (
    derived.authHook === undefined || derived.authOrigins !== undefined ||
    parent.authOrigins !== undefined || parent.baseUrl === undefined
  ) {
    return derived;
  }
  const origin = new URL(parent.baseUrl).origin;
  if (derived.baseUrl !== undefined && new URL(derived.baseUrl).origin === origin) return derived;
  return HttpClientConfigBuilder.from(derived).withAuthOrigins([origin]).build();
}

// What a client shares with the clients derived from it (`extend()`), and who
// closes what. The parent holds no strong reference to a derived client (one
// derived for a call and never closed costs nothing once dropped): its `closed`
// signal follows the parent's through `AbortSignal.any()`, a step knows its
// client's scope and its parents (abortSteps), and only a pool, once made,
// listens for its owner's close.

/** The pool settings a client sends with; a derived client shares the pool only when all are the same objects. */
type PoolSettings = Pick<
  HttpClientConfig,
  "pool" | "proxy" | "tls" | "fetch" | "networkPolicy" | "unixSocket"
>;
const POOL_SETTINGS = ["pool", "proxy", "tls", "fetch", "networkPolicy", "unixSocket"] as const;

/** A pool, made on the first request of a client sending through it. */
interface SharedPool {
  readonly settings: PoolSettings;
  transport(): Transport;
  /** The pool's `checkDestination`, when it has a network policy (the pool made first). */
  checkDestination(): Pool["checkDestination"];
}

/** The lifetime of one client, and its place among the clients derived from one another. */
class ClientScope {
  /** The scope of the client this one's was derived from; its close ends this one too. */
  readonly parent: ClientScope | undefined;
  /** Aborted when this client, or one it was derived from, is closed. */
  readonly signal: AbortSignal;
  /** This client's calls in flight, counted for its parents too (their `await using` waits for them). */
  readonly calls: CallsInFlight;
  /** The work its middleware left running (its derived clients' too), which its close waits for. */
  readonly work: RunningWork;
  readonly #closer = new AbortController();
  readonly #pool: SharedPool;

  /** A client's scope: a new pool, or its parent's when `parent` is given and the settings match. */
  constructor(settings: PoolSettings, parent?: ClientScope) {
    this.parent = parent;
    this.signal = parent === undefined
      ? this.#closer.signal
      : AbortSignal.any([this.#closer.signal, parent.signal]);
    this.calls = new CallsInFlight(parent?.calls);
    this.work = new RunningWork(parent?.work);
    const shared = parent === undefined ? undefined : parent.#pool;
    const fits = shared !== undefined &&
      POOL_SETTINGS.every((key) => settings[key] === shared.settings[key]);
    this.#pool = fits ? shared : newPool(settings, this.signal);
  }

  /** True once this client, or one it was derived from, is closed. */
  get closed(): boolean {
    return this.signal.aborted;
  }

  /** The transport of this client's pool, made on first use. */
  transport(): Transport {
    return this.#pool.transport();
  }

  /** The network policy's check of a URL answered without the network, once the pool is made. */
  checkDestination(): Pool["checkDestination"] {
    return this.#pool.checkDestination();
  }

  /** Closes this client and every client derived from it: their steps in flight are aborted. */
  close(): void {
    if (this.#closer.signal.aborted) return;
    this.#closer.abort(new DOMException("Client is closed", "AbortError"));
    abortSteps(this);
  }
}

/**
 * A pool with `settings`, released when its owner's `closed` signal aborts
 * (the owner's close, or the close of a client the owner was derived from).
 * A custom fetch (`withFetch`) has no pool to release.
 */
function newPool(settings: PoolSettings, closed: AbortSignal): SharedPool {
  let transport: Transport | undefined;
  let check: Pool["checkDestination"];
  const create = (): Transport => {
    const { fetch, pool: options, proxy, tls, networkPolicy: policy, unixSocket } = settings;
    if (fetch !== undefined) return fetchTransport(fetch);
    const pool: Pool = runtime.createPool(options, {
      tls,
      policy,
      unixSocket,
      // A policy's or a socket's connections are direct: no proxy of the environment's.
      ...(proxy === undefined && policy === undefined && unixSocket === undefined
        ? {}
        : { proxy: proxy ?? null }),
    });
    closed.addEventListener("abort", () => pool.close(), { once: true });
    check = pool.checkDestination;
    return pool.transport;
  };
  const made = () => transport ??= create();
  return { settings, transport: made, checkDestination: () => (made(), check) };
}

/**
 * Counts a client's calls in flight (a derived client's in its parent's
 * too), and tells when none is left.
 */
class CallsInFlight implements CallCounter {
  #count = 0;
  #waiters: (() => void)[] = [];

  /** @param parent The parent client's, which counts this one's calls too. */
  constructor(readonly parent?: CallsInFlight) {}

  started(): void {
    this.#count++;
    this.parent?.started();
  }

  ended(): void {
    if (--this.#count === 0 && this.#waiters.length > 0) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
    }
    this.parent?.ended();
  }

  /** Resolves once no call is in flight. */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/**
 * Sends an auth hook's token requests: one more call of the client, through its pool and its
 * logging hooks (secrets masked). Not its other hooks, written for the API's calls (one that
 * signs requests must not touch a token request), its auth hook, default headers or retries;
 * nor its cookie jar: the grant authenticates the application, not a user's session. The
 * client's close aborts it; a call's own signal does not, as the token may serve several
 * calls. The sender carries the client's `closed` signal, so the calls of other clients
 * sharing its token fetch anew when it closes.
 */
function tokenSender(options: LifecycleOptions, config: HttpClientConfig): TokenSender {
  const retry = retryPolicy({ maxRetries: 0 }, config.retry);
  const logging = (hook: object) => tokenLoggers.has(hook);
  const tokenOptions: LifecycleOptions = {
    ...options,
    requestHooks: options.requestHooks.filter(logging),
    responseHooks: options.responseHooks.filter(logging),
    errorHooks: options.errorHooks.filter(logging),
    authHook: undefined,
    middleware: [],
    cookies: undefined,
    retry,
    calls: undefined,
  };
  const prepare = { headers: {}, retry, jsonStyle: config.jsonStyle };
  const send = (request: HttpRequest) => {
    try {
      return executeCall(prepareRequest(request, prepare), tokenOptions);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return Object.assign(send, { closed: options.closed });
}

/**
 * The jar a client keeps when `withCookies()` is given none: memory_jar.ts's
 * `MemoryCookieJar`, loaded (with tough-cookie) by the first cookie the
 * client receives; until then it has no cookie to send.
 */
function defaultJar(): CookieJarLike {
  let loaded: Promise<CookieJarLike> | undefined;
  return {
    getCookieString: (url) =>
      loaded === undefined ? Promise.resolve("") : loaded.then((jar) => jar.getCookieString(url)),
    setCookie(cookie, url) {
      loaded ??= import("../cookies/memory_jar.ts").then(({ MemoryCookieJar }) =>
        new MemoryCookieJar()
      );
      return loaded.then((jar) => jar.setCookie(cookie, url));
    },
  };
}

/**
 * The chain's links for `middleware` (the builder checked each; an object's
 * `handle` bound to it), after the jar's when `jar`, and after the link the
 * auth hook needs on each exchange (its `middleware`: a DPoP key's proofs),
 * which then sits right after the jar, so every middleware sees the request
 * as sent.
 */
function chainLinks(
  middleware: readonly Middleware[],
  jar: CookieJarLike | undefined,
  authHook?: object,
): readonly MiddlewareFunction[] {
  const links = middleware.map((entry) =>
    typeof entry === "function" ? entry : entry.handle.bind(entry)
  );
  const hookLink = (authHook as { middleware?: { handle?: unknown } } | undefined)?.middleware;
  if (typeof hookLink?.handle === "function") {
    links.unshift(hookLink.handle.bind(hookLink) as MiddlewareFunction);
  }
  return jar === undefined ? links : [cookieLink(jar), ...links];
}

/**
 * The work a client's middleware links left running past their exchanges
 * (`Exchange.waitUntil`: a cache's store writes and revalidations),
 * which its close waits for, each at most its own bound. A derived
 * client's is counted in its parent's too, as its calls are.
 */
class RunningWork implements BackgroundWork {
  readonly #running = new Set<{ readonly work: Promise<unknown>; readonly maxWaitMs: number }>();

  /** @param parent The parent client's, which counts this one's work too. */
  constructor(readonly parent?: RunningWork) {}

  /** Keeps `work` until it settles; a close waits for it at most `maxWaitMs`. */
  keep(work: Promise<unknown>, maxWaitMs: number): void {
    this.parent?.keep(work, maxWaitMs);
    const entry = { work, maxWaitMs };
    this.#running.add(entry);
    const done = () => void this.#running.delete(entry);
    work.then(done, done);
  }

  /**
   * Resolves once the work running has settled, each at most its
   * `maxWaitMs` from now; work added meanwhile (a revalidation's write) is
   * waited for too, within its own bound from now. Never rejects.
   */
  settled(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return this.#settledSince(performance.now());
  }

  async #settledSince(since: number): Promise<void> {
    // Each round waits for every entry within its bound; a few rounds take in what was added.
    for (let round = 0; round < 16 && this.#running.size > 0; round++) {
      const waits: Promise<void>[] = [];
      for (const { work, maxWaitMs } of this.#running) {
        const left = since + maxWaitMs - performance.now();
        if (left <= 0) continue;
        waits.push(
          new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, left);
            const done = () => (clearTimeout(timer), resolve());
            work.then(done, done);
          }),
        );
      }
      if (waits.length === 0) return;
      await Promise.all(waits);
    }
  }
}
