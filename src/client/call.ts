// One call before its first attempt: the options it has besides its
// request, and the request as every attempt starts from it.

import type { HttpClientConfig, RetryPolicy } from "../config/config.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { headerValue, mergeHeaders } from "../http/headers.ts";
import { resolveUrl } from "../http/url.ts";
import type { HttpMethod, HttpRequest, HttpRequestInit } from "../models/request.ts";
import { inJsonStyle, REQUEST_INIT_KEYS } from "../models/request.ts";
import { checkKnownKeys, keysOf, validateNullableTimeout } from "../models/_validate.ts";
import type { Duration } from "../models/duration.ts";
import type { Progress } from "../transport/body.ts";
import type { LifecycleOptions } from "../send/attempts.ts";

/** Options of one call besides the request itself. */
export interface CallOptions {
  /** Aborts the call; it then fails with an {@linkcode HttpClientException}. */
  signal?: AbortSignal | undefined;
  /**
   * The read timeout of a streamed response for this call, in seconds or
   * with its unit (`"5s"`), overriding the client's (`null`: none). It applies to streamed
   * responses only: a buffered response's body is covered by `timeout`.
   */
  readTimeout?: number | Duration | null | undefined;
  /**
   * The timeout of this whole call, in seconds or with its unit (`"2m"`),
   * overriding the client's
   * (`null`: none): every attempt, retry wait and token fetch.
   */
  totalTimeout?: number | Duration | null | undefined;
  /**
   * True to resolve at the response head with the body unread (what
   * `client.stream()` does): read it with `read()`, `body`, `lines()` or
   * `events()`, or `cancel()` it.
   */
  stream?: boolean | undefined;
  /**
   * Told how far the request body has been handed to the transport (not
   * what the server received): at the start (0 bytes), after each chunk of
   * a stream body, and at the end; a body of known size (string, bytes,
   * Blob) is sent whole and told at the start and the end only. A request
   * without a body tells nothing. Each attempt (retry, redirect) starts
   * again at 0. What the callback throws fails the call as it is and drops
   * the connection.
   */
  onUploadProgress?: ((progress: Progress) => void) | undefined;
  /**
   * Told how far the (decoded) response body has been read, for buffered
   * and streamed calls: at the start (0 bytes), after each chunk, and at
   * the end (then `totalBytes` is the body's size, `percent` 1). The total
   * is known before the end only from a Content-Length without
   * Content-Encoding. A response without a body tells nothing. What the
   * callback throws fails the call (or the streamed body's read) as it is
   * and drops the connection.
   */
  onDownloadProgress?: ((progress: Progress) => void) | undefined;
}

/**
 * A call option of the library's own (a symbol: no caller passes it by
 * mistake, and no key check sees it): the URL whose origin the call's
 * credentials belong to when that is not the call's own (pagination's
 * first page). A call sent elsewhere goes without the credential headers
 * its request, the client's defaults and its request hooks gave it, unless
 * the auth origins allow its origin.
 */
export const CREDENTIALS_OF: unique symbol = Symbol("fetchline.credentialsOf");

/** The options of a convenience call: the request's fields (`timeout` among them) and the call's. */
export interface RequestOptions extends HttpRequestInit, CallOptions {}

// A key the library does not know (a JavaScript caller's `{ bdy }` or `{ json }`) is refused
// with a TypeError naming it, never dropped.
const CALL_OPTION_KEYS = keysOf<CallOptions>({
  signal: true,
  readTimeout: true,
  totalTimeout: true,
  stream: true,
  onUploadProgress: true,
  onDownloadProgress: true,
});
const REQUEST_OPTION_KEYS: ReadonlySet<string> = new Set([
  ...REQUEST_INIT_KEYS,
  ...CALL_OPTION_KEYS,
]);

/** Throws a TypeError naming the first key of `request()`'s options that is not a call option. */
export function checkCallOptions(options: unknown): void {
  checkKnownKeys("options", options, CALL_OPTION_KEYS);
}

const NO_CALL_OPTIONS: CallOptions = Object.freeze({});

/**
 * Splits a convenience call's options into the request's init and the
 * call's options, refusing a key that is neither (TypeError naming it).
 * Options without a call option are the init as they are: nothing is copied.
 */
export function splitRequestOptions(options: RequestOptions): [HttpRequestInit, CallOptions] {
  checkKnownKeys("options", options, REQUEST_OPTION_KEYS);
  let init: Record<string, unknown> | undefined;
  let call: Record<string, unknown> | undefined;
  for (const key in options) {
    if (!CALL_OPTION_KEYS.has(key)) continue;
    init ??= { ...options };
    call ??= {};
    call[key] = init[key];
    delete init[key];
  }
  return init === undefined ? [options, NO_CALL_OPTIONS] : [init, call as CallOptions];
}

/**
 * The options of a call: `shared` itself when `call` changes nothing (no
 * object made), else a copy with the call's signal and timeouts. Bad
 * timeouts throw a `TypeError` naming the option.
 */
