// The builder's last check: network settings the client could not apply
// are refused at `build()`, never ignored.

import { runtime } from "../transport/runtime.ts";
import { type RuntimeGlobals, runtimeName } from "../transport/failures.ts";

/**
 * Refuses, at `build()`, network settings the client could not apply: with
 * a custom `withFetch` transport (which has no pool to give them to), or on
 * a runtime without a pool API (a browser, say), rather than ignore them.
 */
export function checkNetwork(
  config: {
    readonly tls?: unknown;
    readonly fetch?: unknown;
    readonly proxy?: unknown;
    readonly cookies?: unknown;
  },
  scope?: RuntimeGlobals,
): void {
  checkCookies(config, scope);
  if (config.proxy) {
    if (config.fetch !== undefined) {
      throw new TypeError(
        "Invalid proxy: a custom fetch (withFetch()) sends without the pool's proxy",
      );
    }
    if (!runtime.pooled) {
      throw new TypeError(
        `Invalid proxy: ${runtimeName()} has no connection pool to send through it`,
      );
    }
  }
  if (config.tls === undefined) return;
  if (config.fetch !== undefined) {
    throw new TypeError(
      "Invalid tls: a custom fetch (withFetch) cannot apply withTls(); configure TLS in that fetch",
    );
  }
  if (!runtime.pooled) {
    throw new TypeError(
      `Invalid tls: ${runtimeName()} has no connection pool API to apply withTls()`,
    );
  }
}

/**
 * A browser's fetch (a page's or a web worker's) never shows a response's
 * Set-Cookie and drops a Cookie header it is given: a jar there would keep
 * nothing and send nothing, in silence. Cookies are the browser's own, so a
 * jar is refused; a custom `withFetch` may be another fetch, and keeps it.
 */
function checkCookies(
  config: { readonly fetch?: unknown; readonly cookies?: unknown },
  scope?: RuntimeGlobals,
): void {
  if (config.cookies === undefined || config.fetch !== undefined) return;
  const name = runtimeName(scope);
  if (name === "a browser" || name === "a web worker") {
    throw new TypeError(
      `Invalid cookies: ${name} keeps cookies itself (its fetch hides Set-Cookie and ` +
        "drops a Cookie header); leave them to it and do not call withCookies()",
    );
  }
}
