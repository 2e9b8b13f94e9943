// The configuration of a client: the frozen `HttpClientConfig`, its
// defaults, the builder and the checks of its inputs (each a TypeError or
// RangeError naming the field, never quoting a credential), `frozenConfig`,
// the masked view, and the retry policy. The network settings are
// network.ts's; the decisions made with the retry policy are the send
// path's (send/attempts.ts; the Idempotency-Key, client/call.ts).

import {
  checkKnownKeys,
  describeType,
  keysOf,
  validateCount,
  validateHeaders,
  validateNullableTimeout,
  validateSeconds,
  validateUrlText,
} from "../models/_validate.ts";
import type { Duration } from "../models/duration.ts";
import { type HttpMethod, type HttpRequest, parseMethod } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { mergeHeaders } from "../http/headers.ts";
import { checkJsonStyle } from "../json/serialize_json.ts";
import { parseHttpUrl } from "../http/url.ts";
import { maskDeepForView, maskHeadersForView, redactUrl, withView } from "../masking/views.ts";
import {
  CREDENTIAL_HEADERS,
  type CredentialNames,
  credentialNames,
} from "../masking/credentials.ts";
import type {
  ErrorHookInterface,
  Logger,
  RequestHookInterface,
  ResponseHookInterface,
} from "../hooks/hook_interfaces.ts";
import {
  LOGGING_KEYS,
  LoggingErrorHook,
  LoggingRequestHook,
  LoggingResponseHook,
} from "../hooks/logging_hooks.ts";
import type { Middleware, MiddlewareFunction } from "../hooks/hook_interfaces.ts";
import {
  type AuthHookInterface,
  TOKEN_AUTH_HOOK_OPTIONS,
  TokenAuthHook,
  type TokenAuthHookOptions,
  type TokenManagerInterface,
} from "../auth/hooks.ts";
import { checkCookieJar, type CookieJarLike } from "../cookies/jar.ts";
import type { FetchLike, NetworkPolicy, PoolOptions, ProxySetting } from "../transport/types.ts";
import { sleep } from "../waits.ts";
import {
  checkNetwork,
  checkPool,
  type NetworkPolicyOptions,
  type ProxyOptions,
  type TlsOptions,
  tlsView,
} from "./network.ts";
import {
  checkNetworkPolicy,
  checkProxy,
  checkSettingsTogether,
  checkTls,
  checkUnixSocket,
} from "./network_settings.ts";

/**
 * The frozen configuration of an {@linkcode HttpClient}, made by
 * {@linkcode HttpClientConfigBuilder}. `console.log()` and `JSON.stringify()`
 * of a built one show the base URL's user-info, credential-like default
 * headers and pool options (a proxy's `basicAuth` password, a proxy URL's
 * user-info), the proxy's password and the `withTls` key masked, and a
 * cookie jar by name only.
 */