export function callLifecycle(shared: LifecycleOptions, call: CallOptions): LifecycleOptions {
  const { signal, readTimeout, totalTimeout, stream, onUploadProgress, onDownloadProgress } = call;
  const credentialsOf = (call as { [CREDENTIALS_OF]?: string })[CREDENTIALS_OF];
  if (
    signal === undefined && readTimeout === undefined && totalTimeout === undefined &&
    stream === undefined && onUploadProgress === undefined && onDownloadProgress === undefined &&
    credentialsOf === undefined
  ) {
    return shared;
  }
  if (stream !== undefined && typeof stream !== "boolean") {
    throw new TypeError("Invalid stream: expected a boolean");
  }
  checkCallback("onUploadProgress", onUploadProgress);
  checkCallback("onDownloadProgress", onDownloadProgress);
  return {
    ...shared,
    ...(onUploadProgress !== undefined && { onUploadProgress }),
    ...(onDownloadProgress !== undefined && { onDownloadProgress }),
    ...(stream && { stream }),
    ...(signal !== undefined && { signal }),
    ...(credentialsOf !== undefined && { credentialsOf }),
    ...(readTimeout !== undefined &&
      { readTimeout: validateNullableTimeout("readTimeout", readTimeout) }),
    ...(totalTimeout !== undefined &&
      { totalTimeout: validateNullableTimeout("totalTimeout", totalTimeout) }),
  };
}

function checkCallback(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== "function") {
    throw new TypeError(`Invalid ${name}: expected a function`);
  }
}

/**
 * `request` for a client with `config`: its URL resolved against the base
 * URL (absolute, http(s)), the URL's user-info moved to `auth` (unless it
 * has one), the default headers merged under its own, an
 * `Idempotency-Key` for every attempt of a POST or PATCH the retry policy
 * retries, unless it has one, and its JSON body in the client's style. A
 * request that needs none of this is returned as it is.
 *
 * @throws {HttpClientException} When the URL is relative without a base
 * URL, invalid, or not http(s).
 *
 * @example Prepare a POST for a client that retries POSTs
 * ```ts
 * import { HttpClientConfigBuilder, HttpRequest } from "@fetchline/fetchline";
 * import { prepareRequest } from "./call.ts";
 * import assert from "node:assert/strict";
 *
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl("http://ada:s3cret@127.0.0.1:8080/api")
 *   .withHeaders({ Accept: "application/json" })
 *   .withRetry({ methods: ["GET", "POST"] })
 *   .build();
 * const prepared = prepareRequest(new HttpRequest("POST", "/users"), config);
 * assert.equal(prepared.url, "http://127.0.0.1:8080/api/users");
 * assert.deepEqual(prepared.auth, ["ada", "s3cret"]);
 * assert.equal(prepared.headers?.["Accept"], "application/json");
 * assert.match(prepared.headers?.["Idempotency-Key"] ?? "", /^[0-9a-f-]{36}$/);
 * ```
 */
export function prepareRequest(
  request: HttpRequest,
  config: Pick<HttpClientConfig, "baseUrl" | "headers" | "retry" | "jsonStyle">,
): HttpRequest {
  const absolute = resolveUrl(config.baseUrl, request.url);
  if (absolute === undefined) {
    throw failure(request, "Cannot resolve a relative URL without a base URL");
  }
  let auth = request.auth;
  let target = absolute;
  const url = PLAIN_URLS.has(absolute) ? undefined : URL.parse(absolute);
  if (url === null) throw failure(request, "Invalid URL");
  if (url !== undefined && url.protocol !== "http:" && url.protocol !== "https:") {
    throw failure(request, `Unsupported URL scheme ${JSON.stringify(url.protocol)}`);
  }
  if (url === undefined || (url.username === "" && url.password === "")) {
    if (url !== undefined) rememberPlain(absolute);
  } else {
    try {
      auth ??= [decodeURIComponent(url.username), decodeURIComponent(url.password)];
    } catch {
      throw failure(request, "Invalid URL");
    }
    url.username = "";
    url.password = "";
    target = url.href;
  }
  const defaults = config.headers;
  let headers = Object.keys(defaults).length === 0
    ? request.headers
    : mergeHeaders(defaults, request.headers ?? {});
  if (
    needsIdempotencyKey(config.retry, request.method) &&
    headerValue(headers, "Idempotency-Key") === undefined
  ) {
    headers = { ...headers, "Idempotency-Key": crypto.randomUUID() };
  }
  const prepared = target === request.url && headers === request.headers && auth === request.auth
    ? request
    : request.with({ url: target, headers, auth });
  // A configuration made by hand in JavaScript may have no style: the default's.
  return inJsonStyle(prepared, config.jsonStyle ?? "python");
}

function failure(request: HttpRequest, reason: string): HttpClientException {
  return new HttpClientException(`${reason}: ${describeCall(request)}`, { request });
}

/**
 * Absolute http(s) URLs parsed before, valid and without user-info: a
 * client calling the same URLs again does not parse them again (the parse
 * is a call into the runtime). Kept few and short, so it never grows.
 * Measured (Deno 2.9.6, `deno bench`, 2-core VM): `URL.parse` of such a URL
 * takes 270–530 ns, a cached prepareRequest() of it 74 ns; a client's whole
 * CPU per call is about 5 µs.
 */
const PLAIN_URLS = new Set<string>();
const PLAIN_URLS_KEPT = 64;
const PLAIN_URL_LENGTH = 2048;

function rememberPlain(url: string): void {
  if (url.length > PLAIN_URL_LENGTH) return;
  if (PLAIN_URLS.size >= PLAIN_URLS_KEPT) PLAIN_URLS.clear();
  PLAIN_URLS.add(url);
}

/**
 * True when calls of `method` need an `Idempotency-Key`: the retry policy
 * may retry them although the method is not idempotent (a POST or PATCH it
 * opted in, or any with a `shouldRetry`), so the server can tell a retry
 * from a new call.
 */
function needsIdempotencyKey(policy: RetryPolicy, method: HttpMethod): boolean {
  return policy.maxRetries > 0 && (method === "POST" || method === "PATCH") &&
    (policy.methods.has(method) || policy.shouldRetry !== undefined);
}
