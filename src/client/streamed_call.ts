// The body of a streamed call, after its head: the call's timeout and total
// timeout stop at the head; from there each wait for the next chunk has the
// read timeout, the client's close and the caller's signal still abort the
// exchange, and the call stays in flight until the body is read to its end,
// cancelled or fails. Its failures become the library's exceptions, as the
// exchange's do.

import { streamedResponse } from "../models/response.ts";
import type { HttpResponse } from "../models/response.ts";
import { type StreamedCallOptions, type StreamedExchange, WireBody } from "./wire_body.ts";

/** The streamed response of `exchange`, its body read under `options`. */
export function streamedCall(
  exchange: StreamedExchange,
  options: StreamedCallOptions,
): HttpResponse {
  const body = new WireBody(exchange, options);
  const response = streamedResponse(exchange.init, body);
  bodies.set(response, body);
  return response;
}

/**
 * Calls `listener` once the body of `response` is done; false (calling
 * nothing) when it is not an unread streamed body of this module.
 */
export function whenBodySettled(response: HttpResponse, listener: () => void): boolean {
  const body = bodies.get(response);
  if (body === undefined || body.settled) return false;
  body.listener = listener;
  return true;
}

const bodies = new WeakMap<HttpResponse, WireBody>();