export interface HttpClientConfig {
  /** The base URL relative request URLs are resolved against. */
  readonly baseUrl?: string;
  /** The timeout of one attempt in seconds (default 30); `null`: none. */
  readonly timeout: number | null;
  /** The longest wait for the next chunk of a streamed response, in seconds (default 30); `null`: none. */
  readonly readTimeout: number | null;
  /** The timeout of a whole call in seconds, retries included (default `null`: none). */
  readonly totalTimeout: number | null;
  /** Headers sent with every request (a request's own headers win). */
  readonly headers: Readonly<Record<string, string>>;
  /** How many redirects one call follows; 0 returns the 3xx response. */
  readonly maxRedirects: number;
  /** The most decoded bytes a buffered read holds (default 256 MiB); `Infinity` for no limit. */
  readonly maxResponseBytes: number;
  /**
   * How a `jsonData` body is written (`withJsonStyle`): `"python"` (the
   * default, Python's `json.dumps` spacing) or `"compact"` (`JSON.stringify`'s bytes).
   */
  readonly jsonStyle: "python" | "compact";
  /** Options of the connection pool. */
  readonly pool?: Readonly<PoolOptions>;
  /**
   * The proxy set by `withProxy()`; `null`: none, the environment's ignored;
   * not set: the environment's `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`.
   */
  readonly proxy?: ProxySetting | null;
  /** Extra CA certificates and a client certificate (`withTls`); the key is masked in views. */
  readonly tls?: Readonly<TlsOptions>;
  /** The network policy (`withNetworkPolicy`): the addresses connections may go to. */
  readonly networkPolicy?: NetworkPolicy;
  /** The Unix domain socket every request goes over (`withUnixSocket`). */
  readonly unixSocket?: string;
  /** A custom transport used instead of the pooled `fetch`. */
  readonly fetch?: FetchLike;
  /** Request hooks, in registration order. */
  readonly requestHooks: readonly RequestHookInterface[];
  /** Response hooks, in registration order. */
  readonly responseHooks: readonly ResponseHookInterface[];
  /** Error hooks, in registration order. */
  readonly errorHooks: readonly ErrorHookInterface[];
  /** The exchange-level middleware, outermost first (`withMiddleware`). */
  readonly middleware: readonly Middleware[];
  /** The retry policy. */
  readonly retry: RetryPolicy;
  /** The authentication hook. */
  readonly authHook?: AuthHookInterface;
  /**
   * The origins the auth hook runs for. Not set: the base URL's origin.
   * With no base URL, the origin of each call's own request as well.
   */
  readonly authOrigins?: ReadonlySet<string>;
  /**
   * Header names the client adds to the credentials (`add`: its own secret
   * headers, and `withLogging`'s `sensitiveKeys`) and takes out of those that
   * only look like credentials (`except`: `Idempotency-Key`), lower-case
   * (`withCredentialHeaders`).
   */
  readonly credentialHeaders?: Readonly<CredentialHeadersOptions>;
  /**
   * The cookie jar (default none): `true` for one of the client's own in
   * memory, else the jar given, which views and `JSON.stringify()` show as
   * `"[cookie jar]"`, never with its cookies.
   */
  readonly cookies?: CookieJarLike | true | undefined;
}

/** How retries behave; every field is optional in {@linkcode HttpClientConfigBuilder.withRetry}. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2; 0 turns retries off. */
  maxRetries?: number | undefined;
  /**
   * The methods retried. Default GET, HEAD, OPTIONS, QUERY, PUT, DELETE. Naming POST
   * or PATCH opts in, and their calls then carry an `Idempotency-Key`.
   */
  methods?: Iterable<HttpMethod | Lowercase<HttpMethod>> | undefined;
  /** The statuses retried. Default 408, 429, 500, 502, 503, 504. */
  statusCodes?: Iterable<number> | undefined;
  /** The base of the exponential backoff, in seconds or with its unit (`"200ms"`). Default 0.5. */
  backoff?: number | Duration | undefined;
  /** The cap of one backoff wait, in seconds or with its unit. Default 30. */
  maxBackoff?: number | Duration | undefined;
  /**
   * A `Retry-After`, or a rate-limit reset (`RateLimit`, `RateLimit-Reset`,
   * `X-RateLimit-Reset` of a 429 or 503), longer than this (seconds) stops
   * retrying and returns the response. Default 60.
   */
  maxRetryAfter?: number | Duration | undefined;
  /**
   * Decides each retry in place of the policy's rule: called when a response
   * or an exception of the library could be retried (retries are left, the
   * call is not over, its body can be sent again), synchronously, with what
   * happened ({@linkcode ShouldRetryInfo}). `true` retries after
   * `info.delayMs` (any method: a POST too), `false` stops (the response is
   * returned, the exception thrown), `undefined` keeps the policy's
   * decision. What it throws fails the call. With one set, POST and PATCH
   * calls carry an `Idempotency-Key`.
   *
   * @example Retry POST only on a 429
   * ```ts
   * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
   *
   * const config = new HttpClientConfigBuilder()
   *   .withRetry({
   *     shouldRetry: (info) => info.method === "POST" ? info.response?.statusCode === 429 : undefined,
   *   })
   *   .build();
   * ```
   */
  shouldRetry?: ((info: ShouldRetryInfo) => boolean | undefined) | undefined;
  /**
   * Waits `ms` milliseconds, rejecting when `signal` aborts; replace it in
   * tests. `ms` may be past what one `setTimeout` counts (2^31 - 1 ms, about
   * 24.8 days: a server's `Retry-After` can ask for any length): a sleep of
   * your own must wait it whole, where the runtime's timer would fire at once.
   */
  sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
  /** A number in [0, 1) for the jitter; replace it in tests. Default `Math.random`. */
  random?: (() => number) | undefined;
  /**
   * A retry budget (`retryBudget()` of the traffic entry point): a retry
   * the policy would make goes out only when the budget has room, else the
   * call ends as if retries were spent, with
   * `context.metadata.retryBudgetExhausted = true`. Default none.
   */
  budget?: RetryBudgetHook | undefined;
  /**
   * Resumes a GET's body that breaks off after its head (buffered or
   * streamed) when the response named a strong validator (an ETag not
   * `W/`, or a Last-Modified at least 60 s old) and `Accept-Ranges: bytes`:
   * the rest is asked for with `Range` and `If-Range`, each resume one of
   * `maxRetries`, and the reader sees one unbroken body. A 200 in answer
   * (the resource changed) or a Content-Range that does not start where
   * the body broke fails the read, naming why. Default true.
   */
  resume?: boolean | undefined;
}

