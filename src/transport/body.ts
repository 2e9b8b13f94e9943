// Bodies on the wire, the same for every runtime: reading a response body
// under its limit into one array, the progress callbacks of both
// directions, reading an upload in small chunks, and
// watching a request body's own source for its failure.

import { Failure, isFailure } from "./failures.ts";
import type { WireResponse } from "./types.ts";

/**
 * The most bytes an upload reads from a byte stream at a time. Every chunk
 * sent is a fresh buffer the transport may keep until it is on the wire
 * (Deno's fetch holds it without copying), so buffers cannot be reused, and
 * the chunks sent are garbage V8 collects only after a few hundred of them:
 * smaller chunks keep that garbage small (64 KiB ones left tens of MiB of
 * it behind) at little cost to throughput.
 */
export const UPLOAD_CHUNK = 32 * 1024;

/** Reads the next chunk of a stream. */
export type ChunkRead = () => Promise<ReadableStreamReadResult<Uint8Array>>;

/**
 * Reads `stream` in chunks of at most {@linkcode UPLOAD_CHUNK} bytes, each
 * in a fresh buffer, where it is a byte stream (a file's is); another
 * stream's chunks are taken as they come. `cancel` gives the stream up.
 */
export function uploadReader(
  stream: ReadableStream<Uint8Array>,
): { read: ChunkRead; cancel: (reason?: unknown) => Promise<void> } {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: read with a default reader below.
  }
  if (byob === undefined) {
    const reader = stream.getReader();
    return { read: () => reader.read(), cancel: (reason) => reader.cancel(reason) };
  }
  const reader = byob;
  return {
    read: () =>
      reader.read(new Uint8Array(UPLOAD_CHUNK)) as Promise<ReadableStreamReadResult<Uint8Array>>,
    cancel: (reason) => reader.cancel(reason),
  };
}

// Upload and download progress: the values a caller's callback gets, and the
// one place a callback is called, so that what it throws fails the exchange
// as it is (marked, so the send path neither wraps nor retries it) and the
// reader that called it drops the connection.

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

/** The progress at `transferred` bytes of `total` (unknown: `undefined`). */
export function progressOf(transferred: number, total: number | undefined): Progress {
  if (total === undefined) return { transferredBytes: transferred };
  const percent = total === 0 ? 1 : Math.min(1, transferred / total);
  return { transferredBytes: transferred, totalBytes: total, percent };
}

