// The body of a streamed call, after its head: the call's timeout and total
// timeout stop at the head; from there each wait for the next chunk has the
// read timeout, the client's close and the caller's signal still abort the
// exchange, and the call stays in flight until the body is read to its end,
// cancelled or fails. Its failures become the library's exceptions, as the
// exchange's do.

import { streamedResponse } from "../models/received_response.ts";
import type { HttpResponse, HttpResponseInit } from "../models/response.ts";
import type { ProgressCallback } from "../transport/progress.ts";
import type { WireResponse } from "../transport/types.ts";
import type { Abort, AbortSources } from "./deadline/abort.ts";
import { WireBody } from "./wire_body.ts";

/** What the body of a streamed call needs besides its response. */
export interface StreamedCallOptions extends AbortSources {
  /** The longest wait for the next chunk, in seconds (`null` or absent: none). */
  readonly readTimeout?: number | null | undefined;
  /** The largest body `read()` buffers, in bytes. */
  readonly maxResponseBytes: number;
  /** Told how far the body has been read: at the first read, after each chunk, at the end. */
  readonly onDownloadProgress?: ProgressCallback | undefined;
}

/** The exchange a streamed body comes from, at its head. */
export interface StreamedExchange {
  /** The response, its body unread. */
  readonly wire: WireResponse;
  /** The exchange's abort, its timeout already stopped. */
  readonly abort: Abort;
  /** The response's fields, but its content. */
  readonly init: Omit<HttpResponseInit, "content">;
  /** Turns what the body's stream throws into the library's exception. */
  readonly toClientError: (error: unknown) => unknown;
  /** When the call's exchange started (`performance.now()`). */
  readonly since: number;
}

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