/**
 * What the retry decision asks of a retry budget (`retryBudget()` of the
 * traffic entry point is one): told of each call sent, asked before each
 * retry.
 *
 * @example A budget that never allows a retry
 * ```ts
 * import { HttpClientConfigBuilder, type RetryBudgetHook } from "@fetchline/fetchline";
 *
 * const none: RetryBudgetHook = { sent() {}, withdraw: () => false };
 * const config = new HttpClientConfigBuilder().withRetry({ budget: none }).build();
 * ```
 */
export interface RetryBudgetHook {
  /** Counts a call sent (its first attempt). */
  sent(request: HttpRequest): void;
  /** Takes one retry of `request`: true when it may go out (a promise: bounded by the budget). */
  withdraw(request: HttpRequest): boolean | Promise<boolean>;
}

/**
 * What {@linkcode RetryOptions.shouldRetry} is told of the attempt that
 * ended: its response or its exception, and the wait a retry would take.
 *
 * @example Log each decision
 * ```ts
 * import type { ShouldRetryInfo } from "@fetchline/fetchline";
 *
 * const shouldRetry = (info: ShouldRetryInfo): boolean | undefined => {
 *   console.log(`attempt ${info.attempt}: ${info.response?.statusCode ?? info.error}, ${info.delayMs} ms`);
 *   return undefined; // the policy decides
 * };
 * ```
 */
export interface ShouldRetryInfo {
  /** The attempt that ended, from 0 (the first; `context.attempt`). */
  readonly attempt: number;
  /** The request's method. */
  readonly method: HttpMethod;
  /** The request as that attempt sent it (after the hooks). */
  readonly request: HttpRequest;
  /** The response the attempt received, when it received one. */
  readonly response?: HttpResponse | undefined;
  /** The exception the attempt failed with (an `HttpClientException`), when it failed. */
  readonly error?: unknown;
  /**
   * How long a retry would wait, in milliseconds: the `Retry-After` or the
   * rate-limit reset of a 429 or 503 (even past `maxRetryAfter`), else the
   * backoff.
   */
  readonly delayMs: number;
}

/** The normalised retry settings of a client. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** The methods retried. */
  readonly methods: ReadonlySet<HttpMethod>;
  /** The statuses retried. */
  readonly statusCodes: ReadonlySet<number>;
  /** The backoff base in seconds. */
  readonly backoff: number;
  /** The cap of one wait in seconds. */
  readonly maxBackoff: number;
  /** The longest `Retry-After` or rate-limit reset honoured, in seconds. */
  readonly maxRetryAfter: number;
  /** The decision of each retry, when the caller gave one. */
  readonly shouldRetry?: ((info: ShouldRetryInfo) => boolean | undefined) | undefined;
  /** The wait. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The jitter source. */
  readonly random: () => number;
  /** The retry budget, when the caller gave one. */
  readonly budget?: RetryBudgetHook | undefined;
  /** Whether a GET's body that breaks off is resumed (with a strong validator and byte ranges). */
  readonly resume: boolean;
}

