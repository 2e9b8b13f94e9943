import { validateCount, validateHeaders, validateNullableTimeout } from "../models/_validate.ts";
import { mergeHeaders } from "../http/headers.ts";
import { withRedactedView } from "./_config_view.ts";
import type {
  ErrorHookInterface,
  RequestHookInterface,
  ResponseHookInterface,
} from "../hooks/hook_interfaces.ts";
import {
  LoggingErrorHook,
  LoggingRequestHook,
  LoggingResponseHook,
} from "../hooks/logging_hooks.ts";
import { retryPolicy } from "./retry_policy.ts";
import type { RetryOptions } from "./retry_policy.ts";
import type { AuthHookInterface } from "../auth/auth_interfaces.ts";
import { TokenAuthHook } from "../auth/token_auth_hook.ts";
import type { FetchLike, PoolOptions } from "../transport/types.ts";
import { checkNetwork, checkTls } from "./tls.ts";
import type { TlsOptions } from "./tls.ts";
import { DEFAULT_CONFIG } from "./defaults.ts";
import type { HttpClientConfig } from "./http_client_config.ts";
import type { LoggingOptions, TokenAuthOptions } from "./builder_options.ts";
import {
  checkAuthHook,
  checkAuthOrigins,
  checkBaseUrl,
  checkFetch,
  checkHook,
  checkPool,
} from "./config_checks.ts";

export { DEFAULT_CONFIG };
export type { FetchLike, HttpClientConfig, PoolOptions, TlsOptions };

