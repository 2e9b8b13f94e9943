// The unread body of a streamed response, as the response holds it: the
// send path makes it (its stream, its read timeout, the call it ends), the
// response only asks it for the body once, to read it whole, or to cancel.

import { describeCall, HttpClientException, ResponseNotReadException } from "../errors.ts";
import type { HttpResponse } from "./response.ts";
import { keepSetCookieLines, SET_COOKIE_LINES } from "../http/headers.ts";
import type { JoinedHeaders } from "../http/headers.ts";
import { type LineLimit, MAX_STRING } from "../http/lines.ts";

/** The body of a streamed response, until it is read, cancelled or fails. */
export interface StreamedBody {
  /** The decoded body as it arrives; throws once it was taken, read or cancelled. */
  take(): ReadableStream<Uint8Array>;
  /** The whole body under the client's limit, as a buffered response (the same one each time). */
  read(): Promise<HttpResponse>;
  /**
   * Cancels the body, unless it was already read to its end; gives the
   * connection back. A read waiting on the taken stream ends at once.
   */
  cancel(): Promise<void>;
  /** The client's limit of a buffered read, also that of a line of `lines()` and `events()`. */
  readonly maxResponseBytes: number;
}

/** The unread bodies of streamed responses (a buffered response is never in it). */
export const STREAMED: WeakMap<HttpResponse, StreamedBody> = new WeakMap();

/** The bodies of streamed responses that `read()` buffered, by response. */
const READ: WeakMap<HttpResponse, Uint8Array> = new WeakMap();

/** `read()` of a streamed response: its body read whole, which its `content` then gives too. */
export async function readStreamed(
  response: HttpResponse,
  body: StreamedBody,
): Promise<HttpResponse> {
  const buffered = await body.read();
  READ.set(response, buffered.content);
  return buffered;
}

/** The `content` getter of a streamed response: the body once `read()` resolved, else it throws. */
export function streamedContent(this: HttpResponse): Uint8Array {
  const content = READ.get(this);
  if (content !== undefined) return content;
  throw new ResponseNotReadException(
    `Response body was not read (call read() first): ${describeCall(this.request, this.url)}`,
    { request: this.request },
  );
}

/**
 * The limit of a line of `lines()` and of a line or an event's data of
 * `events()` of `response`, in characters: a streamed body's
 * `maxResponseBytes` (a character is at least a byte), else the longest
 * string (a buffered body is whole in memory already).
 */
export function lineLimit(response: HttpResponse): LineLimit {
  const max = STREAMED.get(response)?.maxResponseBytes ?? Infinity;
  return {
    max,
    tooLong(what) {
      const { request } = response;
      const target = describeCall(request, response.url);
      const message = max > MAX_STRING
        ? `${what} of the response body is longer than a string can hold: ${target} ` +
          "(read response.body instead)"
        : `${what} of the response body exceeds maxResponseBytes (${max}) characters: ` +
          `${target} (read response.body instead, or raise withMaxResponseBytes)`;
      return new HttpClientException(message, { request });
    },
  };
}

/** The content a streamed response is made with (never seen: its getter throws). */
export const NO_CONTENT: Uint8Array = new Uint8Array(0);

/**
 * The second constructor argument of HttpResponse that marks a response the
 * transport received (its headers need no copy until read). Internal to the
 * models: only received_response.ts passes it; no entry point exports it.
 */
export const RECEIVED: unique symbol = Symbol("received");

/** The body of a buffered response as a stream: each call a new one. */
export function contentStream(content: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (content.byteLength > 0) controller.enqueue(content);
      controller.close();
    },
  });
}

/**
 * The header helpers of a response, kept here so response.ts stays short.
 * Repeated names are joined with ", "; several Set-Cookie lines are also
 * kept apart, for `headerValues()`.
 */
export function lowerCaseHeaders(
  headers: Readonly<JoinedHeaders> | Headers,
): JoinedHeaders {
  const lower: JoinedHeaders = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  let lines = headers instanceof Headers ? undefined : headers[SET_COOKIE_LINES];
  let cookieLines: string[] | undefined;
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    if (key === "set-cookie") (cookieLines ??= []).push(value);
    lower[key] = key in lower ? `${lower[key]}, ${value}` : value;
  }
  if (lines === undefined && cookieLines !== undefined && cookieLines.length > 1) {
    lines = cookieLines;
  }
  if (lines !== undefined) keepSetCookieLines(lower, lines);
  return lower;
}

const UTF8 = new TextDecoder();

/** A decoder for `label`; UTF-8's is made once, as nearly every body needs it. */
export function decoderFor(label: string | undefined): TextDecoder {
  if (label === undefined || /^utf-?8$/i.test(label)) return UTF8;
  try {
    return new TextDecoder(label);
  } catch {
    return UTF8;
  }
}

/** The charset a Content-Type names, if any. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = contentType?.match(/;\s*charset\s*=\s*"?([^";\s]+)"?/i);
  return match?.[1];
}
