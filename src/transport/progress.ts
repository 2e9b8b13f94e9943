// Upload and download progress: the values a caller's callback gets, and the
// one place a callback is called, so that what it throws fails the exchange
// as it is (marked, so the send path neither wraps nor retries it) and the
// reader that called it drops the connection.

import { uploadReader } from "./byte_stream.ts";

/**
 * How far a body has moved: bytes so far, and the total and fraction when
 * the total is known (the call options `onUploadProgress` and
 * `onDownloadProgress` get one at the start, after each chunk, and at the end).
 *
 * @example
 * ```ts
 * import type { Progress } from "@fetchline/fetchline";
 *
 * const show = ({ transferredBytes, percent }: Progress): string =>
 *   percent === undefined ? `${transferredBytes} B` : `${Math.round(percent * 100)} %`;
 * console.assert(show({ transferredBytes: 5, totalBytes: 10, percent: 0.5 }) === "50 %");
 * ```
 */
export interface Progress {
  /** The bytes moved so far (for an upload: handed to the transport). */
  readonly transferredBytes: number;
  /** The body's size, when known. */
  readonly totalBytes?: number;
  /** `transferredBytes / totalBytes`, from 0 to 1 (1 for an empty body), when the total is known. */
  readonly percent?: number;
}

/** A callback that is told how far a body has moved. */
export type ProgressCallback = (progress: Progress) => void;

/** What a progress callback threw, carried through the streams and the transport. */
export class ProgressFailure extends Error {
  /** @param error What the callback threw. */
  constructor(readonly error: unknown) {
    super("Progress callback failed");
  }
}

/** The progress at `transferred` bytes of `total` (unknown: `undefined`). */
export function progressOf(transferred: number, total: number | undefined): Progress {
  if (total === undefined) return { transferredBytes: transferred };
  const percent = total === 0 ? 1 : Math.min(1, transferred / total);
  return { transferredBytes: transferred, totalBytes: total, percent };
}

/** Calls `callback`; what it throws comes out as a {@linkcode ProgressFailure}. */
export function report(
  callback: ProgressCallback,
  transferred: number,
  total: number | undefined,
): void {
  try {
    callback(progressOf(transferred, total));
  } catch (error) {
    throw new ProgressFailure(error);
  }
}

/** Calls `callback` at the end of a body of `transferred` bytes: the total is known now. */
export function reportEnd(callback: ProgressCallback, transferred: number): void {
  report(callback, transferred, transferred);
}

const UTF8 = new TextEncoder();

/** The size of a request body when it is known without reading it (a stream's is not). */
export function bodySize(body: string | Uint8Array | Blob | ReadableStream): number | undefined {
  if (typeof body === "string") return UTF8.encode(body).byteLength;
  if (body instanceof Uint8Array) return body.byteLength;
  if (body instanceof Blob) return body.size;
  return undefined;
}

/**
 * `body` read through a counter: `callback` is called after each chunk the
 * transport pulls (with `total`, when the body's length is known), and at
 * the end. A callback that throws errors the stream with a
 * {@linkcode ProgressFailure} (kept in `failed`, for the exchange to throw)
 * and cancels `body`.
 */
export function countedUpload(
  body: ReadableStream<Uint8Array>,
  callback: ProgressCallback,
  failed: { failure?: ProgressFailure },
  total?: number,
): ReadableStream<Uint8Array> {
  // A file's stream is read in small chunks of our own (see uploadReader).
  const reader = uploadReader(body);
  let transferred = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      try {
        if (done) {
          reportEnd(callback, transferred);
          controller.close();
          return;
        }
        transferred += value.byteLength;
        controller.enqueue(value);
        report(callback, transferred, total);
      } catch (error) {
        if (!(error instanceof ProgressFailure)) throw error;
        failed.failure = error;
        await reader.cancel(error.error).catch(() => {});
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}
