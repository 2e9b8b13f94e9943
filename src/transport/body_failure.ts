// A request body whose own source fails as it is sent: the caller's stream,
// or a file read for a multipart body. That is the caller's failure, not the
// network's, though a transport reports it as its own ("fetch failed", with
// a copy of the error, or undici's error): the body is read through a watch
// that keeps the source's error, for the send path to tell it apart.

import { uploadReader } from "./byte_stream.ts";

/** The source of a request body failed with `error` while the transport read it. */
export class RequestBodyFailure extends Error {
  /** @param error What the source failed with. */
  constructor(readonly error: unknown) {
    super("Request body failed");
    this.name = "RequestBodyFailure";
  }
}

/**
 * `body` read through a watch: a read of it that fails errors this stream
 * with the same error, and keeps a {@linkcode RequestBodyFailure} in
 * `failed`, for the exchange to throw instead of the transport's error.
 */
export function watchedUpload(
  body: ReadableStream<Uint8Array>,
  failed: { failure?: RequestBodyFailure },
): ReadableStream<Uint8Array> {
  // A byte stream (a file's) is read in small chunks of our own (see uploadReader).
  const reader = uploadReader(body);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        failed.failure ??= new RequestBodyFailure(error);
        throw error;
      }
      if (result.done) controller.close();
      else controller.enqueue(result.value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}