/** Calls `callback`; what it throws comes out as a `progress` {@linkcode Failure}. */
export function report(
  callback: ProgressCallback,
  transferred: number,
  total: number | undefined,
): void {
  try {
    callback(progressOf(transferred, total));
  } catch (error) {
    throw new Failure("progress", "Progress callback failed", error);
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

// The one array a buffered response body is collected into, under its
// limit (`readBody` below fills it for every transport). The rule: never
// hold much more than the body itself. A body of known length is read into
// one array of that length; a body of unknown length grows one resizable
// ArrayBuffer in place (the engine reserves address space up to
// `maxByteLength` and commits pages only as they are written), so there is
// no moment holding the chunks and their join, nor an old and a new array
// while growing. The result is that memory, moved to a fixed-length buffer
// where the runtime can: no copy at the end either.

/**
 * The largest `maxByteLength` every supported runtime accepts (Node 20 and
 * 22: 4 GiB). A body past it fails as too large even when the limit is higher.
 */
const MAX_RESERVE = 2 ** 32;

/** The first size a growing buffer takes: most bodies of two chunks or more fit. */
const FIRST_GROWTH = 64 * 1024;

/** The ES2024 resizable `ArrayBuffer`, typed here for builds whose lib predates it. */
interface ResizableBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}

/**
 * The memory of `buffer` as a fixed-length buffer: a spec-conforming Web API
 * (a browser's TextDecoder, Blob, crypto) refuses a view of a resizable one.
 * V8 moves the memory without a copy; Node 20 has no `transferToFixedLength`
 * and its APIs take a resizable buffer, which is kept there.
 */
function fixedLength(buffer: ResizableBuffer): ArrayBuffer {
  const { transferToFixedLength } = buffer as { transferToFixedLength?: () => ArrayBuffer };
  return typeof transferToFixedLength === "function" ? transferToFixedLength.call(buffer) : buffer;
}
const Resizable = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableBuffer;

/**
 * A body being collected. `append()` throws a `too-large` Failure as soon
 * as the limit is passed; `bytes()` gives the body as a plain `Uint8Array`.
 */
export class BodyBuffer {
  /** Bytes appended so far. */
  size = 0;
  readonly #maxBytes: number;
  /** A lone first chunk, kept without copying until a second one comes. */
  #first: Uint8Array | undefined;
  #bytes: Uint8Array | undefined;
  #growable: ResizableBuffer | undefined;

  /**
   * @param maxBytes The limit, in bytes (`Infinity`: none).
   * @param length The body's length when known (an unencoded body's
   * Content-Length, already checked against the limit).
   */
  constructor(maxBytes: number, length?: number) {
    this.#maxBytes = maxBytes;
    if (length !== undefined && length > 0) this.#bytes = new Uint8Array(length);
  }

  /**
   * Adds `chunk`; past the limit, throws a `too-large` Failure and holds
   * nothing more. A `reused` chunk's memory is written again later: it is
   * copied at once.
   */
  append(chunk: Uint8Array, reused = false): void {
    const size = this.size + chunk.byteLength;
    if (size > this.#maxBytes) throw tooLarge(this.#maxBytes);
    if (this.#bytes === undefined && this.#first === undefined) {
      this.#first = reused ? chunk.slice() : chunk;
      this.size = size;
      return;
    }
    if (this.#bytes === undefined || size > this.#bytes.byteLength) this.#grow(size);
    (this.#bytes as Uint8Array).set(chunk, this.size);
    this.size = size;
  }

  /**
   * The unwritten part of a body of known length, for a reader to fill in
   * place (a BYOB read, then {@linkcode BodyBuffer.filled}); `undefined`
   * when the length is unknown or the array is full.
   */
  room(): Uint8Array<ArrayBuffer> | undefined {
    const bytes = this.#bytes;
    if (bytes === undefined || this.#growable !== undefined) return undefined;
    // Without a growable buffer, the array is a plain one of the known length.
    const plain = bytes as Uint8Array<ArrayBuffer>;
    return this.size < plain.byteLength ? plain.subarray(this.size) : undefined;
  }

  /**
   * Takes back the memory of {@linkcode BodyBuffer.room}, which a BYOB read
   * took over and gave back as `filled` (a view of its first bytes).
   */
  filled(filled: Uint8Array): void {
    this.#bytes = new Uint8Array(filled.buffer);
    this.size += filled.byteLength;
  }

  /** The body: a plain `Uint8Array` the caller owns. */
  bytes(): Uint8Array {
    const first = this.#first;
    if (this.#bytes === undefined) {
      if (first === undefined) return new Uint8Array(0);
      // A chunk that is a whole array of its own is returned as it is;
      // a view into a runtime's read buffer (Node's `Buffer`) is copied out.
      return first.constructor === Uint8Array && first.byteOffset === 0 &&
          first.byteLength === first.buffer.byteLength
        ? first
        : new Uint8Array(first);
    }
    const growable = this.#growable;
    if (growable !== undefined) {
      // Gives back the pages reserved past the end of the body.
      growable.resize(this.size);
      this.#growable = undefined;
      this.#bytes = new Uint8Array(fixedLength(growable));
      return this.#bytes;
    }
    return this.size === this.#bytes.byteLength ? this.#bytes : this.#bytes.subarray(0, this.size);
  }

  /** Makes room for `size` bytes: doubling in place, so a body of n bytes takes about log2(n) resizes. */
  #grow(size: number): void {
    let growable = this.#growable;
    if (growable === undefined || size > growable.maxByteLength) {
      const reserve = Math.min(this.#maxBytes, MAX_RESERVE);
      if (size > reserve) throw tooLarge(reserve);
      growable = new Resizable(0, { maxByteLength: reserve });
      this.#growable = growable;
    }
    const held = this.#bytes ?? this.#first as Uint8Array;
    const wanted = Math.max(size, FIRST_GROWTH, 2 * growable.byteLength);
    growable.resize(Math.min(wanted, growable.maxByteLength));
    const bytes = new Uint8Array(growable);
    if (held.buffer !== growable) bytes.set(held.subarray(0, this.size));
    this.#bytes = bytes;
    this.#first = undefined;
  }
}

// Buffers a response body under its limit, the same way for every runtime:
// a transport hands over the decoded bytes as a stream (`WireResponse.body`),
// or reads a body of known length natively (`readAll`), and never limits nor joins a body
// itself; this layer alone counts the bytes against the limit, stops at
// once past it, and joins them into one array (a BodyBuffer: never much
// more held than the body itself).

/** The size of the one array a body of unknown length is read into, a read at a time. */
const READ_SIZE = 64 * 1024;

/** The read that finds the end of a body of known length, which should bring no more bytes. */
const END_PROBE = 16;

/**
 * Reads the whole (decoded) body of `response`. A Content-Length above
 * `maxBytes` rejects with a `too-large` Failure before reading; a body
 * that passes `maxBytes` as it arrives rejects at once and stops reading.
 * The stream's own failures pass through unchanged. (A body read with
 * download progress is read as a streamed one: send/body.ts.)
 */
export async function readBody(response: WireResponse, maxBytes: number): Promise<Uint8Array> {
  const length = decodedLength(response.headers);
  const whole = readWhole(response, maxBytes, length);
  if (whole !== undefined) return checkedLength(await whole, maxBytes);
  const { body } = response;
  if (body === null) return new Uint8Array(0);
  if (length !== undefined && length > maxBytes) {
    const error = tooLarge(maxBytes);
    await body.cancel(error);
    throw error;
  }
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    return await readChunks(body, new BodyBuffer(maxBytes, length));
  }
  return await readInto(reader, new BodyBuffer(maxBytes, length), length);
}

/**
 * The whole body of `response` read natively (`readAll`), when the
 * transport can and its Content-Length is within `maxBytes`; else
 * `undefined`: nothing is read. `body` is not touched: on Deno that makes a
 * stream for nothing. Check the bytes with
 * {@linkcode checkedLength}: a `withFetch` function's response may bring
 * more than it announced.
 */
export function readWhole(
  response: WireResponse,
  maxBytes: number,
  length?: number,
): Promise<Uint8Array> | undefined {
  if (response.readAll === undefined) return undefined;
  length ??= decodedLength(response.headers);
  return length !== undefined && length <= maxBytes ? response.readAll() : undefined;
}

/** `bytes` when within `maxBytes`; else throws a `too-large` Failure. */
export function checkedLength(bytes: Uint8Array, maxBytes: number): Uint8Array {
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

/**
 * Discards the body of `response`: the transport gives the connection back
 * (reading a small rest first where that keeps the connection).
 */
export async function discardBody(response: WireResponse): Promise<void> {
  await response.body?.cancel();
}

/**
 * The length of the decoded body the headers announce: the Content-Length
 * of a body without Content-Encoding (an encoded body's counts the encoded
 * bytes).
 */
export function decodedLength(headers: WireResponse["headers"]): number | undefined {
  const fetched = headers instanceof Headers;
  const value = fetched ? headers.get("content-length") : headers["content-length"] ?? null;
  if (value === null) return undefined;
  if ((fetched ? headers.get("content-encoding") : headers["content-encoding"]) != null) {
    return undefined;
  }
  const length = Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/**
 * Reads a byte stream with its own arrays: a body of known length straight
 * into the one array of that length (no copy), any other into one reused
 * array, copied into the buffer a read at a time. A body of unknown length
 * then costs its size, not its size plus one new chunk a read waiting for
 * the garbage collector (tens of MiB).
 */
async function readInto(
  reader: ReadableStreamBYOBReader,
  buffer: BodyBuffer,
  length: number | undefined,
): Promise<Uint8Array> {
  let spare: Uint8Array<ArrayBuffer> | undefined;
  try {
    for (;;) {
      const room = buffer.room();
      const view = room ?? spare ??
        new Uint8Array(buffer.size === length ? END_PROBE : READ_SIZE);
      const { done, value } = await reader.read(view);
      if (done) return buffer.bytes();
      if (room !== undefined) {
        buffer.filled(value);
        continue;
      }
      buffer.append(value, true);
      // The read took the array's memory over: the next read gets it back.
      spare = value.buffer.byteLength === READ_SIZE ? new Uint8Array(value.buffer) : undefined;
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
}

/** Reads a stream of chunks (not a byte stream: a `withFetch` function's own). */
async function readChunks(body: ReadableStream<Uint8Array>, buffer: BodyBuffer) {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return buffer.bytes();
      buffer.append(value);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
}

// A request body stream on its way to the transport, read through one
// stream of ours: its source's failure kept (a `source` Failure), for the
// send path to tell the caller's failure from the network's, and, where a
// callback asks for upload progress, the bytes counted.

/** What went wrong as an upload was read: its source's failure, its progress callback's. */
export interface UploadFailures {
  /** The caller's stream (or a file read) failed: set at its first failure. */
  source?: Failure;
  /** The progress callback threw. */
  callback?: Failure;
}

/**
 * `body` as the transport reads it, in chunks of our own (see
 * {@linkcode uploadReader}). A read of the source that fails errors this
 * stream with the same error and keeps a `source` {@linkcode Failure} in
 * `failed.source`, for the exchange to throw instead of the transport's
 * error. With `progress`, its callback is called after each chunk the
 * transport pulls (with `total`, when the body's length is known) and at
 * the end; a callback that throws errors the stream with a
 * `progress` Failure (kept in `failed.callback`) and cancels `body`.
 */
export function uploadStream(
  body: ReadableStream<Uint8Array>,
  failed: UploadFailures,
  progress?: { readonly callback: ProgressCallback; readonly total: number | undefined },
): ReadableStream<Uint8Array> {
  const reader = uploadReader(body);
  let transferred = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        failed.source ??= new Failure("source", "Request body failed", error);
        throw error;
      }
      const { done, value } = result;
      try {
        if (done) {
          if (progress !== undefined) reportEnd(progress.callback, transferred);
          controller.close();
          return;
        }
        transferred += value.byteLength;
        controller.enqueue(value);
        if (progress !== undefined) report(progress.callback, transferred, progress.total);
      } catch (error) {
        if (!isFailure(error, "progress")) throw error;
        failed.callback = error;
        await reader.cancel(error.cause).catch(() => {});
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

/** The failure of a body past `maxBytes`: reading stops at once. */
function tooLarge(maxBytes: number): Failure {
  return new Failure(
    "too-large",
    `Response body exceeds ${maxBytes} bytes`,
    undefined,
    String(maxBytes),
  );
}
