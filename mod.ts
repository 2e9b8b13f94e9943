/**
 * fetchline: an HTTP client for Deno, Node, Bun, browsers and Cloudflare
 * Workers, with immutable requests and responses, a per-client connection
 * pool (on Deno and Node), timeouts that cover the whole exchange, and
 * redirects followed by the client itself.
 *
 * For: every call. Start with the [README](./README.md); a guide per task in
 * [docs/](./docs/): [requests](./docs/requests.md),
 * [errors and retries](./docs/errors-and-retries.md),
 * [timeouts](./docs/timeouts-and-limits.md), [streaming](./docs/streaming.md),
 * [authentication](./docs/authentication.md), [network](./docs/network.md),
 * [runtimes](./docs/runtimes.md).
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

// The spec's entry points' names, re-exported from where they live rather than
// through models.ts, config.ts, interfaces.ts and utils.ts: four modules fewer
// for every importer of mod.ts to load (a cold JSR cache fetches each one).
export { HttpMethod, HttpRequest } from "./src/models/request.ts";
export type {
  FileValue,
  FormValue,
  HttpRequestFields,
  HttpRequestInit,
  QueryScalar,
  QueryValue,
  RequestBody,
} from "./src/models/request.ts";
export { HttpResponse } from "./src/models/response.ts";
export type {
  HttpResponseInit,
  ResponseContext,
  StandardSchemaIssue,
  StandardSchemaResult,
  StandardSchemaV1,
  StreamedHttpResponse,
} from "./src/models/response.ts";
export type {
  EventsOptions,
  SchemaOutput,
  TypedEventsOptions,
  TypedLinesOptions,
  TypedServerSentEvent,
} from "./src/models/response.ts";
export type { ResponseTimings } from "./src/models/timings.ts";
export type { ProblemDetails } from "./src/http/problem.ts";
export type { Duration } from "./src/models/duration.ts";
export { FetchContext, RequestContext } from "./src/models/context.ts";
export type { FetchContextOptions, RequestContextOptions } from "./src/models/context.ts";
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
export type { FetchLike } from "./src/transport/types.ts";
export type {
  ErrorHookInterface,
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
export { serializeJson } from "./src/json/serialize_json.ts";
export { toCurl } from "./src/models/request.ts";
export { shellQuote } from "./src/curl/curl.ts";
export { createClient, HttpClient } from "./src/client/client.ts";
export type { CallOptions, ExtendConfig, RequestOptions } from "./src/client/client.ts";
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
  BlockedDestinationException,
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
export type { ServerSentEvent } from "./src/http/text_stream.ts";
export type { HttpClientExceptionOptions } from "./src/errors.ts";
export type {
  EventStreamExceptionOptions,
  HttpStatusExceptionOptions,
  ResponseExceptionOptions,
  ResponseParseExceptionOptions,
} from "./src/models/response.ts";
