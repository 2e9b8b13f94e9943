import { describeCall } from "./errors.ts";
import { ResponseException } from "./response_exceptions.ts";
import type { HttpResponse } from "./models/response.ts";

/**
 * A response had a 4xx or 5xx status and the caller asked for that to
 * throw, with {@linkcode HttpResponse.raiseForStatus}. The message names
 * the status, the method and the URL (masked: no user-info, no
 * credential-like query value); `response` is the response, its body as
 * it was (a streamed one unread).
 *
 * @example Read the response of a failed status
 * ```ts
 * import { HttpClientException, HttpRequest, HttpResponse, HttpStatusException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("POST", "http://127.0.0.1/orders?api_key=k3y");
 * const response = new HttpResponse({
 *   statusCode: 503, headers: {}, content: new TextEncoder().encode("busy"), elapsedMs: 1,
 *   url: request.url, request,
 * });
 * assert.throws(() => response.raiseForStatus(), (error: unknown) => {
 *   assert.ok(error instanceof HttpStatusException && error instanceof HttpClientException);
 *   assert.equal(
 *     String(error),
 *     "HttpStatusException: Server error (status 503): POST http://127.0.0.1/orders?api_key=***",
 *   );
 *   return error.response.text === "busy";
 * });
 * ```
 */
export class HttpStatusException extends ResponseException {
  /** The response whose status failed. */
  declare readonly response: HttpResponse;
}

/**
 * The exception {@linkcode HttpResponse.raiseForStatus} throws for
 * `response`: `Client error (status 404): GET <url>` for 4xx, `Server
 * error` for 5xx, the URL masked.
 */
export function httpStatusError(response: HttpResponse): HttpStatusException {
  const kind = response.statusCode < 500 ? "Client error" : "Server error";
  return new HttpStatusException(
    `${kind} (status ${response.statusCode}): ${describeCall(response.request, response.url)}`,
    { response },
  );
}
