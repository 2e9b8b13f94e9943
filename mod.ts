/**
 * fetchline: an HTTP client for Deno, Node, Bun, browsers and Cloudflare
 * Workers, with immutable requests and responses, a per-client connection
 * pool (on Deno and Node), timeouts that cover the whole exchange, and
 * redirects followed by the client itself.
 *
 * @example Send a request
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   (request) => Response.json({ query: new URL(request.url).search }),
 * );
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * const response = await client.get("/items", { params: { page: 2, tag: ["a", "b"] } });
 * assert.deepEqual(response.json(), { query: "?page=2&tag=a&tag=b" });
 * ```
 *
 * @module
 */

export * from "./models.ts";
export * from "./config.ts";
export * from "./interfaces.ts";
export * from "./utils.ts";
export { HttpClient } from "./src/client/http_client.ts";
export { createClient } from "./src/client/create_client.ts";
export type { CallOptions, ExtendConfig, RequestOptions } from "./src/client/http_client.ts";
export type { EventStream } from "./src/client/event_stream.ts";
export type { EventStreamOptions } from "./src/client/event_stream_options.ts";
export type { Progress } from "./src/transport/body.ts";
export {
  LoggingErrorHook,
  LoggingRequestHook,
  LoggingResponseHook,
} from "./src/hooks/logging_hooks.ts";
export type {
  LoggingErrorHookOptions,
  LoggingRequestHookOptions,
  LoggingResponseHookOptions,
} from "./src/hooks/logging_hooks.ts";
export { CorrelationIdHook } from "./src/hooks/correlation_id_hook.ts";
export type { CorrelationIdHookOptions } from "./src/hooks/correlation_id_hook.ts";
export { RateLimitResponseHook } from "./src/hooks/rate_limit_response_hook.ts";
export { TokenAuthHook } from "./src/auth/token_auth_hook.ts";
export type { TokenAuthHookOptions } from "./src/auth/token_auth_hook.ts";
export { ApiKeyAuthHook } from "./src/auth/api_key_auth_hook.ts";
export type { ApiKeyAuthHookOptions } from "./src/auth/api_key_auth_hook.ts";
export { BasicAuthHook } from "./src/auth/basic_auth_hook.ts";
export { CompositeAuthHook } from "./src/auth/composite_auth_hook.ts";
export type { CompositeAuthHookOptions } from "./src/auth/composite_auth_hook.ts";
export { AuthorizationHook } from "./src/auth/authorization_hook.ts";
export type { AuthorizationHookOptions } from "./src/auth/authorization_hook.ts";
export { NoAuthRetryStrategy, SimpleAuthRetryStrategy } from "./src/auth/retry_strategies.ts";
export type { SimpleAuthRetryStrategyOptions } from "./src/auth/retry_strategies.ts";
export { TokenManager } from "./src/auth/token_manager.ts";
export type { TokenFetchStep, TokenManagerOptions } from "./src/auth/token_manager.ts";
export { clientCredentialsStep } from "./src/auth/client_credentials.ts";
export type { ClientCredentialsOptions } from "./src/auth/client_credentials.ts";
export {
  AuthenticationException,
  ConnectionException,
  DecodingException,
  HttpClientException,
  ResponseNotReadException,
  TimeoutException,
} from "./src/errors.ts";
export {
  HttpStatusException,
  ResponseException,
  ResponseParseException,
} from "./src/models/response.ts";
export { EventStreamException } from "./src/event_stream_exception.ts";
export type { ServerSentEvent } from "./src/http/sse.ts";
export type { HttpClientExceptionOptions } from "./src/errors.ts";
export type {
  ResponseExceptionOptions,
  ResponseParseExceptionOptions,
} from "./src/models/response.ts";
export type { EventStreamExceptionOptions } from "./src/event_stream_exception.ts";
