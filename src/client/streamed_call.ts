// The body of a streamed call, after its head: the call's timeout and total
// timeout stop at the head; from there each wait for the next chunk has the
// read timeout, the client's close and the caller's signal still abort the
// exchange, and the call stays in flight until the body is read to its end,
// cancelled or fails. Its failures become the library's exceptions, as the
// exchange's do.

import { describeCall, HttpClientException, TimeoutException } from "../errors.ts";
import { receivedResponse, streamedResponse } from "../models/response.ts";
import type { HttpResponse, HttpResponseInit } from "../models/response.ts";
import type { StreamedBody } from "../models/streamed_body.ts";
import { decodedLength, readBody } from "../transport/read_body.ts";
import {
  type ProgressCallback,
  ProgressFailure,
  report,
  reportEnd,
} from "../transport/progress.ts";
import type { WireResponse } from "../transport/types.ts";
import type { Abort, AbortSources } from "./deadline/abort.ts";

/** What the body of a streamed call needs besides its response. */
export interface StreamedCallOptions extends AbortSources {
  /** The longest wait for the next chunk, in seconds (`null` or absent: none). */
  readonly readTimeout?: number | null | undefined;
  /** The largest body `read()` buffers, in bytes. */
  readonly maxResponseBytes: number;
  /** Told how far the body has been read: at the first read, after each chunk, at the end. */
  readonly onDownloadProgress?: ProgressCallback | undefined;
}

/** The exchange a streamed body comes from, at its head. */
export interface StreamedExchange {
  /** The response, its body unread. */
  readonly wire: WireResponse;
  /** The exchange's abort, its timeout already stopped. */
  readonly abort: Abort;
  /** The response's fields, but its content. */
  readonly init: Omit<HttpResponseInit, "content">;
  /** Turns what the body's stream throws into the library's exception. */
  readonly toClientError: (error: unknown) => unknown;
  /** When the call's exchange started (`performance.now()`). */
  readonly since: number;
}

/** The streamed response of `exchange`, its body read under `options`. */
export function streamedCall(
  exchange: StreamedExchange,
  options: StreamedCallOptions,
): HttpResponse {
  const body = new WireBody(exchange, options);
  const response = streamedResponse(exchange.init, body);
  bodies.set(response, body);
  return response;
}

/**
 * Calls `listener` once the body of `response` is done; false (calling
 * nothing) when it is not an unread streamed body of this module.
 */
export function whenBodySettled(response: HttpResponse, listener: () => void): boolean {
  const body = bodies.get(response);
  if (body === undefined || body.settled) return false;
  body.listener = listener;
  return true;
}

const bodies = new WeakMap<HttpResponse, WireBody>();

