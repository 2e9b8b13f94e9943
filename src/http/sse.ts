// Server-Sent Events: the `text/event-stream` format as EventSource reads it.
// The stream is always UTF-8 (a leading BOM dropped once), whatever charset
// the response names; a line ends at CRLF, LF or a lone CR; a blank line
// dispatches the event gathered since the last one; an event the stream ends
// in the middle of is dropped. A line and an event's data are bounded by a
// limit, so a stream without line ends or blank lines cannot fill memory.

import { type ByteSource, decodeText, grown, type LineLimit, STRING_LIMIT } from "./lines.ts";

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

const LINE_END = /\r\n|\r|\n/g;
const LF = 10;
const CR = 13;
const DIGITS = /^[0-9]+$/;

/**
 * An event stream parser fed text in pieces cut anywhere. Each piece is
 * scanned once and an unfinished line only grows by appending, so the work
 * is linear in the text however it is cut.
 */
export class EventStreamParser {
  #line = "";
  /** A CR ended the last piece: an LF opening the next belongs to it. */
  #afterCR = false;
  #data = "";
  #eventType = "";
  /** The ID the `id` fields set, even in a block not ended yet. */
  #lastEventId: string;
  /** The ID as of the last blank line: a block the stream ends in the middle of sets nothing. */
  #dispatchedId: string;
  #retry: number | undefined = undefined;
  #reconnectionTime: number | undefined = undefined;
  readonly #limit: LineLimit;

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
    this.#limit = limit;
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
    if (text === "") return events;
    let start = 0;
    if (this.#afterCR) {
      this.#afterCR = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    LINE_END.lastIndex = start;
    let end: RegExpExecArray | null;
    while ((end = LINE_END.exec(text)) !== null) {
      this.#interpret(
        grown(this.#line, text.slice(start, end.index), this.#limit, "A line"),
        events,
      );
      this.#line = "";
      start = LINE_END.lastIndex;
    }
    if (start === text.length) {
      // The piece ended a line; when with a lone CR, its LF may open the next piece.
      this.#afterCR = text.charCodeAt(text.length - 1) === CR;
    } else {
      this.#line = grown(this.#line, text.slice(start), this.#limit, "A line");
    }
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
        this.#data = grown(this.#data, value, this.#limit, "An event's data") + "\n";
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
 * import { events } from "./sse.ts";
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