/** The defaults: 2 retries of idempotent methods on connection failures, timeouts and 408/429/5xx. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxRetries: 2,
  methods: new Set<HttpMethod>(["GET", "HEAD", "OPTIONS", "QUERY", "PUT", "DELETE"]),
  statusCodes: new Set([408, 429, 500, 502, 503, 504]),
  backoff: 0.5,
  maxBackoff: 30,
  maxRetryAfter: 60,
  sleep,
  random: Math.random,
  resume: true,
});

const RETRY_OPTION_KEYS = keysOf<RetryOptions>({
  maxRetries: true,
  methods: true,
  statusCodes: true,
  backoff: true,
  maxBackoff: true,
  maxRetryAfter: true,
  shouldRetry: true,
  sleep: true,
  random: true,
  budget: true,
  resume: true,
});

/**
 * Checks `options` and merges them over `base`: RangeError for bad numbers,
 * TypeError for bad kinds and for a key that is not an option (`maxRetry`).
 */
export function retryPolicy(options: RetryOptions, base: RetryPolicy = DEFAULT_RETRY): RetryPolicy {
  checkKnownKeys("retry options", options, RETRY_OPTION_KEYS);
  const statusCodes = new Set(options.statusCodes ?? base.statusCodes);
  for (const status of statusCodes) {
    if (!Number.isInteger(status) || status < 100 || status > 599) {
      throw new RangeError(`Invalid statusCodes: ${status} is not an HTTP status`);
    }
  }
  const functions = [
    ["sleep", options.sleep],
    ["random", options.random],
    ["shouldRetry", options.shouldRetry],
  ] as const;
  for (const [field, fn] of functions) {
    if (fn !== undefined && typeof fn !== "function") {
      throw new TypeError(`Invalid ${field}: expected a function`);
    }
  }
  const { budget, resume } = options;
  if (resume !== undefined && typeof resume !== "boolean") {
    throw new TypeError(`Invalid resume: expected a boolean, got ${describeType(resume)}`);
  }
  if (
    budget !== undefined &&
    (typeof budget !== "object" || budget === null || typeof budget.sent !== "function" ||
      typeof budget.withdraw !== "function")
  ) {
    throw new TypeError(
      `Invalid budget: expected a retry budget (sent and withdraw), got ${describeType(budget)}`,
    );
  }
  return Object.freeze({
    maxRetries: validateCount("maxRetries", options.maxRetries ?? base.maxRetries),
    methods: options.methods === undefined
      ? base.methods
      : new Set([...options.methods].map(parseMethod)),
    statusCodes,
    // The base's waits are in seconds already: one past an hour was given with its unit.
    backoff: options.backoff === undefined
      ? base.backoff
      : validateSeconds("backoff", options.backoff),
    maxBackoff: options.maxBackoff === undefined
      ? base.maxBackoff
      : validateSeconds("maxBackoff", options.maxBackoff),
    maxRetryAfter: options.maxRetryAfter === undefined
      ? base.maxRetryAfter
      : validateSeconds("maxRetryAfter", options.maxRetryAfter),
    shouldRetry: "shouldRetry" in options ? options.shouldRetry : base.shouldRetry,
    sleep: options.sleep ?? base.sleep,
    random: options.random ?? base.random,
    budget: "budget" in options ? budget : base.budget,
    resume: options.resume ?? base.resume,
  });
}

/**
 * The configuration of a client given none, and the start of every builder:
 * timeout 30 s, read timeout 30 s, no total timeout, 2 retries, 20
 * redirects, buffered bodies up to 256 MiB, no base URL, headers or hooks.
 */
export const DEFAULT_CONFIG: HttpClientConfig = Object.freeze({
  timeout: 30,
  readTimeout: 30,
  totalTimeout: null,
  headers: Object.freeze({}),
  maxRedirects: 20,
  maxResponseBytes: 256 * 1024 * 1024,
  jsonStyle: "python",
  requestHooks: Object.freeze([]),
  responseHooks: Object.freeze([]),
  errorHooks: Object.freeze([]),
  middleware: Object.freeze([]),
  retry: DEFAULT_RETRY,
});

/** Options of {@linkcode HttpClientConfigBuilder.withTokenAuth}. */
export interface TokenAuthOptions extends TokenAuthHookOptions {
  /** Gets and refreshes the tokens. */
  tokenManager: TokenManagerInterface;
}

const TOKEN_AUTH_KEYS = keysOf<TokenAuthOptions>({
  ...TOKEN_AUTH_HOOK_OPTIONS,
  tokenManager: true,
});

