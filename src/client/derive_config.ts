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
  if (returned === undefined) return builder.build();
  if (returned instanceof HttpClientConfigBuilder) return returned.build();
  throw new TypeError("Invalid extend: expected the function to return the config builder");
}
