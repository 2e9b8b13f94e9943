// A reconnecting reader of Server-Sent Events, what EventSource does, for a
// client that sends headers (auth, hooks). Each connection is a streamed GET
// of the client; the reader keeps the last event ID and the reconnection
// time across them, and waits between them on a timer that its close, the
// caller's signal, the client's close and its total timeout all cut short.

import {
  abortedCallError,
  ConnectionException,
  describeCall,
  HttpClientException,
  timedOut,
  TimeoutException,
} from "../errors.ts";
import { decodeText, EventStreamParser, type ServerSentEvent } from "../http/text_stream.ts";
import { HttpRequest, type HttpRequestInit } from "../models/request.ts";
import { checkTextStream, type HttpResponse, lineLimit } from "../models/response.ts";
import {
  checkKnownKeys,
  keysOf,
  validateCount,
  validateNullableTimeout,
  validateSeconds,
} from "../models/_validate.ts";
import type { Duration } from "../models/duration.ts";
import { startWait } from "../waits.ts";
import type { CallOptions } from "../client/call.ts";
import { closedSignalOf, HttpClient } from "../client/client.ts";

/**
 * Reads the Server-Sent Events of `url` with `client`'s headers, auth and
 * hooks, reconnecting as EventSource does (see {@linkcode EventStream}).
 * GET only: a POST stream (an LLM's reply) must never be sent twice; read
 * it once with `client.stream()` and `response.events()`.
 *
 * @param client The client that sends each connection.
 * @param url A relative or absolute URL.
 * @param options A GET's fields and call options, and the reconnection's.
 * @returns The reader; nothing is sent until its loop starts.
 * @throws {TypeError} For a client that is not an `HttpClient`, an unknown
 * option or a bad value.
 *
 * @example Read a feed, reconnecting when the server ends it
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import { eventSource } from "@fetchline/fetchline/sse";
 * import assert from "node:assert/strict";
 *
 * let connections = 0;
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
 *   const body = `retry: 10\ndata: connection ${++connections}\n\n`; // then the body ends
 *   return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
 * });
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * const received: string[] = [];
 * for await (const event of eventSource(client, "/feed")) {
 *   if (received.push(event.data) === 2) break;
 * }
 * assert.deepEqual(received, ["connection 1", "connection 2"]);
 * ```
 */
export function eventSource(
  client: HttpClient,
  url: string | URL,
  options: EventStreamOptions = {},
): EventStream {
  if (!(client instanceof HttpClient)) {
    throw new TypeError("Invalid client: expected an HttpClient");
  }
  return new EventStream(client, url, options);
}

/**
 * The Server-Sent Events of a URL across reconnections, as EventSource
 * reads them, from {@linkcode eventSource}. Iterate it once with
 * `for await`; nothing is sent until the loop starts.
 *
 * Each connection is a streamed GET of the client (its headers, auth,
 * hooks, and its retries of the head) with `Accept: text/event-stream`,
 * `Cache-Control: no-cache`, and `Last-Event-ID` once an ID is in effect
 * (never an empty one). An event's ID carries over to later events, across
 * reconnections too, until the server sends another.
 *
 * When the body ends or fails (a reset, `readTimeout`), or a connection
 * cannot be made (refused, `timeout`), the reader waits the reconnection
 * time, plus up to a quarter more at random so that clients dropped
 * together do not come back together, and connects again: `retryDelay`
 * (3 s by default) until the server sends `retry`, whose last value wins.
 * After `maxReconnects` (10 by default) reconnections in a row without an
 * event, the loop throws a {@linkcode ConnectionException} whose `cause` is
 * the last failure.
 *
 * It stops, as EventSource does, on a 204 (the loop ends), and on a status
 * other than 2xx or a Content-Type other than `text/event-stream` (the loop
 * throws an {@linkcode EventStreamException}); also on the caller's
 * `signal` and the client's close (an {@linkcode HttpClientException}), on
 * `totalTimeout`, the reader's whole life (a {@linkcode TimeoutException}),
 * and on `close()`, `break` or the end of an `await using` block (the
 * loop ends; the connection is cancelled, a wait ends at once). Any other
 * failure (a hook's error, an {@linkcode AuthenticationException}, a line or
 * an event's data longer than the client's `maxResponseBytes` characters) is
 * thrown as it is, without reconnecting.
 *
 * Only GET: a POST stream (an LLM's reply) must never be sent twice; read
 * it once with `client.stream()`.
 *
 * @example Resume a feed with Last-Event-ID each time the server ends it
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
 *   const id = Number(request.headers.get("last-event-id")) + 1;
 *   const body = `retry: 10\nid: ${id}\ndata: event ${id}\n\n`; // then the body ends
 *   return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
 * });
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * await using feed = eventSource(client, "/feed", { lastEventId: "40" });
 * const received: string[] = [];
 * for await (const event of feed) {
 *   if (received.push(event.data) === 3) break;
 * }
 * assert.deepEqual(received, ["event 41", "event 42", "event 43"]);
 * assert.equal(feed.lastEventId, "43");
 * ```
 */