/** Options of {@linkcode HttpClientConfigBuilder.withCredentialHeaders}. */
export interface CredentialHeadersOptions {
  /** Header names that carry a credential although they do not look like one (`X-Client-Code`). */
  readonly add?: readonly string[] | undefined;
  /**
   * Header names that look like a credential's but are not (`Idempotency-Key`,
   * `X-Cache-Key`); never `Authorization`, `Proxy-Authorization`, `Cookie`,
   * `Set-Cookie` or `X-API-Key`.
   */
  readonly except?: readonly string[] | undefined;
}

const CREDENTIAL_HEADERS_KEYS = keysOf<CredentialHeadersOptions>({ add: true, except: true });

/** Options of {@linkcode HttpClientConfigBuilder.withLogging}. */
export interface LoggingOptions {
  /** Log request and response headers (sensitive ones masked). Default false. */
  logHeaders?: boolean | undefined;
  /** Log request bodies, and the bodies of failed responses. Default false. */
  logBody?: boolean | undefined;
  /** Further header names to mask, in any letter case. */
  sensitiveKeys?: Iterable<string> | undefined;
  /** Where to write. Default `console`. */
  logger?: Logger | undefined;
}

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
   * above 0 up to 3,600, a string with its unit such as `"250ms"` or `"2m"`,
   * or `null` for none): from the auth hook's token fetch (or
   * refresh) for it to the last byte of a buffered response, or to the head
   * of a streamed one. An attempt that runs out of it fails with
   * `TimeoutException`, even while it waits for a token; the call may then
   * be retried.
   */
  withTimeout(seconds: number | Duration | null): this {
    this.#config.timeout = validateNullableTimeout("timeout", seconds);
    return this;
  }

  /**
   * Sets the read timeout of streamed responses, in seconds (default 30; a
   * finite number above 0 up to 3,600, a string with its unit such as
   * `"5s"`, or `null` for none): the longest wait for the
   * next chunk of a body read as a stream. Buffered responses are covered by
   * {@linkcode withTimeout} instead.
   */
  withReadTimeout(seconds: number | Duration | null): this {
    this.#config.readTimeout = validateNullableTimeout("readTimeout", seconds);
    return this;
  }

  /**
   * Sets the timeout of a whole call, in seconds or with its unit (`"2m"`;
   * default `null`: none):
   * every attempt, retry wait and token fetch, up to the response the call
   * resolves to. A retry wait that would end past it fails the call at
   * once, without waiting. A call that runs out of it fails with a
   * `TimeoutException` whose message names `totalTimeout`; it is not
   * retried.
   */
  withTotalTimeout(seconds: number | Duration | null): this {
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

  /**
   * Sets how a `jsonData` body is written: `"python"` (the default, the
   * spec's: Python's `json.dumps` style, a space after `,` and `:`) or
   * `"compact"`, exactly the bytes of `JSON.stringify(jsonData)`, for a
   * server that signs or hashes the body as JavaScript writes it. The
   * requests the client sends (`response.request`, what hooks see) carry
   * the style, so their `toCurl()` renders the same bytes. Values JSON
   * cannot say (`NaN`, `BigInt`, cycles) are refused in both styles.
   *
   * @example Send the bytes of `JSON.stringify`
   * ```ts
   * import { createClient } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * await using server = Deno.serve(
   *   { hostname: "127.0.0.1", port: 0, onListen() {} },
   *   async (request) => new Response(await request.text()),
   * );
   * await using client = createClient(`http://127.0.0.1:${server.addr.port}`)
   *   .extend((builder) => builder.withJsonStyle("compact"));
   * const response = await client.post("/echo", { jsonData: { a: [1, 2], b: "ü" } });
   * assert.equal(response.text, JSON.stringify({ a: [1, 2], b: "ü" })); // '{"a":[1,2],"b":"ü"}'
   * assert.match(response.request.toCurl(), /--data '\{"a":\[1,2\],"b":"ü"\}'/);
   * ```
   *
   * @param style `"python"` or `"compact"`.
   * @returns This builder.
   * @throws {TypeError} For any other value, naming `jsonStyle`.
   */
  withJsonStyle(style: "python" | "compact"): this {
    this.#config.jsonStyle = checkJsonStyle(style);
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
   * Refuses connections to loopback, private, link-local (the cloud metadata
   * address 169.254.169.254), unique-local, multicast and the other
   * addresses IANA's special-purpose registries mark not globally reachable,
   * however the URL spells them, on every redirect hop and retry: a refused
   * destination is a `BlockedDestinationException`, never retried, and no
   * byte is sent to it. The address checked is the address connected to: a
   * host name is resolved once per new connection (`options.resolve`, else
   * the system's resolver), and the connection goes to an answer the policy
   * allowed. On Deno and Node; a runtime whose fetch resolves and connects
   * itself (a browser, Bun, workerd), a custom `withFetch` transport and a
   * proxy (`withProxy(url)`) fail `build()`. The policy's connections are
   * direct: the environment's proxies do not apply. See
   * {@linkcode NetworkPolicyOptions}.
   *
   * @example Send webhooks to public addresses only
   * ```ts
   * import {
   *   BlockedDestinationException,
   *   HttpClient,
   *   HttpClientConfigBuilder,
   * } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const config = new HttpClientConfigBuilder().withNetworkPolicy().build();
   * await using client = new HttpClient(config);
   * await assert.rejects(client.get("http://169.254.169.254/latest/meta-data/"), (error) => {
   *   assert.ok(error instanceof BlockedDestinationException);
   *   assert.equal(error.rule, "link-local");
   *   return true;
   * });
   * ```
   */
  withNetworkPolicy(options: NetworkPolicyOptions = {}): this {
    this.#config.networkPolicy = checkNetworkPolicy(options);
    return this;
  }

  /**
   * Sends every request of the client over the Unix domain socket at
   * `path` (Docker's API at `/var/run/docker.sock`, say): the URL gives the
   * Host header and the path. On Deno and Node; elsewhere, and with a proxy,
   * a network policy or a custom `withFetch` transport, `build()` fails.
   */
  withUnixSocket(path: string): this {
    this.#config.unixSocket = checkUnixSocket(path);
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
    if (typeof fetchLike !== "function") {
      throw new TypeError(`Invalid fetch: expected a function, got ${describeType(fetchLike)}`);
    }
    this.#config.fetch = fetchLike;
    return this;
  }

  /** Appends a request hook, an object with `beforeRequest(request, context)`; they run in order. */
  withRequestHook(hook: RequestHookInterface): this {
    this.#config.requestHooks = [
      ...this.#config.requestHooks,
      checkHook("request", hook, "beforeRequest"),
    ];
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
    this.#config.middleware = [...this.#config.middleware, ...middleware.map(checkMiddleware)];
    return this;
  }

  /**
   * Appends a cache: an `HttpCache` of `@fetchline/fetchline/cache`, the
   * same as `withMiddleware(cache)` (the builder never loads the cache's
   * code: a client without one does not either).
   *
   * @example A client with a cache in memory
   * ```ts
   * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
   * import { HttpCache, MemoryCacheStore } from "@fetchline/fetchline/cache";
   *
   * const cache = new HttpCache({ store: new MemoryCacheStore() });
   * const config = new HttpClientConfigBuilder().withCache(cache).build();
   * ```
   *
   * @param cache The cache: an object with `handle()`.
   * @returns This builder.
   * @throws {TypeError} When it is not an object with `handle()`.
   */
  withCache(cache: { handle: MiddlewareFunction }): this {
    if (typeof cache !== "object" || cache === null || typeof cache.handle !== "function") {
      throw new TypeError(
        `Invalid cache: expected an HttpCache (an object with handle()), got ${
          describeType(cache)
        }`,
      );
    }
    return this.withMiddleware(cache);
  }

  /**
   * Adds {@linkcode LoggingRequestHook}, {@linkcode LoggingResponseHook} and
   * {@linkcode LoggingErrorHook} together, sharing the options (what to log
   * and where).
   */
  withLogging(options: LoggingOptions = {}): this {
    checkKnownKeys("logging options", options, LOGGING_KEYS);
    const { logger, sensitiveKeys } = options;
    const request = new LoggingRequestHook(options);
    const response = new LoggingResponseHook(options);
    const error = new LoggingErrorHook({ logger, sensitiveKeys });
    // The names a client logs masked are its credentials on every other path too.
    if (sensitiveKeys !== undefined) this.withCredentialHeaders({ add: [...sensitiveKeys] });
    return this.withRequestHook(request).withResponseHook(response).withErrorHook(error);
  }

  /**
   * Names, in any letter case, the headers that carry this client's
   * credentials beyond those the library knows (`add`: a header such as
   * `X-Client-Code`), and the headers that only look like credentials
   * (`except`: `Idempotency-Key`, whose name holds `key`). A credential
   * header is masked in every log line, error, view and HAR file, never
   * written to a cache store, and dropped from a request that leaves its
   * origin. Calls add to the names given before. `Authorization`,
   * `Proxy-Authorization`, `Cookie`, `Set-Cookie` and `X-API-Key` are always
   * credentials: `except` naming one is a TypeError.
   *
   * @example Mask a header of one's own, and show an idempotency key
   * ```ts
   * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const config = new HttpClientConfigBuilder()
   *   .withHeaders({ "X-Client-Code": "c-123", "Idempotency-Key": "k-1" })
   *   .withCredentialHeaders({ add: ["X-Client-Code"], except: ["Idempotency-Key"] })
   *   .build();
   * const shown = JSON.stringify(config);
   * assert.ok(!shown.includes("c-123"));
   * assert.ok(shown.includes("k-1"));
   * ```
   */
  withCredentialHeaders(options: CredentialHeadersOptions): this {
    checkKnownKeys("credential headers options", options, CREDENTIAL_HEADERS_KEYS);
    const add = headerNames("add", options.add);
    const except = headerNames("except", options.except);
    const fixed = except.find((name) => CREDENTIAL_HEADERS.has(name));
    if (fixed !== undefined) {
      throw new TypeError(
        `Invalid except: ${JSON.stringify(fixed)} always carries a credential`,
      );
    }
    const before = this.#config.credentialHeaders;
    this.#config.credentialHeaders = Object.freeze({
      add: Object.freeze([...new Set([...before?.add ?? [], ...add])]),
      except: Object.freeze([...new Set([...before?.except ?? [], ...except])]),
    });
    return this;
  }

  /**
   * Sets the retry policy; fields not given keep their current values (the
   * defaults: 2 retries of GET, HEAD, OPTIONS, QUERY, PUT and DELETE on connection
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
    checkKnownKeys("token auth options", options, TOKEN_AUTH_KEYS);
    const { tokenManager, ...hookOptions } = options;
    return this.withAuthHook(new TokenAuthHook(tokenManager, hookOptions));
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

/**
 * The last step of every configuration, the builder's `build()` and
 * `createClient()`'s alike: the frozen configuration with its masked views,
 * refusing network settings this client could not apply.
 */
