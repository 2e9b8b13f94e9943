/**
 * Configuration: {@linkcode HttpClientConfigBuilder}, the frozen
 * {@linkcode HttpClientConfig} it builds, and {@linkcode TokenData}.
 *
 * For: a client configured once (base URL, timeouts, retries, hooks, auth,
 * proxies, TLS, cookies, middleware). Guides:
 * [docs/requests.md](./docs/requests.md),
 * [docs/timeouts-and-limits.md](./docs/timeouts-and-limits.md).
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

export { HttpClientConfigBuilder } from "./src/config/config.ts";
export type {
  CredentialHeadersOptions,
  HttpClientConfig,
  LoggingOptions,
  TokenAuthOptions,
} from "./src/config/config.ts";
export type { NetworkPolicyOptions, ProxyOptions, TlsOptions } from "./src/config/network.ts";
export type {
  RetryBudgetHook,
  RetryOptions,
  RetryPolicy,
  ShouldRetryInfo,
} from "./src/config/config.ts";
export type { CookieJarLike } from "./src/cookies/jar.ts";
export type { NetworkPolicy, PoolOptions, ProxySetting } from "./src/transport/types.ts";
export { TokenData } from "./src/models/token_data.ts";
export type { TokenDataInit } from "./src/models/token_data.ts";
