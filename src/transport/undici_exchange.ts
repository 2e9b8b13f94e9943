// One exchange of the npm build's transport as undici's `dispatch()` handler
// (under `request()`, without its `Readable` per response). It resolves at
// the response head, then hands the body, decoded by Node's zlib when
// encoded, to its reader: pushed into the sink of `drainTo()` (read_body.ts
// buffers it so) or of `feed()` (a streamed call's own stream), with no
// stream here, or fed into a byte stream made when `body` is first asked
// for. Chunks that come before a reader are held as they came; undici is
// paused while enough unread bytes wait.

import type { Readable } from "node:stream";
import { errors } from "undici";
import type { Dispatcher } from "undici";
import { BodyDecodeError, headOverflow } from "./transport_errors.ts";
import { startDecoding } from "./node_decoders.ts";
import { enqueueBytes, plain } from "./byte_stream.ts";
import { joinHeaders } from "../http/headers.ts";
import type { BodyFeed, BodySink, FeedControl, WireResponse } from "./types.ts";
import type { Abort } from "../client/deadline/abort.ts";

/** How much of a discarded body is read before the connection is dropped instead (as undici's `dump()`). */
const DISCARD_LIMIT = 128 * 1024;
/** The unread bytes held (in the stream, or before a reader comes) before undici is paused. */
const HIGH_WATER = 64 * 1024;

/**
 * One exchange as undici's dispatch handler, and its response once the head
 * has arrived ({@linkcode UndiciExchange.head}). Aborting the step aborts the
 * exchange, even while it waits for a connection.
 */
export class UndiciExchange implements Dispatcher.DispatchHandler, WireResponse {
  status = 0;
  headers: Record<string, string> = {};
  location: string | null = null;
  /** Resolves with this once the response head has arrived. */
  readonly head: Promise<WireResponse>;
  readonly #method: string;
  readonly #abort: Abort;
  #resolveHead!: (response: WireResponse) => void;
  #rejectHead!: (error: unknown) => void;
  #started = false;
  #controller: Dispatcher.DispatchController | undefined;
  /** False for HEAD, 204, 205 and 304. */
  #hasBody = false;
  /** The body stream, once asked for (`null`: none). */
  #body: ReadableStream<Uint8Array> | null | undefined = undefined;
  /** The body stream's controller. */
  #stream: ReadableByteStreamController | undefined;
  /** The readers of `drainTo()` and of `feed()`. */
  #sink: BodySink | undefined;
  #feed: BodyFeed | undefined;
  /** Decoded chunks that came before a reader, and their size. */
  #held: Uint8Array[] | undefined;
  #heldSize = 0;
  /** The decoded body is complete, or failed with `#error`. */
  #complete = false;
  #error: unknown = undefined;
  /** The encoded body, for the decoders. */
  #encoded: Readable | undefined;
  /** Resumes the decoders once the reader wants more. */
  #drained: (() => void) | undefined;
  /** Bytes received (before decoding). */
  #received = 0;
  /** The Content-Length, or NaN. */
  #length = NaN;
  #paused = false;
  #ended = false;
  #failed = false;
  /** The reader gave up the body: what comes is discarded. */
  #cancelled = false;

