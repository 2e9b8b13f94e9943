/**
 * The contracts a user implements to extend the client: the hooks of the
 * request lifecycle ({@linkcode RequestHookInterface},
 * {@linkcode ResponseHookInterface}, {@linkcode ErrorHookInterface}), the
 * {@linkcode Logger} the logging hooks write to, authentication
 * ({@linkcode AuthHookInterface}, {@linkcode AuthRetryStrategyInterface},
 * {@linkcode TokenManagerInterface} and the abstract {@linkcode BaseAuthHook}),
 * and the transport, {@linkcode FetchLike}.
 *
 * For: writing a hook, an auth hook, a logger, a middleware or a transport
 * of your own. Guides: [docs/requests.md](./docs/requests.md) (hooks,
 * middleware), [docs/authentication.md](./docs/authentication.md).
 *
 * @example Hand the client an in-memory transport
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import type { FetchLike } from "@fetchline/fetchline/interfaces";
 *
 * const inMemory: FetchLike = () => Promise.resolve(Response.json({ ok: true }));
 * const config = new HttpClientConfigBuilder().withFetch(inMemory).build();
 * ```
 *
 * @module
 */

export type { FetchLike } from "./src/transport/types.ts";
export type {
  BodyObserver,
  ErrorHookInterface,
  Exchange,
  ExchangeOutcome,
  ExchangeReason,
  Logger,
  Middleware,
  MiddlewareFunction,
  Next,
  RequestHookInterface,
  ResponseHookInterface,
  RetryInfo,
} from "./src/hooks/hook_interfaces.ts";
export type {
  AuthHookInterface,
  AuthRetryStrategyInterface,
  BaseAuthHookOptions,
  DPoPBinding,
  TokenManagerInterface,
} from "./src/auth/hooks.ts";
export { BaseAuthHook } from "./src/auth/hooks.ts";