export class EventStream implements AsyncIterable<ServerSentEvent>, AsyncDisposable {
  readonly #client: HttpClient;
  /** Aborted when the client is closed. */
  readonly #clientClosed: AbortSignal;
  readonly #settings: ReturnType<typeof eventStreamSettings>;
  readonly #request: HttpRequest;
  readonly #stop = new AbortController();
  #lastEventId: string;
  #reconnectionMs: number;
  #closed = false;
  #timedOut = false;
  /** When the total timeout ends the reader, on the `performance.now()` clock. */
  #deadline = Infinity;
  #iterator: AsyncGenerator<ServerSentEvent> | undefined = undefined;

  /**
   * Made by {@linkcode eventSource}, which documents the arguments.
   *
   * @param client The client that sends each connection.
   * @param url The URL of the event stream.
   * @param options The request's fields and the reconnection's.
   */
  constructor(client: HttpClient, url: string | URL, options: EventStreamOptions) {
    const settings = eventStreamSettings(options);
    const headers = { Accept: "text/event-stream", "Cache-Control": "no-cache" };
    const init = { ...settings.init, headers: { ...headers, ...settings.init.headers } };
    this.#request = new HttpRequest("GET", url, init);
    this.#settings = settings;
    this.#client = client;
    this.#clientClosed = closedSignalOf(client);
    this.#lastEventId = settings.lastEventId;
    this.#reconnectionMs = settings.retryDelayMs;
  }

  /**
   * The ID of the last event received (or of a block that set one without
   * data), carried over reconnections: what the next connection sends as
   * `Last-Event-ID`, and where to resume later. `""` when none.
   */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /**
   * The events, connecting on the first `next()`; can be called once.
   *
   * @returns The events, in order, across reconnections.
   */
  [Symbol.asyncIterator](): AsyncGenerator<ServerSentEvent> {
    if (this.#iterator !== undefined) {
      throw new TypeError(`Event stream is already being read: ${describeCall(this.#request)}`);
    }
    return this.#iterator = this.#run();
  }

