import { validateCount, validateHeaders, validateNullableTimeout } from "../models/_validate.ts";
import { mergeHeaders } from "../http/headers.ts";
import type {
  ErrorHookInterface,
  RequestHookInterface,
  ResponseHookInterface,
} from "../hooks/hook_interfaces.ts";
import { retryPolicy } from "./retry_policy.ts";
import type { RetryOptions } from "./retry_policy.ts";
import type { AuthHookInterface } from "../auth/hooks.ts";
import type { FetchLike, PoolOptions } from "../transport/types.ts";
import { checkProxy, type ProxyOptions } from "./proxy.ts";
import { checkTls, type TlsOptions } from "./tls.ts";
import { frozenConfig } from "./frozen_config.ts";
import { DEFAULT_CONFIG } from "./defaults.ts";
import { checkCookieJar, type CookieJarLike } from "../cookies/cookie_jar.ts";
import type { HttpClientConfig } from "./http_client_config.ts";
import {
  loggingHooks,
  type LoggingOptions,
  tokenAuthHook,
  type TokenAuthOptions,
} from "./builder_options.ts";
import {
  checkAuthHook,
  checkAuthOrigins,
  checkBaseUrl,
  checkFetch,
  checkHook,
  checkMiddleware,
  checkPool,
} from "./config_checks.ts";
import type { Middleware } from "../hooks/hook_interfaces.ts";

export { DEFAULT_CONFIG };
export type { CookieJarLike, FetchLike, HttpClientConfig, PoolOptions, ProxyOptions, TlsOptions };

/**
 * Builds an {@linkcode HttpClientConfig}. Every `with*` call checks its input
 * (a `TypeError` or `RangeError` naming the field) and returns the builder;
 * `build()` returns the frozen configuration.
 *
 * @example Configure a client
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl("http://127.0.0.1:8080/api")
 *   .withTimeout(5)
 *   .withTotalTimeout(20)
 *   .withHeaders({ Accept: "application/json" })
 *   .withMaxRedirects(5)
 *   .build();
 * assert.ok(Object.isFrozen(config));
 * using client = new HttpClient(config);
 * assert.equal(client.config.timeout, 5);
 * assert.equal(client.config.totalTimeout, 20);
 * assert.equal(new HttpClientConfigBuilder().withTimeout(null).build().timeout, null);
 * ```
 */
export class HttpClientConfigBuilder {
  #config: { -readonly [K in keyof HttpClientConfig]: HttpClientConfig[K] } = { ...DEFAULT_CONFIG };

  /**
   * Starts a builder from a built configuration, every setting kept as the
   * same objects (hooks, auth hook, cookie jar, pool options): `with*` calls
   * then replace a setting, merge headers, or append hooks after the
   * configuration's own. `HttpClient.extend()` starts from this.
   *
   * @example Derive a configuration with one more header
   * ```ts
   * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const base = new HttpClientConfigBuilder().withBaseUrl("http://127.0.0.1:8080/").build();
   * const derived = HttpClientConfigBuilder.from(base).withHeaders({ "X-Tenant": "a" }).build();
   * assert.equal(derived.baseUrl, "http://127.0.0.1:8080/");
   * assert.deepEqual(derived.headers, { "X-Tenant": "a" });
   * assert.deepEqual(base.headers, {});
   * ```
   */
  static from(config: HttpClientConfig): HttpClientConfigBuilder {
    if (typeof config !== "object" || config === null) {
      throw new TypeError("Invalid config: expected an HttpClientConfig");
    }
    const builder = new HttpClientConfigBuilder();
    // A built configuration's views are not enumerable: the copy has none.
    builder.#config = { ...DEFAULT_CONFIG, ...config };
    return builder;
  }

  /**
   * Sets the base URL relative request URLs resolve against: an absolute
   * `http:` or `https:` URL, without a control character or a space at
   * either end (`TypeError` otherwise).
   */
  withBaseUrl(baseUrl: string | URL): this {
    this.#config.baseUrl = checkBaseUrl(baseUrl);
    return this;
  }

