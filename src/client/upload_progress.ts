// The request body of one exchange on its way to the transport. A stream
// body is read through a watch (transport/body.ts): when its source fails,
// the exchange fails with that, not with the transport's report of it.
//
// Upload progress: only the bytes handed to the transport
// can be counted, not those the server received. A body of known size
// (string, bytes, Blob, a multipart body of Blobs) is sent as it is, so it
// keeps its Content-Length: the callback is told at the start (0 bytes) and,
// once the response head has arrived, at the end. A stream body is read
// through a counter: at the start, after each chunk the transport pulls,
// and at its end, with the total from the start when its length is known
// (a multipart body reading files). A callback that throws fails the exchange with its error
// and drops the connection.

import type { Abort } from "./deadline/abort.ts";
import {
  bodySize,
  countedUpload,
  type ProgressCallback,
  ProgressFailure,
  report,
  reportEnd,
  watchedUpload,
} from "../transport/body.ts";
import type { RequestBodyFailure } from "../transport/failures.ts";
import type { Transport, WireRequest, WireResponse } from "../transport/types.ts";

/**
 * Sends `wire` through `transport`, telling `callback`, when given, how far
 * its body went. A stream body whose source fails fails the exchange with a
 * {@linkcode RequestBodyFailure}, whatever the transport made of it.
 */
export async function sendBody(
  wire: WireRequest,
  abort: Abort,
  transport: Transport,
  callback: ProgressCallback | undefined,
): Promise<WireResponse> {
  const { body } = wire;
  if (!(body instanceof ReadableStream)) {
    return callback === undefined
      ? await transport(wire, abort)
      : await sendCounted(wire, abort, transport, callback);
  }
  const failed: { failure?: RequestBodyFailure } = {};
  const watched = { ...wire, body: watchedUpload(body, failed) };
  try {
    return callback === undefined
      ? await transport(watched, abort)
      : await sendCounted(watched, abort, transport, callback);
  } catch (error) {
    throw failed.failure ?? error;
  }
}

/** Sends `wire` through `transport`, telling `callback` how far its body went. */
async function sendCounted(
  wire: WireRequest,
  abort: Abort,
  transport: Transport,
  callback: ProgressCallback,
): Promise<WireResponse> {
  const { body } = wire;
  if (body === undefined) return await transport(wire, abort);
  const size = wire.bodyLength ?? bodySize(body);
  try {
    report(callback, 0, size);
  } catch (error) {
    // The caller's stream is never sent: given up with the callback's error, so its source closes.
    if (body instanceof ReadableStream) {
      const reason = error instanceof ProgressFailure ? error.error : error;
      await body.cancel(reason).catch(() => {});
    }
    throw error;
  }
  const failed: { failure?: ProgressFailure } = {};
  const sent = body instanceof ReadableStream
    ? { ...wire, body: countedUpload(body, callback, failed, size) }
    : wire;
  let response: WireResponse;
  try {
    response = await transport(sent, abort);
  } catch (error) {
    throw failed.failure ?? error;
  }
  try {
    if (failed.failure !== undefined) throw failed.failure;
    if (size !== undefined && sent === wire) reportEnd(callback, size);
  } catch (error) {
    // The response is not read: its body is cancelled with a reason, which drops the connection.
    await response.body?.cancel(error).catch(() => {});
    throw error;
  }
  return response;
}
