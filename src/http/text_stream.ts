// Text lines and Server-Sent Events out of a streamed body, one chunk at a
// time, in linear time however it is cut, each line held up to a limit so a
// body that never ends one cannot fill memory.

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
  /**
   * The error for `what` ("A line", "An event's data") grown past the limit;
   * `longestString`: it was the longest string a runtime holds that it passed.
   */
  tooLong(what: string, longestString: boolean): Error;
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
  if (held.length + text.length > Math.min(limit.max, MAX_STRING)) {
    throw limit.tooLong(what, limit.max > MAX_STRING);
  }
  try {
    return held + text;
  } catch (error) {
    throw error instanceof RangeError ? limit.tooLong(what, true) : error;
  }
}

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
 * A text arriving in pieces cut anywhere, split into lines. Each piece is
 * scanned once from where the last scan stopped and an unfinished line only
 * grows by appending, so the work stays linear in the text however it is
 * cut (a long line arriving a character at a time is never re-scanned); a
 * line longer than `limit` throws its error as soon as it is. A line ends at
 * LF or CRLF, and with `anyEnd` (event streams) at a lone CR too. A CR that
 * ends a piece may be followed by the LF of the same CRLF in the next one.
 */
class LineSplitter {
  #line = "";
  /** The last piece ended with CR: held out of `#line`, or (`anyEnd`) its end already. */
  #cr = false;
  /** Its own: a shared regex would be moved by another splitter while this one's push() waits. */
  readonly #ends: RegExp;

  constructor(readonly anyEnd: boolean, readonly limit: LineLimit) {
    this.#ends = anyEnd ? /\r\n|\r|\n/g : /\r?\n/g;
  }

  /** The lines `piece` ends, in order, without their endings. */
  *push(piece: string): Generator<string> {
    if (piece === "") return;
    let start = 0;
    if (this.#cr) {
      this.#cr = false;
      if (piece.charCodeAt(0) === LF) {
        start = 1;
        if (!this.anyEnd) yield this.#take("");
      } else if (!this.anyEnd) this.#line = this.#grown("\r");
    }
    const ends = this.#ends;
    ends.lastIndex = start;
    let end: RegExpExecArray | null;
    while ((end = ends.exec(piece)) !== null) {
      const next = ends.lastIndex;
      yield this.#take(piece.slice(start, end.index));
      ends.lastIndex = start = next;
    }
    this.#cr = piece.charCodeAt(piece.length - 1) === CR;
    if (start < piece.length) {
      this.#line = this.#grown(piece.slice(start, this.#cr ? -1 : undefined));
    }
  }

  /** The unfinished last line, once the text ended (a CR held back included); `""` when none. */
  rest(): string {
    return this.#cr && !this.anyEnd ? this.#grown("\r") : this.#line;
  }

  #take(text: string): string {
    const line = this.#grown(text);
    this.#line = "";
    return line;
  }

  #grown(text: string): string {
    return grown(this.#line, text, this.limit, "A line");
  }
}

/**
 * The lines of a text arriving in pieces (see {@linkcode LineSplitter}): a
 * last line without an ending is yielded too, unless `whole()` says the text
 * was cut short; an empty text yields nothing. A CR not followed by LF ends
 * nothing and stays in the line.
 */
export async function* splitLines(
  text: AsyncIterable<string>,
  limit: LineLimit = STRING_LIMIT,
  whole: () => boolean = () => true,
): AsyncGenerator<string> {
  const splitter = new LineSplitter(false, limit);
  for await (const piece of text) yield* splitter.push(piece);
  const rest = whole() ? splitter.rest() : "";
  if (rest !== "") yield rest;
}

/**
 * The text lines of a streamed body decoded with `charset` (UTF-8 when not
 * given): a line ends at LF or CRLF and is yielded without its ending, as
 * soon as its ending arrives; a last line without one is still yielded,
 * unless `whole()` says the text was cut short. A line longer than `limit`
 * throws its error. Leaving the loop early, or a failure, cancels a
 * `ReadableStream` source.
 *
 * @param source The body, as a `ReadableStream` or an async iterable of bytes.
 * @param charset A `TextDecoder` label; one the runtime does not know reads as UTF-8.
 * @param limit The longest line, and the error past it (by default a string's longest).
 * @param whole False once the body's end was not its own (a `cancel()` closed it mid-way).
 * @returns The lines, in order.
 *
 * @example Reading lines split anywhere across chunks
 * ```ts
 * import assert from "node:assert/strict";
 * import { lines } from "./text_stream.ts";
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
  whole: () => boolean = () => true,
): AsyncGenerator<string> {
  return splitLines(decodeText(source, charset), limit, whole);
}

// Server-Sent Events: the `text/event-stream` format as EventSource reads it
// (the rules are listed at events(), below).

/** One dispatched event of an event stream. */
export interface ServerSentEvent {
  /** The `event` field of the event's block, `"message"` when it had none or an empty one. */
  readonly event: string;
  /** The `data` lines of the block joined with LF. */
  readonly data: string;
  /** The last event ID in effect: set by an `id` field, kept until the next one; `""` when none. */
  readonly id: string;
  /** The reconnection time in milliseconds, only when this event's block set it. */
  readonly retry: number | undefined;
}

