// An event stream the server's answer refused: an exception that carries a
// response, thrown by the event stream reader (client/event_stream.ts).

import {
  type HttpResponse,
  ResponseException,
  type ResponseExceptionOptions,
} from "./models/response.ts";

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