  /**
   * Sets the timeout of one attempt, in seconds (default 30; a finite number
   * above 0, or `null` for none): from the auth hook's token fetch (or
   * refresh) for it to the last byte of a buffered response, or to the head
   * of a streamed one. An attempt that runs out of it fails with
   * `TimeoutException`, even while it waits for a token; the call may then
   * be retried.
   */
  withTimeout(seconds: number | null): this {
    this.#config.timeout = validateNullableTimeout("timeout", seconds);
    return this;
  }

  /**
   * Sets the read timeout of streamed responses, in seconds (default 30; a
   * finite number above 0, or `null` for none): the longest wait for the
   * next chunk of a body read as a stream. Buffered responses are covered by
   * {@linkcode withTimeout} instead.
   */
  withReadTimeout(seconds: number | null): this {
    this.#config.readTimeout = validateNullableTimeout("readTimeout", seconds);
    return this;
  }

  /**
   * Sets the timeout of a whole call, in seconds (default `null`: none):
   * every attempt, retry wait and token fetch, up to the response the call
   * resolves to. A retry wait that would end past it fails the call at
   * once, without waiting. A call that runs out of it fails with a
   * `TimeoutException` whose message names `totalTimeout`; it is not
   * retried.
   */
  withTotalTimeout(seconds: number | null): this {
    this.#config.totalTimeout = validateNullableTimeout("totalTimeout", seconds);
    return this;
  }

  /** Adds headers sent with every request; later calls merge, without regard to case. */
  withHeaders(headers: Readonly<Record<string, string>>): this {
    validateHeaders("headers", headers);
    this.#config.headers = Object.freeze(mergeHeaders(this.#config.headers, headers));
    return this;
  }

  /**
   * Sets how many redirects one call follows: a whole number, 0 or more
   * (default 20; 0 returns the 3xx response as it is).
   */
  withMaxRedirects(count: number): this {
    this.#config.maxRedirects = validateCount("maxRedirects", count);
    return this;
  }

  /**
   * Sets the largest response body a buffered read holds, in decoded bytes
   * (after gzip, deflate, br): a whole number, 0 or more (default 256 MiB),
   * or `Infinity` for no limit. A longer body fails the call with an
   * `HttpClientException` once the limit is passed, without reading further.
   * A streamed body is not capped, but a line of its `lines()`, and a line
   * or an event's data of its `events()`, hold at most this many characters.
   */
  withMaxResponseBytes(bytes: number): this {
    this.#config.maxResponseBytes = bytes === Infinity
      ? Infinity
      : validateCount("maxResponseBytes", bytes);
    return this;
  }

  /** Sets the options of the connection pool (`Deno.createHttpClient`'s, or the undici Agent's). */
  withPool(options: PoolOptions): this {
    this.#config.pool = checkPool(options);
    return this;
  }

  /**
   * Sends through an HTTP proxy, an `http:` or `https:` URL without a path
   * (`null`: none, ignoring the environment's `HTTP_PROXY`, `HTTPS_PROXY`
   * and `NO_PROXY`, which apply otherwise): http targets forwarded, https
   * ones tunnelled with CONNECT, the hosts of `options.noProxy` reached
   * directly. The URL's user-info becomes `Proxy-Authorization` and is
   * masked in every view; a request's own `Proxy-Authorization` header is
   * refused through the proxy (it would reach an https target). On Deno it needs `--allow-env` for the proxy
   * variables. See {@linkcode ProxyOptions}.
   */
  withProxy(url: string | URL | null, options?: ProxyOptions): this {
    this.#config.proxy = url === null ? null : checkProxy(url, options);
    return this;
  }

  /**
   * Trusts extra CA certificates beside the system's roots, and sends a
   * client certificate to servers that ask for one (PEM; the key is masked
   * in every view). A runtime or a custom `withFetch` transport that cannot
   * apply them fails `build()`. See {@linkcode TlsOptions}.
   */
  withTls(options: TlsOptions): this {
    this.#config.tls = checkTls(options);
    return this;
  }

  /**
   * Keeps cookies (default: none, so a client shared by many users never
   * mixes their sessions): in a jar of the client's own, in memory, or in
   * `jar` (a tough-cookie `CookieJar`, or any {@linkcode CookieJarLike});
   * `null` turns them off. A browser keeps cookies itself: there `build()`
   * refuses a jar, unless a custom `withFetch` transport sends the calls.
   */
  withCookies(jar?: CookieJarLike | null): this {
    this.#config.cookies = checkCookieJar(jar);
    return this;
  }