/**
 * Builds an {@linkcode HttpClientConfig}. Every `with*` call checks its input
 * (a `TypeError` or `RangeError` naming the field) and returns the builder.
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
   * Sets the base URL: an absolute `http:` or `https:` URL, without a
   * control character or a space at either end (`TypeError` otherwise).
   *
   * @param baseUrl The base URL.
   * @returns This builder.
   */
  withBaseUrl(baseUrl: string | URL): this {
    this.#config.baseUrl = checkBaseUrl(baseUrl);
    return this;
  }

  /**
   * Sets the timeout of one attempt, in seconds (default 30): from the auth
   * hook's token fetch (or refresh) for it to the last byte of a buffered
   * response. An attempt that runs out of it fails with `TimeoutException`,
   * even while it waits for a token; the call may then be retried.
   *
   * @param seconds A finite number above 0, or `null` for no timeout.
   * @returns This builder.
   */
  withTimeout(seconds: number | null): this {
    this.#config.timeout = validateNullableTimeout("timeout", seconds);
    return this;
  }

  /**
   * Sets the read timeout of streamed responses, in seconds (default 30):
   * the longest wait for the next chunk of a response body read as a
   * stream. Buffered responses are covered by {@linkcode withTimeout}
   * instead. It is checked and kept in the configuration now, and applies
   * once streamed responses are read.
   *
   * @param seconds A finite number above 0, or `null` for no read timeout.
   * @returns This builder.
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
   *
   * @param seconds A finite number above 0, or `null` for none.
   * @returns This builder.
   */
  withTotalTimeout(seconds: number | null): this {
    this.#config.totalTimeout = validateNullableTimeout("totalTimeout", seconds);
    return this;
  }

  /**
   * Adds headers sent with every request; later calls merge, without regard
   * to case.
   *
   * @param headers The default headers.
   * @returns This builder.
   */
  withHeaders(headers: Readonly<Record<string, string>>): this {
    validateHeaders("headers", headers);
    this.#config.headers = Object.freeze(mergeHeaders(this.#config.headers, headers));
    return this;
  }

  /**
   * Sets how many redirects one call follows (default 20; 0 returns the
   * 3xx response as it is).
   *
   * @param count A whole number, 0 or more.
   * @returns This builder.
   */
  withMaxRedirects(count: number): this {
    this.#config.maxRedirects = validateCount("maxRedirects", count);
    return this;
  }

  /**
   * Sets the largest response body the client reads. A longer body fails the
   * call with an `HttpClientException` once the limit is passed, without
   * reading further; it counts the decoded bytes (after gzip, deflate, br).
   *
   * @param bytes A whole number of bytes, 0 or more (default 256 MiB), or
   * `Infinity` for no limit.
   * @returns This builder.
   */
  withMaxResponseBytes(bytes: number): this {
    this.#config.maxResponseBytes = bytes === Infinity
      ? Infinity
      : validateCount("maxResponseBytes", bytes);
    return this;
  }

  /**
   * Sets the options of the connection pool.
   *
   * @param options Passed to `Deno.createHttpClient` (or the undici Agent).
   * @returns This builder.
   */
  withPool(options: PoolOptions): this {
    this.#config.pool = checkPool(options);
    return this;
  }

  /**
   * Trusts extra CA certificates beside the system's roots, and sends a
   * client certificate to servers that ask for one. A runtime or a custom
   * `withFetch` transport that cannot apply them fails `build()`.
   *
   * @param options `caCerts`, and `cert` with `key` (PEM); the key is masked in every view.
   * @returns This builder.
   *
   * @example Trust a private CA
   * ```ts
   * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
   * const config = new HttpClientConfigBuilder().withTls({ caCerts: [pem] }).build();
   * assert.deepEqual(config.tls?.caCerts, [pem]);
   * ```
   */
  withTls(options: TlsOptions): this {
    this.#config.tls = checkTls(options);
    return this;
  }

  /**
   * Sets a custom transport used instead of the pooled `fetch`.
   *
   * @param fetchLike A function with `fetch`'s signature.
   * @returns This builder.
   */
  withFetch(fetchLike: FetchLike): this {
    this.#config.fetch = checkFetch(fetchLike);
    return this;
  }

  /**
   * Appends a request hook; request hooks run in registration order.
   *
   * @param hook An object with `beforeRequest(request, context)`.
   * @returns This builder.
   */
  withRequestHook(hook: RequestHookInterface): this {
    const checked = checkHook("request", hook, "beforeRequest");
    this.#config.requestHooks = [...this.#config.requestHooks, checked];
    return this;
  }

  /**
   * Appends a response hook; response hooks run in registration order.
   *
   * @param hook An object with `afterResponse(response, context)`.
   * @returns This builder.
   */
  withResponseHook(hook: ResponseHookInterface): this {
    const checked = checkHook("response", hook, "afterResponse");
    this.#config.responseHooks = [...this.#config.responseHooks, checked];
    return this;
  }

  /**
   * Appends an error hook; error hooks run in registration order.
   *
   * @param hook An object with `onError(error, context)`.
   * @returns This builder.
   */
  withErrorHook(hook: ErrorHookInterface): this {
    this.#config.errorHooks = [...this.#config.errorHooks, checkHook("error", hook, "onError")];
    return this;
  }

  /**
   * Adds {@linkcode LoggingRequestHook}, {@linkcode LoggingResponseHook} and
   * {@linkcode LoggingErrorHook} together, sharing the options.
   *
   * @param options What to log and where.
   * @returns This builder.
   */
  withLogging(options: LoggingOptions = {}): this {
    return this.withRequestHook(new LoggingRequestHook(options))
      .withResponseHook(new LoggingResponseHook(options))
      .withErrorHook(new LoggingErrorHook(options));
  }

  /**
   * Sets the retry policy; fields not given keep their current values (the
   * defaults: 2 retries of GET, HEAD, OPTIONS, PUT and DELETE on connection
   * failures, timeouts and 408, 429, 500, 502, 503, 504, with exponential
   * backoff and full jitter from 0.5 s capped at 30 s, honouring
   * `Retry-After` up to 60 s). A negative count or backoff is a RangeError.
   *
   * @param options The retry settings.
   * @returns This builder.
   */
  withRetry(options: RetryOptions): this {
    this.#config.retry = retryPolicy(options, this.#config.retry);
    return this;
  }

  /**
   * Sets the authentication hook, which runs after the request hooks on the
   * requests it should authenticate, for the allowed origins.
   *
   * @param hook An {@linkcode AuthHookInterface}.
   * @returns This builder.
   */
  withAuthHook(hook: AuthHookInterface): this {
    this.#config.authHook = checkAuthHook(hook);
    return this;
  }

  /**
   * Sets a {@linkcode TokenAuthHook} over `tokenManager` as the auth hook.
   *
   * @param options The token manager and the hook's options.
   * @returns This builder.
   */
  withTokenAuth(options: TokenAuthOptions): this {
    const { tokenManager, ...hookOptions } = options;
    return this.withAuthHook(new TokenAuthHook(tokenManager, hookOptions));
  }

  /**
   * Sets the origins the auth hook runs for, and no others (default: the
   * base URL's origin; with no base URL, the origin of each call's own
   * request). On a redirect to any other origin, or from https to http,
   * credentials are dropped.
   *
   * @param origins Absolute URLs or origins, such as `https://api.example.com`.
   * @returns This builder.
   */
  withAuthOrigins(origins: Iterable<string | URL>): this {
    this.#config.authOrigins = checkAuthOrigins(origins);
    return this;
  }

  /**
   * Returns the frozen configuration.
   *
   * @returns The configuration.
   */
  build(): HttpClientConfig {
    const config = this.#config;
    checkNetwork(config);
    return Object.freeze(withRedactedView({
      ...config,
      requestHooks: Object.freeze([...config.requestHooks]),
      responseHooks: Object.freeze([...config.responseHooks]),
      errorHooks: Object.freeze([...config.errorHooks]),
    }));
  }
}