  /**
   * Stops the reader: the current connection is cancelled, a wait between
   * connections ends at once, and the loop ends without an error.
   * Calling it again does nothing.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stop.abort();
    await this.#iterator?.return(undefined);
  }

  /** Closes the reader at the end of an `await using` block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async *#run(): AsyncGenerator<ServerSentEvent> {
    if (this.#clientClosed.aborted) {
      const request = this.#request;
      throw new HttpClientException(`Client is closed: ${describeCall(request)}`, { request });
    }
    const unwatch = this.#watchStops();
    try {
      let reconnects = 0;
      while (!this.#stopped()) {
        const lost = yield* this.#connection(() => reconnects = 0);
        if (lost === undefined || this.#stopped()) return;
        if (reconnects++ >= this.#settings.maxReconnects) {
          const n = this.#settings.maxReconnects;
          throw new ConnectionException(
            `Event stream gave up after ${n} reconnections without an event (maxReconnects): ${
              describeCall(this.#request)
            }`,
            { request: this.#request, cause: lost },
          );
        }
        await reconnectionWait(this.#reconnectionMs, this.#stop.signal);
      }
    } finally {
      unwatch();
    }
  }

  /**
   * The events of one connection. Returns the error the connection was
   * lost to (the server's end of the body counts as one), or `undefined`
   * when the stream is over: a 204, or the reader stopped quietly. Throws
   * what ends the reader: a refusal, a failure that is not the network's,
   * or the stop of the caller's signal, the client or the total timeout.
   */
  async *#connection(onEvent: () => void): AsyncGenerator<ServerSentEvent, unknown> {
    let response: HttpResponse;
    try {
      response = await this.#client.request(this.#nextRequest(), this.#callOptions());
    } catch (error) {
      return this.#lostTo(error);
    }
    try {
      if (this.#stopped() || response.statusCode === 204) return undefined;
      checkTextStream(response, "Event stream");
      const parser = new EventStreamParser(this.#lastEventId, lineLimit(response));
      for await (const text of decodeText(response.body, "utf-8")) {
        for (const event of parser.push(text)) {
          onEvent();
          this.#lastEventId = event.id;
          yield event;
        }
        // After the events, so the ID of a block without data counts too.
        this.#lastEventId = parser.lastEventId;
        this.#reconnectionMs = parser.reconnectionTime ?? this.#reconnectionMs;
      }
      return new ConnectionException(
        `Event stream was ended by the server: ${describeCall(this.#request, response.url)}`,
        { request: response.request },
      );
    } catch (error) {
      return this.#lostTo(error);
    } finally {
      await response.cancel();
    }
  }

  /** What `error` means to the reader: a lost connection to reconnect, the end, or thrown. */
  #lostTo(error: unknown): unknown {
    if (this.#stopped()) return undefined;
    if (error instanceof ConnectionException || error instanceof TimeoutException) return error;
    throw error;
  }

  /** The request of the next connection: `Last-Event-ID` when an ID is in effect. */
  #nextRequest(): HttpRequest {
    const id = lastEventIdHeader(this.#lastEventId);
    return id === undefined ? this.#request : this.#request.withHeaders({ "Last-Event-ID": id });
  }

  #callOptions(): CallOptions {
    const { readTimeout, totalTimeout } = this.#settings;
    const options: CallOptions = { stream: true, signal: this.#stop.signal };
    // In ms with its unit, as the total below: a read timeout given as "2h" is 7,200 s.
    if (readTimeout !== undefined) {
      options.readTimeout = readTimeout === null ? null : `${readTimeout * 1000}ms`;
    }
    if (totalTimeout !== null) {
      // What is left of the reader's life bounds the head, retries included.
      // In ms with its unit: what is left of a reader's life may be past an hour.
      const left = this.#deadline - performance.now();
      options.totalTimeout = `${Math.max(left, 1)}ms`;
    }
    return options;
  }

  /**
   * Routes every stop to the reader's own abort: the caller's signal, the
   * client's close, the total timeout. Returns what undoes it.
   */
  #watchStops(): () => void {
    const stop = () => this.#stop.abort();
    const { signal, totalTimeout } = this.#settings;
    const closed = this.#clientClosed;
    signal?.addEventListener("abort", stop);
    closed.addEventListener("abort", stop);
    if (signal?.aborted || closed.aborted) stop();
    let timer: (() => void) | undefined;
    if (totalTimeout !== null) {
      this.#deadline = performance.now() + totalTimeout * 1000;
      timer = startWait(() => {
        this.#timedOut = true;
        stop();
      }, totalTimeout * 1000);
    }
    return () => {
      timer?.();
      signal?.removeEventListener("abort", stop);
      closed.removeEventListener("abort", stop);
    };
  }