  /** Sets a custom transport, a function with `fetch`'s signature, used instead of the pool. */
  withFetch(fetchLike: FetchLike): this {
    this.#config.fetch = checkFetch(fetchLike);
    return this;
  }

  /** Appends a request hook, an object with `beforeRequest(request, context)`; they run in order. */
  withRequestHook(hook: RequestHookInterface): this {
    const checked = checkHook("request", hook, "beforeRequest");
    this.#config.requestHooks = [...this.#config.requestHooks, checked];
    return this;
  }

  /** Appends a response hook, an object with `afterResponse(response, context)`; they run in order. */
  withResponseHook(hook: ResponseHookInterface): this {
    const checked = checkHook("response", hook, "afterResponse");
    this.#config.responseHooks = [...this.#config.responseHooks, checked];
    return this;
  }

  /** Appends an error hook, an object with `onError(error, context)`; they run in order. */
  withErrorHook(hook: ErrorHookInterface): this {
    this.#config.errorHooks = [...this.#config.errorHooks, checkHook("error", hook, "onError")];
    return this;
  }

  /**
   * Appends middleware, each a function `(request, next, context)` or an
   * object with `handle()`: every exchange (each attempt, redirect hop and
   * resend after a 401) passes through them, the first registered
   * outermost, after the request hooks, the auth hook and the cookie jar.
   * A client's token requests do not.
   *
   * @example Sign every exchange
   * ```ts
   * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
   *
   * const config = new HttpClientConfigBuilder()
   *   .withMiddleware((request, next) => next(request.withHeaders({ "X-Signature": "…" })))
   *   .build();
   * ```
   *
   * @param middleware The middleware to append, in order.
   * @returns This builder.
   * @throws {TypeError} When one is neither a function nor an object with `handle()`.
   */
  withMiddleware(...middleware: Middleware[]): this {
    const checked = middleware.map(checkMiddleware);
    this.#config.middleware = [...this.#config.middleware, ...checked];
    return this;
  }

  /**
   * Adds {@linkcode LoggingRequestHook}, {@linkcode LoggingResponseHook} and
   * {@linkcode LoggingErrorHook} together, sharing the options (what to log
   * and where).
   */
  withLogging(options: LoggingOptions = {}): this {
    const [request, response, error] = loggingHooks(options);
    return this.withRequestHook(request).withResponseHook(response).withErrorHook(error);
  }

  /**
   * Sets the retry policy; fields not given keep their current values (the
   * defaults: 2 retries of GET, HEAD, OPTIONS, PUT and DELETE on connection
   * failures, timeouts and 408, 429, 500, 502, 503, 504, with exponential
   * backoff and full jitter from 0.5 s capped at 30 s, honouring
   * `Retry-After` up to 60 s). A negative count or backoff is a RangeError.
   */
  withRetry(options: RetryOptions): this {
    this.#config.retry = retryPolicy(options, this.#config.retry);
    return this;
  }

  /**
   * Sets the authentication hook (an {@linkcode AuthHookInterface}), which
   * runs after the request hooks on the requests it should authenticate,
   * for the allowed origins.
   */
  withAuthHook(hook: AuthHookInterface): this {
    this.#config.authHook = checkAuthHook(hook);
    return this;
  }

  /** Sets a {@linkcode TokenAuthHook} over `options.tokenManager`, with the hook's options, as the auth hook. */
  withTokenAuth(options: TokenAuthOptions): this {
    return this.withAuthHook(tokenAuthHook(options));
  }

  /**
   * Sets the origins the auth hook runs for (absolute URLs or origins, such
   * as `https://api.example.com`), and no others (default: the base URL's
   * origin; with no base URL, the origin of each call's own request). On a
   * redirect to any other origin, or from https to http, credentials are
   * dropped.
   */
  withAuthOrigins(origins: Iterable<string | URL>): this {
    this.#config.authOrigins = checkAuthOrigins(origins);
    return this;
  }

  /** Returns the frozen configuration, refusing network settings this client could not apply. */
  build(): HttpClientConfig {
    return frozenConfig(this.#config);
  }
}
