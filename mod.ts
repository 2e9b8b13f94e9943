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
export { createClient, HttpClient } from "./src/client/client.ts";
export type { CallOptions, ExtendConfig, RequestOptions } from "./src/client/client.ts";
export type { EventStream, EventStreamOptions } from "./src/client/event_stream.ts";
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
export { CorrelationIdHook, RateLimitResponseHook } from "./src/hooks/header_hooks.ts";
export type { CorrelationIdHookOptions } from "./src/hooks/header_hooks.ts";
export {
  ApiKeyAuthHook,
  AuthorizationHook,
  BasicAuthHook,
  CompositeAuthHook,
  NoAuthRetryStrategy,
  SimpleAuthRetryStrategy,
  TokenAuthHook,
} from "./src/auth/hooks.ts";
export type {
  ApiKeyAuthHookOptions,
  AuthorizationHookOptions,
  CompositeAuthHookOptions,
  SimpleAuthRetryStrategyOptions,
  TokenAuthHookOptions,
} from "./src/auth/hooks.ts";
export { clientCredentialsStep, TokenManager } from "./src/auth/tokens.ts";
export type {
  ClientCredentialsOptions,
  TokenFetchStep,
  TokenManagerOptions,
} from "./src/auth/tokens.ts";
export {
  AuthenticationException,
  ConnectionException,
  DecodingException,
  HttpClientException,
  ResponseNotReadException,
  TimeoutException,
} from "./src/errors.ts";
export {
  EventStreamException,
  HttpStatusException,
  ResponseException,
  ResponseParseException,
} from "./src/models/response.ts";
export type { ServerSentEvent } from "./src/http/sse.ts";
export type { HttpClientExceptionOptions } from "./src/errors.ts";
export type {
  EventStreamExceptionOptions,
  ResponseExceptionOptions,
  ResponseParseExceptionOptions,
} from "./src/models/response.ts";