  /**
   * True when the reader was closed (it ends quietly); throws when the
   * caller's signal, the client's close or the total timeout stopped it;
   * false while it runs.
   */
  #stopped(): boolean {
    if (this.#closed) return true;
    if (!this.#stop.signal.aborted) return false;
    const request = this.#request;
    const { signal, totalTimeout } = this.#settings;
    if (!this.#timedOut) throw abortedCallError(request, { closed: this.#clientClosed, signal })!;
    throw timedOut(request, `Event stream timed out after ${totalTimeout} s (totalTimeout)`);
  }
}

/**
 * The options of {@linkcode eventSource}: the fields of a GET request
 * and its call options, and how the reader reconnects.
 */
export interface EventStreamOptions
  extends
    Pick<HttpRequestInit, "headers" | "params" | "timeout" | "auth">,
    Pick<CallOptions, "signal" | "readTimeout"> {
  /**
   * The longest the reader lives, in seconds or with its unit (`"10m"`), every connection and wait
   * included (`null` or absent: no limit); then the loop throws a
   * {@linkcode TimeoutException} naming `totalTimeout`. Each connection's
   * head is bounded by what is left of it. Absent, the client's total
   * timeout bounds each connection's head alone, as for `stream()`.
   */
  totalTimeout?: number | Duration | null | undefined;
  /**
   * Where to resume: sent as `Last-Event-ID` on the first connection, as
   * if the last event received had this ID (`""` or absent: none).
   */
  lastEventId?: string | undefined;
  /**
   * The reconnection time in seconds or with its unit (`"500ms"`; default 3, as browsers have it),
   * until the server sets its own with a `retry` field, which wins.
   */
  retryDelay?: number | Duration | undefined;
  /**
   * The most reconnections in a row without an event received (default 10;
   * `Infinity` reconnects for ever, as EventSource does; 0 never
   * reconnects). An event received starts the count again.
   */
  maxReconnects?: number | undefined;
}

const EVENT_STREAM_KEYS = keysOf<EventStreamOptions>({
  headers: true,
  params: true,
  timeout: true,
  auth: true,
  signal: true,
  readTimeout: true,
  totalTimeout: true,
  lastEventId: true,
  retryDelay: true,
  maxReconnects: true,
});

/**
 * `options` checked (TypeError or RangeError naming the option, never
 * quoting a value) with their defaults. A body key is unknown here: the
 * request of an event stream is sent again on every reconnection.
 */
function eventStreamSettings(options: EventStreamOptions) {
  checkKnownKeys("options", options, EVENT_STREAM_KEYS);
  const { headers, params, timeout, auth, signal, readTimeout, totalTimeout } = options;
  // A retry delay of 3 s is what browsers wait until the server sends `retry`.
  const { lastEventId = "", retryDelay = 3, maxReconnects = 10 } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError("Invalid signal: expected an AbortSignal");
  }
  // It could not have come from a stream, whose lines end at CR or LF and whose IDs hold no NUL.
  if (typeof lastEventId !== "string" || /[\0\r\n]/.test(lastEventId)) {
    throw new TypeError("Invalid lastEventId: expected a string without NUL, CR or LF");
  }
  const names = headers !== null && typeof headers === "object" ? Object.keys(headers) : [];
  if (names.some((name) => name.toLowerCase() === "last-event-id")) {
    throw new TypeError(
      "Invalid headers: Last-Event-ID is sent by the reader (give the lastEventId option)",
    );
  }
  if (maxReconnects !== Infinity) validateCount("maxReconnects", maxReconnects);
  return {
    init: { headers, params, timeout, auth } as HttpRequestInit,
    signal,
    readTimeout: readTimeout === undefined
      ? undefined
      : validateNullableTimeout("readTimeout", readTimeout),
    totalTimeout: totalTimeout == null
      ? null
      : validateNullableTimeout("totalTimeout", totalTimeout),
    lastEventId,
    retryDelayMs: validateSeconds("retryDelay", retryDelay) * 1000,
    maxReconnects,
  };
}

/**
 * The `Last-Event-ID` value for `id`: none for `""`; the ID's UTF-8 bytes,
 * one character each (how a header carries bytes); none when the ID holds
 * a control character a header cannot carry (the server then starts over).
 */
function lastEventIdHeader(id: string): string | undefined {
  if (id === "") return undefined;
  // deno-lint-ignore no-control-regex -- the controls are what the class finds
  if (/[\0-\x08\n-\x1f\x7f]/.test(id)) return undefined;
  if (/^[ -~\t]*$/.test(id)) return id; // printable ASCII, as it is
  return Array.from(new TextEncoder().encode(id), (byte) => String.fromCharCode(byte)).join("");
}

/**
 * Waits `ms` and up to a quarter more, at random (so clients dropped
 * together do not come back together); `signal` ends the wait at once (and
 * no timer is left).
 */
function reconnectionWait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      stop();
      signal.removeEventListener("abort", done);
      resolve();
    };
    // A server's `retry` can be any number of digits: startWait waits it whole.
    const stop = startWait(done, ms * (1 + Math.random() / 4));
    signal.addEventListener("abort", done);
  });
}
