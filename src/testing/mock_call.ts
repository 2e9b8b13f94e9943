// A request as the mock transport saw it: what the client put on the wire,
// its body read whole when it arrived, so a test reads it as often as it likes.

import {
  defineRedactedInspect,
  jsonView,
  maskHeadersForView,
  redactUrl,
} from "../masking/views.ts";

/**
 * One request a {@linkcode MockTransport} received, recorded in
 * {@linkcode MockTransport.calls} and given to a route's handler: the
 * method, the absolute URL, the headers and the whole body as the client
 * sent them. `console.log()` and `JSON.stringify()` show it with the
 * credentials masked; the fields themselves are as sent.
 *
 * @example Read a recorded call
 * ```ts
 * import { MockCall } from "@fetchline/fetchline/testing";
 * import assert from "node:assert/strict";
 *
 * const call = new MockCall(
 *   "POST",
 *   "http://api.test/users",
 *   new Headers({ "content-type": "application/json" }),
 *   new TextEncoder().encode('{"name": "Ada"}'),
 * );
 * assert.equal(call.headers.get("Content-Type"), "application/json");
 * assert.deepEqual(call.json(), { name: "Ada" });
 * ```
 */
export class MockCall {
  /** The method, upper-case. */
  readonly method: string;
  /** The absolute URL, query included. */
  readonly url: string;
  /** The headers as sent (names lower-case, as `Headers` keeps them). */
  readonly headers: Headers;
  /** The whole body; empty when there was none. */
  readonly content: Uint8Array;

  /**
   * Records a call (the transport makes them; a test may, to try a handler alone).
   *
   * @param method The method.
   * @param url The absolute URL.
   * @param headers The headers.
   * @param content The whole body.
   */
  constructor(method: string, url: string, headers: Headers, content: Uint8Array) {
    this.method = method.toUpperCase();
    this.url = url;
    this.headers = headers;
    this.content = content;
  }

  /** The body as UTF-8 text. */
  get text(): string {
    return new TextDecoder().decode(this.content);
  }

  /**
   * The body parsed as JSON.
   *
   * @typeParam T The type the caller expects (a cast: nothing is checked).
   * @returns The parsed value.
   * @throws {SyntaxError} When the body is not JSON.
   */
  json<T = unknown>(): T {
    return JSON.parse(this.text) as T;
  }

  /**
   * The masked view `console.log()` shows, for `JSON.stringify()`.
   *
   * @returns The method, URL, headers and a summary of the body, with no credential.
   */
  toJSON(): Record<string, unknown> {
    return jsonView(this);
  }
}

defineRedactedInspect(MockCall, (call) => ({
  method: call.method,
  url: redactUrl(call.url),
  headers: maskHeadersForView(Object.fromEntries(call.headers)),
  content: call.content,
}));

/**
 * Records what a `fetch(input, init)` call would send: `init` over a
 * `Request` given as `input`, the body read whole. A read cut by `signal`
 * cancels the body (an upload stream's source learns it) and rejects with
 * the signal's reason, as fetch does.
 */
export async function recordCall(
  input: Request | URL | string,
  init: RequestInit | undefined,
  signal: AbortSignal | undefined,
): Promise<MockCall> {
  const request = input instanceof Request ? input : undefined;
  const url = new URL(request === undefined ? input as URL | string : request.url).href;
  const method = init?.method ?? request?.method ?? "GET";
  const headers = new Headers(init?.headers ?? request?.headers);
  const body = init?.body !== undefined ? init.body : request?.body ?? null;
  const content = await readWhole(new Response(body).body, signal);
  return new MockCall(method, url, headers, content);
}

async function readWhole(
  body: ReadableStream<Uint8Array> | null,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  // A cancel ends a pending read with `done`: the signal's reason is thrown below.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    if (signal?.aborted) onAbort();
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  const content = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    content.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return content;
}
