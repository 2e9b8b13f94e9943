// Buffers a response body under its limit, the same way for every runtime:
// a transport hands over the decoded bytes as a stream (`WireResponse.body`),
// or pushes them into a sink given here (`drainTo`), or reads a body of
// known length natively (`readAll`), and never limits nor joins a body
// itself; this layer alone counts the bytes against the limit, stops at
// once past it, and joins them into one array (a BodyBuffer: never much
// more held than the body itself).

import { BodyBuffer, BodyTooLarge } from "./body_buffer.ts";
import type { BodySink, WireResponse } from "./types.ts";
import { type ProgressCallback, report, reportEnd } from "./progress.ts";

/** The size of the one array a body of unknown length is read into, a read at a time. */
const READ_SIZE = 64 * 1024;

/** The read that finds the end of a body of known length, which should bring no more bytes. */
const END_PROBE = 16;

/**
 * Reads the whole (decoded) body of `response`. A Content-Length above
 * `maxBytes` rejects with {@linkcode BodyTooLarge} before reading; a body
 * that passes `maxBytes` as it arrives rejects at once and stops reading.
 * The stream's own failures pass through unchanged. With `onProgress`, the
 * body is read a chunk at a time and the callback is told at the start, after
 * each chunk and at the end (without it, nothing of this costs anything).
 */
export async function readBody(
  response: WireResponse,
  maxBytes: number,
  onProgress?: ProgressCallback,
): Promise<Uint8Array> {
  if (onProgress !== undefined) return await readCounting(response, maxBytes, onProgress);
  const length = decodedLength(response.headers);
  if (response.drainTo !== undefined && (length === undefined || length <= maxBytes)) {
    // The transport pushes the body into one buffer, with no stream at all.
    const sink = new BufferSink(maxBytes, length);
    if (!response.drainTo(sink)) return new Uint8Array(0);
    return sink.result ?? await sink.settled();
  }
  const whole = readWhole(response, maxBytes, length);
  if (whole !== undefined) return checkedLength(await whole, maxBytes);
  const { body } = response;
  if (body === null) return new Uint8Array(0);
  if (length !== undefined && length > maxBytes) {
    const error = new BodyTooLarge(maxBytes);
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
 * stream (and a watched one) for nothing. A transport that pushes its body
 * (`drainTo`) is left to {@linkcode readBody}. Check the bytes with
 * {@linkcode checkedLength}: a `withFetch` function's response may bring
 * more than it announced.
 */
export function readWhole(
  response: WireResponse,
  maxBytes: number,
  length?: number,
): Promise<Uint8Array> | undefined {
  if (response.drainTo !== undefined || response.readAll === undefined) return undefined;
  length ??= decodedLength(response.headers);
  return length !== undefined && length <= maxBytes ? response.readAll() : undefined;
}

/** `bytes` when within `maxBytes`; else throws {@linkcode BodyTooLarge}. */
export function checkedLength(bytes: Uint8Array, maxBytes: number): Uint8Array {
  if (bytes.byteLength > maxBytes) throw new BodyTooLarge(maxBytes);
  return bytes;
}

/**
 * The {@linkcode BodySink} a transport's `drainTo()` fills: a
 * {@linkcode BodyBuffer} made at the first chunk (a response without a body
 * allocates nothing), which refuses the chunk that passes the limit. A body
 * complete before `drainTo()` returns is in `result` with no promise made.
 */
class BufferSink implements BodySink {
  result: Uint8Array | undefined = undefined;
  readonly #maxBytes: number;
  readonly #length: number | undefined;
  #buffer: BodyBuffer | undefined = undefined;
  #error: unknown = undefined;
  #done = false;
  #resolve: ((bytes: Uint8Array) => void) | undefined = undefined;
  #reject: ((error: unknown) => void) | undefined = undefined;

  constructor(maxBytes: number, length: number | undefined) {
    this.#maxBytes = maxBytes;
    this.#length = length;
  }

  write(chunk: Uint8Array): boolean {
    if (this.#done) return false;
    try {
      (this.#buffer ??= new BodyBuffer(this.#maxBytes, this.#length)).append(chunk);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  end(): void {
    if (this.#done) return;
    this.#done = true;
    const bytes = this.#buffer?.bytes() ?? new Uint8Array(0);
    this.#buffer = undefined;
    this.result = bytes;
    this.#resolve?.(bytes);
  }

  fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#buffer = undefined;
    this.#error = error;
    this.#reject?.(error);
  }

  /** The body once complete; rejects with the failure. */
  settled(): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      if (this.result !== undefined) resolve(this.result);
      else if (this.#done) reject(this.#error);
      else {
        this.#resolve = resolve;
        this.#reject = reject;
      }
    });
  }
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

/**
 * Reads the body a chunk at a time, telling `onProgress` at the start (0
 * bytes), after each chunk and at the end. What the callback throws cancels
 * the body with it as the reason (the connection is dropped) and is thrown.
 */
async function readCounting(
  response: WireResponse,
  maxBytes: number,
  onProgress: ProgressCallback,
): Promise<Uint8Array> {
  const { body } = response;
  if (body === null) return new Uint8Array(0);
  const length = decodedLength(response.headers);
  const reader = body.getReader();
  try {
    if (length !== undefined && length > maxBytes) throw new BodyTooLarge(maxBytes);
    const buffer = new BodyBuffer(maxBytes, length);
    report(onProgress, 0, length);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        reportEnd(onProgress, buffer.size);
        return buffer.bytes();
      }
      buffer.append(value);
      report(onProgress, buffer.size, length);
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
}