const DIGITS = /^[0-9]+$/;

/** An event stream parser fed text in pieces cut anywhere, in linear time (a {@linkcode LineSplitter}'s lines). */
export class EventStreamParser {
  readonly #lines: LineSplitter;
  #data = "";
  #eventType = "";
  /** The ID the `id` fields set, even in a block not ended yet. */
  #lastEventId: string;
  /** The ID as of the last blank line: a block the stream ends in the middle of sets nothing. */
  #dispatchedId: string;
  #retry: number | undefined = undefined;
  #reconnectionTime: number | undefined = undefined;

  /**
   * Creates a parser.
   *
   * @param lastEventId The ID in effect before the stream starts: a
   * reconnection carries the ID of the last connection over to events
   * without an `id` field of their own, as browsers do.
   * @param limit The longest line and event's data, and the error past it.
   */
  constructor(lastEventId = "", limit: LineLimit = STRING_LIMIT) {
    this.#lastEventId = this.#dispatchedId = lastEventId;
    this.#lines = new LineSplitter(true, limit);
  }

  /**
   * The last event ID in effect as of the last blank line, also when the
   * block it ended had no data and dispatched nothing: what a reconnection
   * sends as `Last-Event-ID`. An `id` in a block not ended yet does not count.
   */
  get lastEventId(): string {
    return this.#dispatchedId;
  }

  /** The last valid `retry` of the stream, in milliseconds, whether or not its block dispatched. */
  get reconnectionTime(): number | undefined {
    return this.#reconnectionTime;
  }

  /** Parses the next piece of text; returns the events it completed, in order; throws past the limit. */
  push(text: string): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    for (const line of this.#lines.push(text)) this.#interpret(line, events);
    return events;
  }

  #interpret(line: string, events: ServerSentEvent[]): void {
    if (line === "") return this.#dispatch(events);
    const colon = line.indexOf(":");
    if (colon === 0) return; // a comment
    let field = line;
    let value = "";
    if (colon > 0) {
      field = line.slice(0, colon);
      // One space after the colon is part of the syntax, not of the value.
      value = line.slice(line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1);
    }
    switch (field) {
      case "event":
        this.#eventType = value;
        break;
      case "data":
        // The data as dispatched (without the LF after its last line) is what the limit bounds.
        this.#data = grown(this.#data, value, this.#lines.limit, "An event's data") + "\n";
        break;
      case "id":
        // An ID with NUL could not be sent back in a `Last-Event-ID` header.
        if (!value.includes("\0")) this.#lastEventId = value;
        break;
      case "retry":
        if (DIGITS.test(value)) this.#retry = this.#reconnectionTime = Number(value);
        break;
        // Any other field is ignored, so the format can grow.
    }
  }

  #dispatch(events: ServerSentEvent[]): void {
    const data = this.#data;
    const event = this.#eventType || "message";
    const retry = this.#retry;
    this.#dispatchedId = this.#lastEventId;
    this.#data = this.#eventType = "";
    this.#retry = undefined;
    // A block without data (only comments, `id`, `retry`...) dispatches nothing.
    if (data === "") return;
    // Each data line added an LF; the last one ends the data and is not part of it.
    events.push({ event, data: data.slice(0, -1), id: this.#lastEventId, retry });
  }
}

/**
 * The Server-Sent Events of a streamed `text/event-stream` body, each yielded
 * as soon as the blank line that ends it arrives. The body is read as UTF-8
 * whatever its charset; a leading byte order mark is dropped; lines end at
 * CRLF, LF or CR; lines starting with `:` are comments; `data` lines are
 * joined with LF; `id` sets the last event ID, carried to every later event
 * (an `id` containing NUL is ignored); `retry` counts only when it is ASCII
 * digits; other fields are ignored. A block without data dispatches nothing,
 * and an event the body ends in the middle of is dropped. A line or an
 * event's data longer than `limit` throws its error. Leaving the loop early,
 * or a failure, cancels a `ReadableStream` source.
 *
 * @param source The body, as a `ReadableStream` or an async iterable of bytes.
 * @param limit The longest line and event's data, and the error past it (by default a string's longest).
 * @returns The events, in order.
 *
 * @example Reading events split anywhere across chunks
 * ```ts
 * import assert from "node:assert/strict";
 * import { events } from "./text_stream.ts";
 *
 * const bytes = new TextEncoder().encode("id: 1\ndata: a\ndata: b\n\n: ping\nevent: end\ndata\n\n");
 * const body = ReadableStream.from([bytes.subarray(0, 9), bytes.subarray(9)]);
 * assert.deepEqual(await Array.fromAsync(events(body)), [
 *   { event: "message", data: "a\nb", id: "1", retry: undefined },
 *   { event: "end", data: "", id: "1", retry: undefined },
 * ]);
 * ```
 */
export async function* events(
  source: ByteSource,
  limit: LineLimit = STRING_LIMIT,
): AsyncGenerator<ServerSentEvent> {
  const parser = new EventStreamParser("", limit);
  for await (const text of decodeText(source, "utf-8")) yield* parser.push(text);
}