export function frozenConfig(config: HttpClientConfig): HttpClientConfig {
  checkNetwork(config);
  checkSettingsTogether(config);
  const frozen = {
    ...config,
    requestHooks: Object.freeze([...config.requestHooks]),
    responseHooks: Object.freeze([...config.responseHooks]),
    errorHooks: Object.freeze([...config.errorHooks]),
  };
  // The views are not enumerable: a spread copy of the configuration has none.
  return Object.freeze(withView(frozen, () => configView(frozen), "HttpClientConfig"));
}

/**
 * The credential header names of `config` beyond the library's own: the
 * headers its hooks declare (`credentialHeaders`), `withCredentialHeaders`'s
 * `add` and its `except`; `undefined` when there are none.
 */
export function configCredentials(config: HttpClientConfig): CredentialNames | undefined {
  const declared: string[] = [...config.credentialHeaders?.add ?? []];
  // A signer's middleware declares its headers too (httpSignatures: Signature, Signature-Input).
  const hooks = [
    ...config.requestHooks,
    ...config.authHook === undefined ? [] : [config.authHook],
    ...config.middleware,
  ] as readonly { credentialHeaders?: unknown }[];
  for (const hook of hooks) {
    const names: unknown = hook.credentialHeaders;
    if (!Array.isArray(names)) continue;
    for (const name of names) if (typeof name === "string") declared.push(name);
  }
  return credentialNames(declared, config.credentialHeaders?.except);
}