class WireBody implements StreamedBody {
  settled = false;
  listener: (() => void) | undefined = undefined;
  readonly #inner: ReadableStream<Uint8Array> | null;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined = undefined;
  #taken = false;
  #read: Promise<HttpResponse> | undefined = undefined;
  #transferred = -1;
  #callbackFailed = false;
  /** When the read now waiting began (`performance.now()`); -1 when none waits. */
  #waitingSince = -1;
  /** Fails the read now waiting. */
  #timeOut: ((error: unknown) => void) | undefined = undefined;
  /** The read timeout's one timer, while armed. */
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  readonly #wire: WireResponse;
  readonly #abort: Abort;
  readonly #init: Omit<HttpResponseInit, "content">;
  readonly #options: StreamedCallOptions;
  readonly #toClientError: (error: unknown) => unknown;
  readonly #since: number;
  readonly #onAbort = () => {
    this.#abort.abort();
    this.#settle();
  };

  constructor(exchange: StreamedExchange, options: StreamedCallOptions) {
    const { wire, abort } = exchange;
    this.#wire = wire;
    this.#abort = abort;
    this.#init = exchange.init;
    this.#options = options;
    this.#toClientError = exchange.toClientError;
    this.#since = exchange.since;
    this.#inner = wire.body;
    if (this.#inner === null) {
      this.settled = true;
      return;
    }
    // The exchange's step is released with the head: the close and the
    // caller's signal now reach the transport through its abort.
    options.closed.addEventListener("abort", this.#onAbort);
    options.signal?.addEventListener("abort", this.#onAbort);
    if (options.closed.aborted || options.signal?.aborted) abort.abort();
  }

  take(): ReadableStream<Uint8Array> {
    if (this.#taken) {
      throw new HttpClientException(
        `Response body was already read or cancelled: ${describeCall(this.#init.request)}`,
        { request: this.#init.request },
      );
    }
    this.#taken = true;
    if (this.#inner === null) return new ReadableStream({ start: (c) => c.close() });
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          if (this.#transferred < 0) this.#progress(0, false);
          const { done, value } = await this.#next();
          if (!done) {
            controller.enqueue(value);
            return this.#progress(value.byteLength, false);
          }
          this.#progress(0, true);
          controller.close();
        } catch (error) {
          if (error instanceof ProgressFailure) {
            // The callback's error, as it is; the connection is dropped.
            this.#callbackFailed = true;
            controller.error(error.error);
            return await this.#cancelInner(error.error);
          }
          controller.error(error);
        }
        this.#settle();
      },
      cancel: (reason) => this.#cancelInner(reason),
    }, { highWaterMark: 0 });
  }

  read(): Promise<HttpResponse> {
    return this.#read ??= this.#readWhole();
  }

  async #readWhole(): Promise<HttpResponse> {
    const body = this.take();
    try {
      const content = await readBody(
        { status: this.#init.statusCode, headers: this.#wire.headers, location: null, body },
        this.#options.maxResponseBytes,
      );
      return receivedResponse({
        ...this.#init,
        content,
        elapsedMs: performance.now() - this.#since,
      });
    } catch (error) {
      throw this.#callbackFailed ? error : this.#toClientError(error);
    }
  }

  /**
   * Tells the download callback, if any, of `bytes` more (at the first
   * read, 0 bytes first), or of the end.
   */
  #progress(bytes: number, end: boolean): void {
    const callback = this.#options.onDownloadProgress;
    if (callback === undefined) return;
    const total = decodedLength(this.#wire.headers);
    this.#transferred = Math.max(this.#transferred, 0) + bytes;
    if (end) reportEnd(callback, this.#transferred);
    else report(callback, this.#transferred, total);
  }

  async cancel(): Promise<void> {
    if (this.settled) return;
    this.#taken = true;
    await this.#cancelInner(undefined);
  }

  /**
   * Cancels the transport's body with a reason, so the connection is
   * dropped: a streamed body may never end (an event stream), and reading
   * its rest to keep the connection could hold it for ever.
   */
  async #cancelInner(reason: unknown): Promise<void> {
    const inner = this.#reader ?? this.#inner;
    this.#settle();
    await inner?.cancel(reason ?? new DOMException("Response body was cancelled", "AbortError"))
      .catch(() => {});
  }

  /**
   * The next chunk, within the read timeout; failures as the library's
   * exceptions. The read timeout has one timer per body, not one per chunk
   * (a timer per chunk costs more than the chunk on a fast connection).
   */
  #next(): Promise<ReadableStreamReadResult<Uint8Array>> {
    const reader = this.#reader ??= this.#inner!.getReader();
    const seconds = this.#options.readTimeout ?? null;
    const reading = reader.read();
    if (seconds === null) return reading.catch((error) => Promise.reject(this.#failure(error)));
    this.#waitingSince = performance.now();
    this.#timer ??= unrefTimer(setTimeout(this.#onTimer, seconds * 1000));
    return new Promise((resolve, reject) => {
      this.#timeOut = reject;
      reading.then(
        (result) => (this.#waitingSince = -1, resolve(result)),
        (error) => (this.#waitingSince = -1, reject(this.#failure(error))),
      );
    });
  }

  /**
   * The read timeout's timer fired: a read waiting for less than the
   * timeout moves it on to that read's own deadline, one waiting for the
   * whole timeout fails, and with no read waiting the next read arms it.
   */
  readonly #onTimer = (): void => {
    this.#timer = undefined;
    if (this.#waitingSince < 0 || this.settled) return;
    const seconds = this.#options.readTimeout ?? 0;
    const left = this.#waitingSince + seconds * 1000 - performance.now();
    if (left > 0) {
      this.#timer = unrefTimer(setTimeout(this.#onTimer, left));
      return;
    }
    const { request } = this.#init;
    const error = new TimeoutException(
      `Read timed out after ${seconds} s (readTimeout): ${describeCall(request)}`,
      { request },
    );
    this.#waitingSince = -1;
    this.#timeOut?.(error);
    this.#reader?.cancel(error).catch(() => {});
  };

  #failure(error: unknown): unknown {
    return this.#toClientError(error);
  }

  #settle(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#options.closed.removeEventListener("abort", this.#onAbort);
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}

/**
 * The read timeout's timer, unref'd: it outlives the read it was armed for
 * (it is moved on lazily), and a body abandoned after a read must not hold
 * the process open until it fires. A read that waits is held by the
 * transport's own pending read.
 */
function unrefTimer(timer: ReturnType<typeof setTimeout>): ReturnType<typeof setTimeout> {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
