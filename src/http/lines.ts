// Text lines out of a streamed body, one chunk at a time. Each chunk is
// scanned once from where the last scan stopped and an unfinished line grows
// only by appending, so the work stays linear in the body however it is cut:
// a long line arriving a byte at a time is never re-scanned. A line is held
// up to a limit, so a body that never ends one cannot fill memory.

import { HttpClientException } from "../errors.ts";

/** A streamed body: a `ReadableStream` or any async iterable of byte chunks. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/**
 * How long a line (and an event's data) may grow, in characters, and the
 * error past it: what is held until a line ends must stay bounded, as a
 * body the server never ends with a line end would otherwise fill memory.
 */
export interface LineLimit {
  /** The most characters; past the longest string a runtime holds, that string's length. */
  readonly max: number;
  /** The error for `what` ("A line", "An event's data") grown past the limit. */
  tooLong(what: string): Error;
}

/**
 * The longest string V8 holds (2^29 - 24 characters, on 64 bits): a longer
 * one is a `RangeError`, so a limit is never above it.
 */
export const MAX_STRING = 2 ** 29 - 24;

/** No limit but a string's own (the limit of a body not from a client's call). */
export const STRING_LIMIT: LineLimit = {
  max: MAX_STRING,
  tooLong: (what) =>
    new HttpClientException(`${what} of the body is longer than a string can hold`),
};

/**
 * `held + text` where `held` may grow no longer than `limit` allows: throws
 * its error past it, and for a `RangeError` of a runtime whose longest
 * string is shorter than V8's.
 */
export function grown(held: string, text: string, limit: LineLimit, what: string): string {
  if (held.length + text.length > Math.min(limit.max, MAX_STRING)) throw limit.tooLong(what);
  try {
    return held + text;
  } catch (error) {
    throw error instanceof RangeError ? limit.tooLong(what) : error;
  }
}

/**
 * The streams whose end was not the body's: a `cancel()` of the response
 * closed them while a read waited. Their text stops mid-way, so an
 * unfinished last line is dropped, not yielded as if it were whole.
 */
export const CUT_SHORT: WeakSet<ReadableStream<Uint8Array>> = new WeakSet();

const LF = 10;
const CR = 13;
const BOM = 0xfeff;

/**
 * The chunks of `source` as they arrive. A `ReadableStream` is read with a
 * reader (not every runtime's types make it async iterable); leaving the loop
 * early cancels it, as `for await` over a stream does.
 */
export async function* byteChunks(source: ByteSource): AsyncGenerator<Uint8Array> {
  if (!(source instanceof ReadableStream)) return yield* source;
  const reader = source.getReader();
  let done = false;
  try {
    while (true) {
      const result = await reader.read();
      if (result.done) break;
      yield result.value;
    }
    done = true;
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * The text of `source` decoded with `charset` as it arrives. The decoder runs
 * in streaming mode, so a character whose bytes are split across chunks comes
 * out whole; a byte order mark opening the body is dropped, once, and
 * malformed bytes become U+FFFD. A charset the runtime does not know is read
 * as UTF-8, as a buffered response's `text` reads it: the label comes from
 * the server.
 */
export async function* decodeText(source: ByteSource, charset?: string): AsyncGenerator<string> {
  // The decoder keeps every U+FEFF and the opening one is dropped here: in
  // streaming mode Deno's decoder also drops one that opens a later chunk.
  const decoder = decoderFor(charset);
  let opening = decoder.encoding.startsWith("utf-");
  for await (const chunk of byteChunks(source)) {
    let text = decoder.decode(chunk, { stream: true });
    if (opening && text !== "") {
      opening = false;
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
    }
    if (text !== "") yield text;
  }
  const rest = decoder.decode();
  if (rest !== "") yield rest;
}

function decoderFor(charset: string | undefined): TextDecoder {
  try {
    return new TextDecoder(charset ?? "utf-8", { ignoreBOM: true });
  } catch {
    return new TextDecoder("utf-8", { ignoreBOM: true });
  }
}

/**
 * The lines of a text arriving in pieces. A line ends at LF or CRLF and is
 * yielded without its ending; a last line without one is yielded too (unless
 * `whole()` says the text was cut short), and an empty text yields nothing. A
 * CR not followed by LF ends nothing and stays in the line. A CR that ends a
 * piece waits for the next one, which may begin with the LF of the same CRLF.
 * A line longer than `limit` throws its error as soon as it is.
 */
export async function* splitLines(
  text: AsyncIterable<string>,
  limit: LineLimit = STRING_LIMIT,
  whole: () => boolean = () => true,
): AsyncGenerator<string> {
  // The unfinished line, built by appending only, and whether a CR cut off
  // the end of the last piece (kept out of `line` until its LF is known).
  let line = "";
  let heldCR = false;
  for await (const piece of text) {
    if (piece === "") continue;
    let start = 0;
    if (heldCR) {
      heldCR = false;
      if (piece.charCodeAt(0) === LF) {
        yield line;
        line = "";
        start = 1;
      } else {
        line = grown(line, "\r", limit, "A line");
      }
    }
    let end: number;
    while ((end = piece.indexOf("\n", start)) !== -1) {
      const cut = end > start && piece.charCodeAt(end - 1) === CR ? end - 1 : end;
      yield grown(line, piece.slice(start, cut), limit, "A line");
      line = "";
      start = end + 1;
    }
    if (start === piece.length) continue;
    heldCR = piece.charCodeAt(piece.length - 1) === CR;
    line = grown(line, piece.slice(start, heldCR ? -1 : undefined), limit, "A line");
  }
  if (!whole()) return;
  if (heldCR) line = grown(line, "\r", limit, "A line");
  if (line !== "") yield line;
}

/**
 * The text lines of a streamed body decoded with `charset` (UTF-8 when not
 * given): a line ends at LF or CRLF and is yielded without its ending, as
 * soon as its ending arrives; a last line without one is still yielded,
 * but for a stream in {@linkcode CUT_SHORT}. A line longer than `limit`
 * throws its error. Leaving the loop early, or a failure, cancels a
 * `ReadableStream` source.
 *
 * @param source The body, as a `ReadableStream` or an async iterable of bytes.
 * @param charset A `TextDecoder` label; one the runtime does not know reads as UTF-8.
 * @param limit The longest line, and the error past it (by default a string's longest).
 * @returns The lines, in order.
 *
 * @example Reading lines split anywhere across chunks
 * ```ts
 * import assert from "node:assert/strict";
 * import { lines } from "./lines.ts";
 *
 * const bytes = new TextEncoder().encode("first\r\nsecond\nlast");
 * const body = ReadableStream.from([bytes.subarray(0, 6), bytes.subarray(6)]);
 * assert.deepEqual(await Array.fromAsync(lines(body)), ["first", "second", "last"]);
 * ```
 */
export function lines(
  source: ByteSource,
  charset?: string,
  limit: LineLimit = STRING_LIMIT,
): AsyncGenerator<string> {
  const whole = () => !(source instanceof ReadableStream && CUT_SHORT.has(source));
  return splitLines(decodeText(source, charset), limit, whole);
}
