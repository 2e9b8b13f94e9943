/**
 * The value objects: {@linkcode HttpMethod}, the immutable
 * {@linkcode HttpRequest} and {@linkcode HttpResponse}, and the mutable
 * {@linkcode RequestContext} and {@linkcode FetchContext}.
 *
 * For: building a request by hand, reading a response, and typing code
 * that passes them around. Guide: [docs/requests.md](./docs/requests.md).
 *
 * @example Build a request
 * ```ts
 * import { HttpRequest } from "@fetchline/fetchline/models";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("get", "/users", { params: { page: 1 } });
 * assert.equal(request.method, "GET");
 * ```
 *
 * @module
 */

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
export type { ResponseTimings } from "./src/models/timings.ts";
export type { ProblemDetails } from "./src/http/problem.ts";
export { FetchContext, RequestContext } from "./src/models/context.ts";
export type { FetchContextOptions, RequestContextOptions } from "./src/models/context.ts";