/** The masked view of a configuration, a plain object (see {@linkcode HttpClientConfig}). */
export function configView(config: HttpClientConfig): Record<string, unknown> {
  return {
    ...config,
    baseUrl: config.baseUrl === undefined ? undefined : redactUrl(config.baseUrl),
    headers: maskHeadersForView(config.headers, configCredentials(config)),
    pool: config.pool === undefined ? undefined : maskDeepForView(config.pool, true),
    tls: config.tls === undefined ? undefined : tlsView(config.tls),
    authOrigins: config.authOrigins === undefined ? undefined : [...config.authOrigins],
    // A jar holds the session's cookies: it is named, never shown.
    cookies: typeof config.cookies === "object" ? "[cookie jar]" : config.cookies,
  };
}

// The checks of the builder's inputs.

/** A base URL: an absolute `http:` or `https:` URL, as text the parser keeps as it is. */
export function checkBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== "string" && !(baseUrl instanceof URL)) {
    throw new TypeError(`Invalid baseUrl: expected a string or URL, got ${describeType(baseUrl)}`);
  }
  // Checked before parsing, which would drop a tab, CR or LF silently.
  validateUrlText("baseUrl", String(baseUrl));
  if (parseHttpUrl(String(baseUrl)) === null) {
    throw new TypeError(
      `Invalid baseUrl: expected an absolute http: or https: URL, got ${
        JSON.stringify(redactUrl(String(baseUrl)))
      }`,
    );
  }
  return String(baseUrl);
}

