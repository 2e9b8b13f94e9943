// The exceptions that carry a response: a body that is not the JSON (or the
// shape) expected, an event stream that cannot start, and (in
// http_status_exception.ts) a 4xx or 5xx status the caller chose to raise.

import type { HttpResponse } from "./models/response.ts";
import type { StandardSchemaIssue } from "./models/standard_schema.ts";
import { HttpClientException } from "./errors.ts";
import type { HttpClientExceptionOptions } from "./errors.ts";

/** Options of an exception that carries a response. */
export interface ResponseExceptionOptions extends HttpClientExceptionOptions {
  /** The response the exception is about. */
  response: HttpResponse;
}

/**
 * The shape every exception about a response shares: `response`, and the
 * response's request as `request`. Its view (`console.log()`,
 * `JSON.stringify()`) shows the response through the response's own masked
 * view, as every field of an exception is shown.
 *
 * @example Catch any exception that carries a response
 * ```ts
 * import { HttpRequest, HttpResponse, ResponseException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("GET", "http://127.0.0.1/");
 * const response = new HttpResponse({
 *   statusCode: 500, headers: {}, content: new Uint8Array(), elapsedMs: 1, url: request.url, request,
 * });
 * assert.throws(
 *   () => response.raiseForStatus(),
 *   (error: unknown) => error instanceof ResponseException && error.response === response,
 * );
 * ```
 */
export abstract class ResponseException extends HttpClientException {
  /** The response the exception is about. */
  readonly response: HttpResponse;

  /**
   * Creates an exception.
   *
   * @param message What went wrong, naming the method and URL.
   * @param options The response, and the underlying error as `cause`.
   */
  constructor(message: string, options: ResponseExceptionOptions) {
    super(message, { request: options.response.request, cause: options.cause });
    this.response = options.response;
  }
}

/** Options of a {@linkcode ResponseParseException}. */
export interface ResponseParseExceptionOptions extends ResponseExceptionOptions {
  /** The response whose body could not be parsed. */
  response: HttpResponse;
  /**
   * The issues a Standard Schema validator reported, when the body was JSON
   * but did not match the schema given to {@linkcode HttpResponse.json}.
   */
  issues?: readonly StandardSchemaIssue[] | undefined;
}

/**
 * {@linkcode HttpResponse.json} was called and the body is not valid JSON.
 * The response is kept on the exception, so nothing is lost.
 *
 * @example Read the body that failed to parse
 * ```ts
 * import { HttpRequest, HttpResponse, ResponseParseException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const response = new HttpResponse({
 *   statusCode: 200,
 *   headers: {},
 *   content: new TextEncoder().encode("not json"),
 *   elapsedMs: 1,
 *   url: "http://127.0.0.1/",
 *   request: new HttpRequest("GET", "http://127.0.0.1/"),
 * });
 * assert.throws(() => response.json(), (error: unknown) => {
 *   assert.ok(error instanceof ResponseParseException);
 *   assert.equal(error.response.text, "not json");
 *   return true;
 * });
 * ```
 */
export class ResponseParseException extends ResponseException {
  /**
   * The issues a Standard Schema validator reported (each a `message` and
   * maybe a `path`), or `undefined` when the body was not JSON. The
   * exception's message names their paths; views (`console.log()`,
   * `JSON.stringify()`) leave the issues out, as an issue's message may
   * quote the body, which no view shows.
   */
  readonly issues?: readonly StandardSchemaIssue[];

  /**
   * Creates an exception.
   *
   * @param message What went wrong.
   * @param options The response, the parser's error as `cause`, the validator's `issues`.
   */
  constructor(message: string, options: ResponseParseExceptionOptions) {
    super(message, options);
    // Not enumerable: views show the fields of an exception, and an issue's
    // message may quote the body, which no view shows.
    if (options.issues !== undefined) {
      Object.defineProperty(this, "issues", { value: options.issues, enumerable: false });
    }
  }
}

/** Options of an {@linkcode EventStreamException}. */
export interface EventStreamExceptionOptions extends ResponseExceptionOptions {
  /** The response the event stream was refused with, its body not read. */
  response: HttpResponse;
}

/**
 * An event stream of `client.events()` was refused by the server's answer,
 * as EventSource fails the connection, and is not reconnected: a status
 * other than 2xx (204 ends the stream without an error), or a Content-Type
 * other than `text/event-stream`. The message names the status or the type,
 * the method and the URL (masked); `response` is the answer, its body
 * cancelled unread.
 *
 * @example Tell a refused event stream from other failures
 * ```ts
 * import { EventStreamException, HttpClientException, HttpRequest, HttpResponse } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("GET", "http://127.0.0.1/events");
 * const response = new HttpResponse({
 *   statusCode: 401,
 *   headers: {},
 *   content: new Uint8Array(0),
 *   elapsedMs: 1,
 *   url: request.url,
 *   request,
 * });
 * const error = new EventStreamException("Event stream refused (status 401): GET http://127.0.0.1/events", {
 *   response,
 * });
 * assert.ok(error instanceof HttpClientException);
 * assert.equal(error.response.statusCode, 401);
 * ```
 */
export class EventStreamException extends ResponseException {
  /** The response the event stream was refused with, its body not read. */
  declare readonly response: HttpResponse;
}
