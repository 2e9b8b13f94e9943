// The configuration of a derived client (`HttpClient.extend()`): the
// parent's, changed by the caller's function of a builder started from it.

import { frozenConfig, HttpClientConfigBuilder } from "../config/config.ts";
import type { HttpClientConfig } from "../config/config.ts";

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
  if (returned === undefined) return authScoped(config, builder.build());
  if (returned instanceof HttpClientConfigBuilder) return authScoped(config, returned.build());
  throw new TypeError("Invalid extend: expected the function to return the config builder");
}

/** The derived configuration with the auth scope its auth hook has: the parent's, or a new one. */
function authScoped(parent: HttpClientConfig, derived: HttpClientConfig): HttpClientConfig {
  return derived.authHook === parent.authHook
    ? keepAuthOrigin(parent, derived)
    : newAuthScope(parent, derived);
}

/**
 * An auth hook set by the derived builder (`withAuthHook`, `withTokenAuth`)
 * starts a new auth scope: the origins that builder names with
 * `withAuthOrigins`, else the defaults (the base URL's origin). The
 * parent's list was given for the parent's credentials, never for these.
 */
function newAuthScope(parent: HttpClientConfig, derived: HttpClientConfig): HttpClientConfig {
  // The builder's withAuthOrigins() makes a new set: the same one is the parent's.
  if (derived.authOrigins === undefined || derived.authOrigins !== parent.authOrigins) {
    return derived;
  }
  const { authOrigins: _parents, ...rest } = derived;
  return frozenConfig(rest);
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
  if (derived.authHook === undefined) return derived;
  if (derived.authOrigins !== parent.authOrigins || parent.authOrigins !== undefined) {
    return derived;
  }
  // Without a base URL the parent's hook follows each call's own origin: nothing to pin.
  if (parent.baseUrl === undefined) return derived;
  const origin = new URL(parent.baseUrl).origin;
  if (derived.baseUrl !== undefined && new URL(derived.baseUrl).origin === origin) return derived;
  return HttpClientConfigBuilder.from(derived).withAuthOrigins([origin]).build();
}
