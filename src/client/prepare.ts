// Lifecycle step 1, once per call before the first attempt: the request as
// every attempt starts from it.

import type { HttpClientConfig } from "../config/config.ts";
import type { RetryPolicy } from "../config/retry_policy.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { headerValue, mergeHeaders } from "../http/headers.ts";
import { resolveUrl } from "../http/url.ts";
import type { HttpMethod } from "../models/request.ts";
import type { HttpRequest } from "../models/request.ts";

/**
 * Prepares `request` for a client with `config`: its URL resolved against
 * the base URL into an absolute http(s) URL, the URL's user-info moved to
 * `auth` (unless the request has `auth`), the default headers merged under
 * its own, and an `Idempotency-Key` added to a POST or PATCH the retry
 * policy retries ({@linkcode needsIdempotencyKey}), unless it has one; the
 * same key serves every attempt. A request that needs none of this is
 * returned as it is.
 *
 * @throws {HttpClientException} When the URL is relative without a base
 * URL, invalid, or not http(s).
 *
 * @example Prepare a POST for a client that retries POSTs
 * ```ts
 * import { HttpClientConfigBuilder, HttpRequest } from "@fetchline/fetchline";
 * import { prepareRequest } from "./prepare.ts";
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
  config: Pick<HttpClientConfig, "baseUrl" | "headers" | "retry">,
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
  if (target === request.url && headers === request.headers && auth === request.auth) {
    return request;
  }
  return request.with({ url: target, headers, auth });
}

function failure(request: HttpRequest, reason: string): HttpClientException {
  return new HttpClientException(`${reason}: ${describeCall(request)}`, { request });
}

/**
 * Absolute http(s) URLs parsed before, valid and without user-info: a
 * client calling the same URLs again does not parse them again (the parse
 * is a call into the runtime). Kept few and short, so it never grows.
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
 * retries them although the method is not idempotent (a POST or PATCH it
 * opted in), so the server can tell a retry from a new call.
 */
export function needsIdempotencyKey(policy: RetryPolicy, method: HttpMethod): boolean {
  return policy.maxRetries > 0 && (method === "POST" || method === "PATCH") &&
    policy.methods.has(method);
}
