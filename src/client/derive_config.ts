// The configuration of a derived client (`HttpClient.extend()`): the
// parent's, changed by the caller's function of a builder started from it.

import { HttpClientConfigBuilder } from "../config/client_config.ts";
import type { HttpClientConfig } from "../config/http_client_config.ts";

/** The function `HttpClient.extend()` takes: it changes the builder and returns it. */
export type ExtendConfig = (
  builder: HttpClientConfigBuilder,
) => HttpClientConfigBuilder | void;

/**
 * Builds the configuration `configure` makes of a builder started from
 * `config` ({@linkcode HttpClientConfigBuilder.from}).
 *
 * @throws {TypeError} When `configure` is not a function or returns neither
 * a builder nor nothing; what a `with*` call of it throws passes through.
 */
export function deriveConfig(config: HttpClientConfig, configure: ExtendConfig): HttpClientConfig {
  if (typeof configure !== "function") {
    throw new TypeError("Invalid extend: expected a function of the config builder");
  }
  const builder = HttpClientConfigBuilder.from(config);
  const returned: unknown = configure(builder);
  if (returned === undefined) return keepAuthOrigin(config, builder.build());
  if (returned instanceof HttpClientConfigBuilder) return keepAuthOrigin(config, returned.build());
  throw new TypeError("Invalid extend: expected the function to return the config builder");
}

/**
 * The parent's auth hook stays with the parent's origin. Its credentials
 * were given for the parent's base URL; a derived client pointed at another
 * origin must not send them there unless its caller says so, with
 * `withAuthOrigins` or an auth hook of its own. So when the derived client
 * keeps the parent's hook and its default origins (those of the base URL),
 * and its base URL moves to another origin, the parent's origin is pinned.
 */
function keepAuthOrigin(parent: HttpClientConfig, derived: HttpClientConfig): HttpClientConfig {
  if (derived.authHook === undefined || derived.authHook !== parent.authHook) return derived;
  if (derived.authOrigins !== parent.authOrigins || parent.authOrigins !== undefined) {
    return derived;
  }
  // Without a base URL the parent's hook follows each call's own origin: nothing to pin.
  if (parent.baseUrl === undefined) return derived;
  const origin = new URL(parent.baseUrl).origin;
  if (derived.baseUrl !== undefined && new URL(derived.baseUrl).origin === origin) return derived;
  return HttpClientConfigBuilder.from(derived).withAuthOrigins([origin]).build();
}
