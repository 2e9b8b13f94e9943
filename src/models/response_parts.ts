// The parts of a response below its class: the marks of a received or
// streamed response, a buffered body as a stream, the header record and the
// charset. The unread body a streamed response holds is in response.ts, as
// the response names it and it names the response.

import { keepSetCookieLines, SET_COOKIE_LINES } from "../http/headers.ts";
import type { JoinedHeaders } from "../http/headers.ts";

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
