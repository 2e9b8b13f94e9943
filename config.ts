/**
 * Configuration: {@linkcode HttpClientConfigBuilder}, the frozen
 * {@linkcode HttpClientConfig} it builds, and {@linkcode TokenData}.
 *
 * @example Build a configuration
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline/config";
 * import assert from "node:assert/strict";
 *
 * const config = new HttpClientConfigBuilder().withTimeout(10).build();
 * assert.equal(config.timeout, 10);
 * assert.equal(config.maxRedirects, 20);
 * ```
 *
 * @module
 */

export { HttpClientConfigBuilder } from "./src/config/client_config.ts";
export type {
  CookieJarLike,
  HttpClientConfig,
  PoolOptions,
  ProxyOptions,
  TlsOptions,
} from "./src/config/client_config.ts";
export type { ProxySetting } from "./src/transport/types.ts";
export type { LoggingOptions, TokenAuthOptions } from "./src/config/builder_options.ts";
export type { RetryOptions, RetryPolicy } from "./src/config/retry_policy.ts";
export { TokenData } from "./src/config/token_data.ts";
export type { TokenDataInit } from "./src/config/token_data.ts";