  constructor(method: string, abort: Abort) {
    this.#method = method;
    this.#abort = abort;
    this.head = new Promise((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
    abort.onAbort(this.#onAbort);
  }

  readonly #onAbort = (): void => {
    const reason = new errors.RequestAbortedError();
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.onResponseError(undefined, reason);
  };

  /** undici's: the request is on its way; aborts it when the step already has. */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abort.aborted || this.#failed) controller.abort(new errors.RequestAbortedError());
  }

  /** undici's: the response head (a 1xx is informational: the response is still to come). */
  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = joinHeaders(headers);
    this.location = this.headers["location"] ?? null;
    this.#started = true;
    this.#length = Number(this.headers["content-length"]);
    const method = this.#method;
    if (method !== "HEAD" && statusCode !== 204 && statusCode !== 205 && statusCode !== 304) {
      this.#hasBody = true;
      this.#encoded = startDecoding(method, statusCode, this.headers["content-encoding"], {
        resume: () => this.#resume(),
        deliver: this.#deliver,
        finish: this.#finish,
        fail: this.#decodeFailed,
      });
    }
    this.#resolveHead(this);
  }

  /** undici's: a chunk of the body. */
  onResponseData(controller: Dispatcher.DispatchController, chunk: Uint8Array): void {
    this.#received += chunk.byteLength;
    if (this.#cancelled) {
      if (this.#received > DISCARD_LIMIT) controller.abort(new errors.RequestAbortedError());
    } else if (this.#encoded !== undefined) {
      if (!this.#encoded.push(chunk)) this.#pause();
    } else if (this.#deliver(chunk) !== undefined) {
      this.#pause();
    }
  }

  /** undici's: the body is complete. */
  onResponseEnd(): void {
    this.#ended = true;
    if (this.#encoded !== undefined) this.#encoded.push(null);
    else this.#finish();
  }

  /** undici's: the exchange failed, before the head or during the body. */
  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: unknown): void {
    if (this.#failed || this.#ended) return;
    this.#failed = true;
    this.#abort.offAbort(this.#onAbort);
    if (!this.#started) this.#rejectHead(headOverflow(error) ?? error);
    else if (this.#encoded !== undefined) this.#encoded.destroy(error as Error);
    else this.#fail(error);
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) {
      this.#body = this.#hasBody
        ? new ReadableStream({
          type: "bytes",
          start: this.#open,
          pull: this.#pull,
          cancel: this.#cancel,
        }, { highWaterMark: HIGH_WATER })
        : null;
    }
    return this.#body;
  }

  drainTo(sink: BodySink): boolean {
    if (!this.#hasBody) return false;
    this.#sink = sink;
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) {
      for (const chunk of held) {
        if (!sink.write(chunk)) {
          // The sink wants no more: the connection is dropped.
          this.#cancel(null);
          return true;
        }
      }
    }
    if (this.#complete) {
      if (this.#error === undefined) sink.end();
      else sink.fail(this.#error);
    } else this.#pull();
    return true;
  }

  feed(feed: BodyFeed): FeedControl | null {
    if (!this.#hasBody) return null;
    this.#feed = feed;
    for (const chunk of this.#held ?? []) feed.push(plain(chunk));
    this.#held = undefined;
    if (this.#complete) {
      if (this.#error === undefined) feed.end();
      else feed.fail(this.#error);
    }
    return { pull: this.#pull, cancel: this.#cancel };
  }

  /** The stream starts with the chunks held, and the end or failure when they came. */
  readonly #open = (stream: ReadableByteStreamController): void => {
    this.#stream = stream;
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) { for (const chunk of held) stream.enqueue(new Uint8Array(chunk)); }
    if (!this.#complete) return;
    if (this.#error === undefined) stream.close();
    else stream.error(this.#error);
  };

  /**
   * Hands a decoded `chunk` to the reader, or holds it until one comes. A
   * promise, which resolves when the reader wants more, when it is full.
   */
  readonly #deliver = (chunk: Uint8Array): Promise<void> | undefined => {
    if (this.#cancelled) return undefined;
    if (this.#sink !== undefined) {
      if (!this.#sink.write(chunk)) this.#cancel(null);
      return undefined;
    }
    if (this.#feed !== undefined) {
      if (!this.#feed.push(plain(chunk))) return undefined;
    } else if (this.#stream === undefined) {
      (this.#held ??= []).push(chunk);
      this.#heldSize += chunk.byteLength;
      if (this.#heldSize < HIGH_WATER) return undefined;
    } else if (!enqueueBytes(this.#stream, chunk)) return undefined;
    return new Promise((resolve) => this.#drained = resolve);
  };

  /** The reader wants more. */
  readonly #pull = (): void => {
    const drained = this.#drained;
    this.#drained = undefined;
    drained?.();
    if (this.#encoded === undefined) this.#resume();
  };

  /** Cancelled with no reason, the body is discarded: up to {@linkcode DISCARD_LIMIT} bytes are read to keep the connection. */
  readonly #cancel = (reason: unknown): void => {
    this.#cancelled = true;
    this.#held = undefined;
    this.#encoded?.destroy();
    this.#pull();
    this.#resume();
    if (this.#ended || this.#failed) return;
    if (reason !== undefined || this.#received > DISCARD_LIMIT) {
      this.#controller?.abort(new errors.RequestAbortedError());
    }
  };

  /**
   * Pauses undici, except after the last byte of a body of known length:
   * paused there, a server's close (without `Connection: close`) would end
   * the socket before undici has seen the message complete.
   */
  #pause(): void {
    if (this.#paused || this.#received >= this.#length) return;
    this.#paused = true;
    this.#controller?.pause();
  }

  #resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#controller?.resume();
  }

  /** The decoded body is complete. */
  readonly #finish = (): void => {
    if (this.#complete || this.#cancelled) return;
    this.#complete = true;
    if (this.#sink !== undefined) this.#sink.end();
    else if (this.#feed !== undefined) this.#feed.end();
    else if (this.#stream !== undefined) {
      this.#stream.close();
      // A reader waiting with its own array is answered with the end.
      this.#stream.byobRequest?.respond(0);
    }
  };

  /** The decoded body failed with `error`. */
  #fail(error: unknown): void {
    if (this.#complete || this.#cancelled) return;
    this.#complete = true;
    this.#error = error;
    this.#held = undefined;
    if (this.#sink !== undefined) this.#sink.fail(error);
    else if (this.#feed !== undefined) this.#feed.fail(error);
    else this.#stream?.error(error);
  }

  /**
   * The decoders failed: when the exchange itself did not (a cut connection
   * fails it first), they rejected the bytes, and the rest of the body is not
   * worth reading.
   */
  readonly #decodeFailed = (error: unknown): void => {
    if (this.#cancelled) return;
    if (!this.#failed) {
      this.#controller?.abort(new errors.RequestAbortedError());
      error = new BodyDecodeError(this.headers["content-encoding"]?.trim() ?? "", error);
    }
    this.#fail(error);
  };
}
