/**
 * The value objects: {@linkcode HttpMethod}, the immutable
 * {@linkcode HttpRequest} and {@linkcode HttpResponse}, and the mutable
 * {@linkcode RequestContext} and {@linkcode FetchContext}.
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

export { HttpMethod } from "./src/models/http_method.ts";
export { HttpRequest } from "./src/models/request.ts";
export type {
  FileValue,
  FormValue,
  HttpRequestFields,
  HttpRequestInit,
  QueryScalar,
  QueryValue,
  RequestBody,
} from "./src/models/request_fields.ts";
export { HttpResponse } from "./src/models/response.ts";
export type { HttpResponseInit } from "./src/models/response.ts";
export type {
  StandardSchemaIssue,
  StandardSchemaResult,
  StandardSchemaV1,
} from "./src/models/standard_schema.ts";
export { RequestContext } from "./src/models/request_context.ts";
export type { RequestContextOptions } from "./src/models/request_context.ts";
export { FetchContext } from "./src/models/fetch_context.ts";
export type { FetchContextOptions } from "./src/models/fetch_context.ts";
