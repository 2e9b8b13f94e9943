// Buffers a response body under its limit, the same way for every runtime:
// a transport hands over the decoded bytes as a stream (`WireResponse.body`)
// and never reads a whole body itself; this layer alone counts the bytes
// against the limit, stops at once past it, and joins them into one array
// (a BodyBuffer: never much more held than the body itself).

import { BodyBuffer, BodyTooLarge } from "./body_buffer.ts";
import type { WireResponse } from "./types.ts";

/** The size of the one array a body of unknown length is read into, a read at a time. */
const READ_SIZE = 64 * 1024;

/** The read that finds the end of a body of known length, which should bring no more bytes. */
const END_PROBE = 16;

/**
 * Reads the whole (decoded) body of `response`. A Content-Length above
 * `maxBytes` rejects with {@linkcode BodyTooLarge} before reading; a body
 * that passes `maxBytes` as it arrives rejects at once and stops reading.
 * The stream's own failures pass through unchanged.
 */
export async function readBody(response: WireResponse, maxBytes: number): Promise<Uint8Array> {
  const { body } = response;
  if (body === null) return new Uint8Array(0);
  const length = decodedLength(response.headers);
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
function decodedLength(headers: WireResponse["headers"]): number | undefined {
  const get = (name: string) =>
    headers instanceof Headers ? headers.get(name) : headers[name] ?? null;
  const value = get("content-length");
  if (value === null || get("content-encoding") !== null) return undefined;
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
