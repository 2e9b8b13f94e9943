// Which route of a mock transport answers a call: a method and a URL
// pattern, tried in the order the routes were added.

import type { MockCall } from "./mock_call.ts";

/**
 * An object that says whether a URL matches: a `URLPattern` (Deno,
 * browsers, Node from 23.8), or any object with a `test(url)` method. It
 * is given the call's absolute URL.
 */
export interface UrlMatcher {
  /** True when `url`, an absolute URL, matches. */
  test(url: string): boolean;
}

/**
 * The URLs a route answers:
 * - a string starting with `/`: a path, matched exactly, on any origin;
 * - any other string: an absolute URL, its origin and path matched exactly;
 *
 * either string matches any query unless it has one (`/users?page=2`), which
 * must then be the call's query exactly. A fragment is never compared.
 * - a `RegExp`, tested against the absolute URL (its `g` and `y` flags are
 *   dropped, so a test never depends on the one before);
 * - a {@linkcode UrlMatcher} such as a `URLPattern`.
 */
export type MockPattern = string | RegExp | UrlMatcher;

/** A method and a URL pattern, checked once when the route is added. */
export interface RouteMatcher {
  /** The method, upper-case, or `*` for any. */
  readonly method: string;
  /** The route as the unmatched-request message lists it: `GET /users/1`. */
  readonly label: string;
  /** True when `call` is this route's. */
  matches(call: MockCall): boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A route's matcher for `method` (any case, or `*` for any) and `pattern`.
 *
 * @throws {TypeError} When the method is not a token, or the pattern is
 * neither a path, an absolute URL, a `RegExp` nor a matcher.
 */
export function routeMatcher(method: string, pattern: MockPattern): RouteMatcher {
  if (typeof method !== "string" || !TOKEN.test(method)) {
    throw new TypeError(
      `Invalid route method: expected a method name or "*", got ${
        typeof method === "string" ? JSON.stringify(method) : typeof method
      }`,
    );
  }
  const upper = method.toUpperCase();
  const url = urlTest(pattern);
  return {
    method: upper,
    label: `${upper} ${url.label}`,
    matches: (call) => (upper === "*" || upper === call.method) && url.test(call.url),
  };
}

function urlTest(pattern: MockPattern): { label: string; test: (url: string) => boolean } {
  if (typeof pattern === "string") return stringTest(pattern);
  if (pattern instanceof RegExp) {
    const regExp = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
    return { label: String(regExp), test: (url) => regExp.test(url) };
  }
  if (typeof (pattern as Partial<UrlMatcher> | null)?.test !== "function") {
    throw new TypeError(
      "Invalid route pattern: expected a path, an absolute URL, a RegExp or a URLPattern",
    );
  }
  return { label: matcherLabel(pattern), test: (url) => pattern.test(url) === true };
}

function stringTest(pattern: string): { label: string; test: (url: string) => boolean } {
  const isPath = pattern.startsWith("/");
  let target: URL;
  try {
    target = isPath ? new URL(pattern, "http://path.invalid") : new URL(pattern);
  } catch {
    throw new TypeError(
      "Invalid route pattern: expected a path starting with / or an absolute URL",
    );
  }
  const { origin, pathname, search } = target;
  return {
    label: pattern,
    test(url) {
      const called = new URL(url);
      return called.pathname === pathname && (isPath || called.origin === origin) &&
        (search === "" || called.search === search);
    },
  };
}

/** A URLPattern by its components (`URLPattern(/users/:id)`), another matcher by its class. */
function matcherLabel(pattern: UrlMatcher): string {
  const name = pattern.constructor?.name || "UrlMatcher";
  const { protocol, hostname, pathname } = pattern as {
    protocol?: unknown;
    hostname?: unknown;
    pathname?: unknown;
  };
  if (typeof pathname !== "string") return name;
  const host = typeof hostname === "string" && hostname !== "*"
    ? `${typeof protocol === "string" ? protocol : "*"}://${hostname}`
    : "";
  return `${name}(${host}${pathname})`;
}