/** A hook of `kind` ("request", "response"…): an object whose `method` is a function. */
function checkHook<T extends object>(kind: string, hook: T, method: string): T {
  if (typeof (hook as Record<string, unknown> | null)?.[method] !== "function") {
    throw new TypeError(
      `Invalid ${kind} hook: expected an object with ${method}(), got ${describeType(hook)}`,
    );
  }
  // Optional, so a misspelt value would otherwise never run, silently.
  const onRetry = (hook as { onRetry?: unknown }).onRetry;
  if (onRetry !== undefined && typeof onRetry !== "function") {
    throw new TypeError(
      `Invalid ${kind} hook: onRetry must be a function, got ${describeType(onRetry)}`,
    );
  }
  return hook;
}

/** A middleware: a function, or an object whose `handle` is one; `index` names it in the error. */
function checkMiddleware(middleware: Middleware, index: number): Middleware {
  const handle = typeof middleware === "function"
    ? middleware
    : (middleware as { handle?: unknown } | null)?.handle;
  if (typeof handle !== "function") {
    throw new TypeError(
      `Invalid middleware (argument ${index + 1}): expected a function (request, next, context) ` +
        `or an object with handle(), got ${describeType(middleware)}`,
    );
  }
  return middleware;
}

const AUTH_HOOK_METHODS = [
  "beforeRequest",
  "shouldAuthenticate",
  "isAuthError",
  "refreshAuth",
  "invalidateAuth",
] as const;

/** An auth hook: every method of the interface, and a retry strategy with `shouldRetry()`. */
function checkAuthHook(hook: AuthHookInterface): AuthHookInterface {
  for (const method of AUTH_HOOK_METHODS) checkHook("auth", hook, method);
  if (typeof hook.retryStrategy?.shouldRetry !== "function") {
    throw new TypeError("Invalid auth hook: expected a retryStrategy with shouldRetry()");
  }
  return hook;
}

/** The origins of absolute `http:` or `https:` URLs (or origins), as a set. */
/** A list of header names, lower-cased; a TypeError naming `field` for anything else. */
function headerNames(field: string, names: unknown): string[] {
  if (names === undefined) return [];
  if (!Array.isArray(names)) {
    throw new TypeError(`Invalid ${field}: expected an array of header names`);
  }
  return names.map((name, index) => {
    if (typeof name !== "string" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new TypeError(
        `Invalid ${field}[${index}]: expected a header name, got ${describeType(name)}`,
      );
    }
    return name.toLowerCase();
  });
}

function checkAuthOrigins(origins: Iterable<string | URL>): Set<string> {
  const set = new Set<string>();
  for (const origin of origins) {
    const parsed = parseHttpUrl(String(origin));
    if (parsed === null) {
      throw new TypeError(
        `Invalid authOrigins: ${
          JSON.stringify(redactUrl(String(origin)))
        } is not an http(s) origin`,
      );
    }
    set.add(parsed.origin);
  }
  return set;
}
