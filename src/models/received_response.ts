// The responses a transport received, made with the constructor parameter
// HttpResponse's public signature does not show (RECEIVED, internal to the
// models): their headers are not copied until read.

import { HttpResponse } from "./response.ts";
import type { HttpResponseInit, StreamedBody } from "./response.ts";
import { NO_CONTENT, RECEIVED } from "./response_parts.ts";

/** The constructor with the parameter its public signature does not show. */
const HttpResponseWithOrigin = HttpResponse as new (
  init: HttpResponseInit,
  origin: typeof RECEIVED,
  streamed?: StreamedBody,
) => HttpResponse;

/** A received {@linkcode HttpResponse} whose body is unread: `content` throws until `read()`. */
export function streamedResponse(
  init: Omit<HttpResponseInit, "content">,
  body: StreamedBody,
): HttpResponse {
  return new HttpResponseWithOrigin({ ...init, content: NO_CONTENT }, RECEIVED, body);
}

/**
 * An {@linkcode HttpResponse} for a response the transport received: its
 * headers are not copied until read (most calls never read them).
 *
 * @param init The fields; `headers` as a transport gives them (`WireHeaders`).
 * @returns The response.
 */
export function receivedResponse(init: HttpResponseInit): HttpResponse {
  return new HttpResponseWithOrigin(init, RECEIVED);
}
