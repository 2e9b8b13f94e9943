// What console.log() and JSON.stringify() show of a configuration: the base
// URL's user-info, credential-like default headers and pool options (a
// proxy's `basicAuth`, a proxy URL's user-info) and the TLS `key` masked; a
// cookie jar by name only.

import type { HttpClientConfig } from "./http_client_config.ts";
import { maskDeepForView, maskHeadersForView, redactUrl } from "../masking/views.ts";
import { tlsView } from "./tls.ts";

type Inspect = (value: unknown, options?: unknown) => string;

/** The masked view of a configuration, a plain object. */
export function configView(config: HttpClientConfig): Record<string, unknown> {
  return {
    ...config,
    baseUrl: config.baseUrl === undefined ? undefined : redactUrl(config.baseUrl),
    headers: maskHeadersForView(config.headers),
    pool: config.pool === undefined ? undefined : maskDeepForView(config.pool, true),
    tls: config.tls === undefined ? undefined : tlsView(config.tls),
    authOrigins: config.authOrigins === undefined ? undefined : [...config.authOrigins],
    // A jar holds the session's cookies: it is named, never shown.
    cookies: typeof config.cookies === "object" ? "[cookie jar]" : config.cookies,
  };
}

/**
 * Gives a built configuration (a frozen plain object) a masked
 * `console.log()` view and `toJSON()`. The properties are not enumerable,
 * so a spread copy of the configuration does not carry them.
 */
export function withRedactedView<T extends HttpClientConfig>(config: T): T {
  const show = (inspect: Inspect, options: unknown) =>
    `HttpClientConfig ${inspect(configView(config), options)}`;
  return Object.defineProperties(config, {
    toJSON: { value: () => configView(config) },
    [Symbol.for("Deno.customInspect")]: { value: show },
    [Symbol.for("nodejs.util.inspect.custom")]: {
      value: (_depth: number, options: unknown, inspect: Inspect) => show(inspect, options),
    },
  });
}
