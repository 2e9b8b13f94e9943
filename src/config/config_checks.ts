// The checks of the builder's inputs, each a TypeError naming the field and
// never quoting a credential (URLs are masked).

import { describeType, isPlainRecord, validateUrlText } from "../models/_validate.ts";
import { redactUrl } from "../masking/views.ts";
import type { Middleware } from "../hooks/hook_interfaces.ts";
import type { AuthHookInterface } from "../auth/hooks.ts";
import type { FetchLike, PoolOptions } from "../transport/types.ts";

/** A base URL: an absolute `http:` or `https:` URL, as text the parser keeps as it is. */
export function checkBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== "string" && !(baseUrl instanceof URL)) {
    throw new TypeError(`Invalid baseUrl: expected a string or URL, got ${describeType(baseUrl)}`);
  }
  // Checked before parsing, which would drop a tab, CR or LF silently.
  validateUrlText("baseUrl", String(baseUrl));
  const parsed = URL.parse(String(baseUrl));
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new TypeError(
      `Invalid baseUrl: expected an absolute http: or https: URL, got ${
        JSON.stringify(redactUrl(String(baseUrl)))
      }`,
    );
  }
  return String(baseUrl);
}

/** The TLS options, which `withTls()` sets the same way on every runtime. */
const TLS_POOL_OPTIONS = ["caCerts", "cert", "key"] as const;

/**
 * A frozen copy of the pool options, which must be a plain object. A proxy
 * and TLS options are refused there: they would apply on Deno only, or be
 * spelt and applied differently per runtime (Node's `ca` replaces the
 * default roots); `withProxy()` and `withTls()` set them alike everywhere.
 */
export function checkPool(options: PoolOptions): Readonly<PoolOptions> {
  if (!isPlainRecord(options)) {
    throw new TypeError(`Invalid pool: expected an object, got ${describeType(options)}`);
  }
  if ("proxy" in options) {
    throw new TypeError("Invalid pool: proxy is not a pool option; set it with withProxy()");
  }
  for (const name of TLS_POOL_OPTIONS) {
    if (name in options) {
      throw new TypeError(`Invalid pool: ${name} is a TLS option, set it with withTls()`);
    }
  }
  return Object.freeze({ ...options });
}

/** A custom transport: a function. */
export function checkFetch(fetchLike: FetchLike): FetchLike {
  if (typeof fetchLike !== "function") {
    throw new TypeError(`Invalid fetch: expected a function, got ${describeType(fetchLike)}`);
  }
  return fetchLike;
}

/** A hook of `kind` ("request", "response"…): an object whose `method` is a function. */
export function checkHook<T extends object>(kind: string, hook: T, method: string): T {
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
export function checkMiddleware(middleware: Middleware, index: number): Middleware {
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
export function checkAuthHook(hook: AuthHookInterface): AuthHookInterface {
  for (const method of AUTH_HOOK_METHODS) checkHook("auth", hook, method);
  if (typeof hook.retryStrategy?.shouldRetry !== "function") {
    throw new TypeError("Invalid auth hook: expected a retryStrategy with shouldRetry()");
  }
  return hook;
}

/** The origins of absolute `http:` or `https:` URLs (or origins), as a set. */
export function checkAuthOrigins(origins: Iterable<string | URL>): Set<string> {
  const set = new Set<string>();
  for (const origin of origins) {
    const parsed = URL.parse(String(origin));
    if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
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
