// A call's bodies between the exchange and the caller: the request body on
// its way to the transport, with its upload progress; and the body of a
// streamed call after its head, the response's one stream, with its read
// timeout and download progress. Reading a body whole under its limit, and
// the progress reports themselves, are transport/body.ts's.

import { describeCall, HttpClientException, timedOut } from "../errors.ts";
import {
  CUT_SHORT,
  receivedResponse,
  streamedBodyOf,
  streamedResponse,
} from "../models/response.ts";
import type { HttpResponse, HttpResponseInit, StreamedBody } from "../models/response.ts";
import type { ExchangeClock } from "../models/timings.ts";
import { isFailure } from "../transport/failures.ts";
import {
  bodySize,
  decodedLength,
  type ProgressCallback,
  readBody,
  report,
  reportEnd,
  type UploadFailures,
  uploadStream,
} from "../transport/body.ts";
import type { Transport, WireRequest, WireResponse } from "../transport/types.ts";
import type { AbortSources, Step } from "./deadline.ts";
import type { Abort } from "../transport/types.ts";
import { link, unlink } from "./deadline.ts";
import type { InFlight } from "./deadline.ts";
import { cancelTimeout, type Deadline, SHARED_FROM_MS, startTimeout } from "./deadline.ts";

// The request body of one exchange on its way to the transport. A stream
// body is read through a watch (transport/body.ts): when its source fails,
// the exchange fails with that, not with the transport's report of it.
//
// Upload progress: only the bytes handed to the transport
// can be counted, not those the server received. A body of known size
// (string, bytes, Blob, a multipart body of Blobs) is sent as it is, so it
// keeps its Content-Length: the callback is told at the start (0 bytes) and,
// once the response head has arrived, at the end. A stream body is read
// through a counter: at the start, after each chunk the transport pulls,
// and at its end, with the total from the start when its length is known
// (a multipart body reading files). A callback that throws fails the exchange with its error
// and drops the connection.

/**
 * Sends `wire` through `transport`, telling `callback`, when given, how far
 * its body went. A stream body whose source fails fails the exchange with a
 * `source` Failure (transport/failures.ts), whatever the transport made of it.
 */
export async function sendBody(
  wire: WireRequest,
  abort: Abort,
  transport: Transport,
  callback: ProgressCallback | undefined,
): Promise<WireResponse> {
  if (callback !== undefined) return await sendCounted(wire, abort, transport, callback);
  const { body } = wire;
  if (!(body instanceof ReadableStream)) return await transport(wire, abort);
  const failed: UploadFailures = {};
  try {
    return await transport({ ...wire, body: uploadStream(body, failed) }, abort);
  } catch (error) {
    throw failed.source ?? error;
  }
}

/**
 * Sends `wire` through `transport`, telling `callback` how far its body
 * went; a stream body's source failure wins over the callback's, and that
 * over the transport's error.
 */
async function sendCounted(
  wire: WireRequest,
  abort: Abort,
  transport: Transport,
  callback: ProgressCallback,
): Promise<WireResponse> {
  const { body } = wire;
  if (body === undefined) return await transport(wire, abort);
  const size = wire.bodyLength ?? bodySize(body);
  try {
    report(callback, 0, size);
  } catch (error) {
    // The caller's stream is never sent: given up with the callback's error, so its source closes.
    if (body instanceof ReadableStream) {
      const reason = isFailure(error, "progress") ? error.cause : error;
      await body.cancel(reason).catch(() => {});
    }
    throw error;
  }
  const failed: UploadFailures = {};
  const sent = body instanceof ReadableStream
    ? { ...wire, body: uploadStream(body, failed, { callback, total: size }) }
    : wire;
  let response: WireResponse;
  try {
    response = await transport(sent, abort);
  } catch (error) {
    throw failed.source ?? failed.callback ?? error;
  }
  try {
    if (failed.callback !== undefined) throw failed.callback;
    if (size !== undefined && sent === wire) reportEnd(callback, size);
  } catch (error) {
    // The response is not read: its body is cancelled with a reason, which drops the connection.
    await response.body?.cancel(error).catch(() => {});
    throw failed.source ?? error;
  }
  return response;
}

// The body of a streamed call, after its head: the call's timeout and total
// timeout stop at the head; from there each wait for the next chunk has the
// read timeout, the client's close and the caller's signal still abort the
// exchange, and the call stays in flight until the body is read to its end,
// cancelled or fails. Its failures become the library's exceptions, as the
// exchange's do.

/** The streamed response of `exchange`, its body read under `options`. */
export function streamedCall(
  exchange: StreamedExchange,
  options: StreamedCallOptions,
): HttpResponse {
  return streamedResponse(exchange.init, new WireBody(exchange, options));
}

/**
 * The most bytes of a streamed error's body (a 4xx or 5xx) read with its
 * head, so that `raiseForStatus()` quotes the server's reason as it does
 * for a buffered response: an error body is small, and sent with its head.
 */
const HELD_ERROR_BODY = 4 * 1024;

/**
 * Reads the body of a streamed 4xx or 5xx `response` with its head when its
 * Content-Length is at most {@linkcode HELD_ERROR_BODY} (a body of unknown
 * or larger length is left unread, as every 1xx-3xx body is); the response
 * stays streamed, its body giving the same bytes.
 */
export function holdErrorBody(response: HttpResponse): Promise<void> | undefined {
  const { statusCode } = response;
  if (statusCode < 400 || statusCode > 599) return undefined;
  const body = streamedBodyOf(response);
  return body instanceof WireBody ? body.hold(HELD_ERROR_BODY) : undefined;
}

// The body of a streamed call as its one stream.

type Controller = ReadableStreamDefaultController<Uint8Array>;

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
  /** The exchange's step, its timeout already stopped. */
  readonly abort: Step;
  /** The response's fields, but its content. */
  readonly init: Omit<HttpResponseInit, "content">;
  /** Turns what the body's stream throws into the library's exception. */
  readonly toClientError: (error: unknown) => unknown;
  /** When the call's exchange started (`performance.now()`). */
  readonly since: number;
  /** The exchange's clock, told when the body ends. */
  readonly clock?: ExchangeClock | undefined;
}

/**
 * The body's one stream, pulled from the reader of the transport's `body`,
 * with the read timeout, progress and the end seen inline: no stream
 * between, and no promise nor closure of its own per chunk.
 */
class WireBody implements StreamedBody {
  #settled = false;
  #listener: (() => void) | undefined = undefined;
  readonly maxResponseBytes: number;
  readonly #inner: ReadableStream<Uint8Array> | null;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined = undefined;
  /** A small body of known length, read in one native read (no reader of the transport's stream). */
  #whole: "no" | "yes" | "reading" = "no";
  /** True when a read of the whole body may take it in one native read (a known, small length). */
  #wholeable = false;
  /**
   * The bytes of a body of known length still to come; once they have, the
   * end is read at once (the tail), so the call settles when its last byte
   * comes, not when the caller reads the end.
   */
  #left = 0;
  #tail: Promise<ReadableStreamReadResult<Uint8Array>> | undefined = undefined;
  /** The body's one stream, once made, and its controller. */
  #out: ReadableStream<Uint8Array> | undefined = undefined;
  #controller: Controller | undefined = undefined;
  /** The stream was closed, errored or cancelled: what comes later is dropped. */
  #done = false;
  #taken = false;
  /** The whole body, read with the head ({@linkcode WireBody.hold}). */
  #held: Uint8Array | undefined = undefined;
  #read: Promise<HttpResponse> | undefined = undefined;
  #transferred = -1;
  #total: number | undefined = undefined;
  #callbackFailed = false;
  readonly #timeout: ReadTimeout | undefined;
  readonly #wire: WireResponse;
  readonly #abort: Step;
  readonly #init: Omit<HttpResponseInit, "content">;
  readonly #options: StreamedCallOptions;
  readonly #toClientError: (error: unknown) => unknown;
  readonly #since: number;
  readonly #clock: ExchangeClock | undefined;
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
    this.maxResponseBytes = options.maxResponseBytes;
    this.#toClientError = exchange.toClientError;
    this.#since = exchange.since;
    this.#clock = exchange.clock;
    this.#inner = wire.body;
    if (this.#inner === null) {
      this.#settled = true;
      return;
    }
    const seconds = options.readTimeout ?? null;
    if (seconds !== null) this.#timeout = new ReadTimeout(seconds * 1000, this.#expire);
    // The exchange's step is released with the head: the close and the
    // caller's signal now reach the transport through its abort.
    options.closed.addEventListener("abort", this.#onAbort);
    options.signal?.addEventListener("abort", this.#onAbort);
    if (options.closed.aborted || options.signal?.aborted) abort.abort();
    const length = decodedLength(wire.headers) ?? 0;
    this.#wholeable = wire.readAll !== undefined && length < WHOLE && length > 0;
    this.#left = length;
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
    return this.#stream();
  }

  #stream(): ReadableStream<Uint8Array> {
    return this.#out = new ReadableStream<Uint8Array>({
      start: (controller) => void (this.#controller = controller),
      pull: this.#pull,
      cancel: (reason) => this.#cancelInner(reason),
    }, { highWaterMark: 0 });
  }

  held(): Uint8Array | undefined {
    return this.#held;
  }

  whenSettled(listener: () => void): boolean {
    if (this.#settled) return false;
    const previous = this.#listener;
    this.#listener = previous === undefined ? listener : () => (previous(), listener());
    return true;
  }

  /**
   * Reads the body whole now, when nothing has taken it and its Content-Length
   * is at most `max` bytes (else nothing is read); its stream and `read()`
   * then give those bytes. What the read throws is the transport's, unmapped.
   */
  async hold(max: number): Promise<void> {
    const length = decodedLength(this.#wire.headers);
    if (this.#inner === null || this.#taken || length === undefined || length > max) return;
    try {
      this.#held = await readBody(this.#wire, this.maxResponseBytes);
    } finally {
      this.#settle();
    }
  }

  /** A read waits, its queue empty: the next chunk is read from the transport's stream. */
  readonly #pull = (): Promise<void> | undefined => {
    if (this.#transferred < 0 && !this.#progress(0, false)) return;
    const held = this.#held;
    if (held !== undefined) {
      if (held.byteLength > 0) this.#push(held);
      this.#end();
      return;
    }
    this.#timeout?.wait();
    if (this.#whole === "yes") {
      this.#whole = "reading";
      return this.#wire.readAll!().then(this.#onWhole, this.#onError);
    }
    const tail = this.#tail;
    this.#tail = undefined;
    if (tail !== undefined) return tail.then(this.#onRead, this.#onError);
    return (this.#reader ??= this.#inner!.getReader()).read().then(this.#onRead, this.#onError);
  };

  readonly #onRead = (result: ReadableStreamReadResult<Uint8Array>): void => {
    if (result.done) return this.#end();
    this.#push(result.value);
    if (this.#left <= 0 || (this.#left -= result.value.byteLength) > 0) return;
    // The last byte came: the end is read now, and a chunk past it left to the next pull.
    const tail = this.#tail = this.#reader!.read();
    tail.then((end) => end.done && this.#end(), this.#onError);
  };

  readonly #onWhole = (bytes: Uint8Array): void => {
    if (bytes.byteLength > 0) this.#push(bytes);
    this.#end();
  };

  readonly #onError = (error: unknown): void => {
    if (this.#done) return;
    this.#timeout?.waited();
    this.#done = true;
    this.#controller!.error(this.#toClientError(error));
    this.#settle();
  };

  /** A chunk from the transport. */
  #push(chunk: Uint8Array): void {
    if (this.#done) return;
    this.#timeout?.waited();
    this.#controller!.enqueue(chunk);
    this.#progress(chunk.byteLength, false);
  }

  #end(): void {
    if (this.#done) return;
    this.#timeout?.waited();
    if (!this.#progress(0, true)) return;
    this.#clock?.end(performance.now());
    this.#done = true;
    this.#controller!.close();
    this.#settle();
  }

  read(): Promise<HttpResponse> {
    return this.#read ??= this.#readWhole();
  }

  async #readWhole(): Promise<HttpResponse> {
    // Only a read of the whole body takes it in one native read: a stream the
    // caller takes gets each chunk as it comes, however small the body.
    if (this.#wholeable && !this.#taken) this.#whole = "yes";
    const body = this.take();
    try {
      // A response without a body (HEAD, 204, 304) has none, whatever its Content-Length says.
      const content = this.#inner === null ? new Uint8Array(0) : await readBody(
        { status: this.#init.statusCode, headers: this.#wire.headers, location: null, body },
        this.#options.maxResponseBytes,
      );
      const now = performance.now();
      this.#clock?.end(now);
      return receivedResponse({ ...this.#init, content, elapsedMs: now - this.#since });
    } catch (error) {
      throw this.#callbackFailed ? error : this.#toClientError(error);
    }
  }

  /**
   * Tells the download callback, if any, of `bytes` more (at the first
   * read, 0 bytes first), or of the end. False when the callback threw:
   * the stream then fails with what it threw, and the connection is dropped.
   */
  #progress(bytes: number, end: boolean): boolean {
    const callback = this.#options.onDownloadProgress;
    if (callback === undefined) return true;
    if (this.#transferred < 0) this.#total = decodedLength(this.#wire.headers);
    const transferred = Math.max(this.#transferred, 0) + bytes;
    // read() fails a body past its limit: the bytes past it are not told.
    if (this.#read !== undefined && transferred > this.maxResponseBytes) return true;
    this.#transferred = transferred;
    try {
      if (end) reportEnd(callback, this.#transferred);
      else report(callback, this.#transferred, this.#total);
      return true;
    } catch (error) {
      if (!isFailure(error, "progress")) throw error;
      this.#callbackFailed = true;
      this.#stop(error.cause, error.cause);
      return false;
    }
  }

  async cancel(): Promise<void> {
    if (this.#settled) return;
    this.#taken = true;
    // A read waiting on the stream ends now: read() fails (its body is not
    // whole); any other reader sees an end that is not the body's.
    if (!this.#done && this.#out !== undefined) {
      this.#done = true;
      CUT_SHORT.add(this.#out);
      if (this.#read === undefined) this.#controller!.close();
      else {
        const { request } = this.#init;
        const message = `Response body was cancelled during read(): ${describeCall(request)}`;
        this.#controller!.error(new HttpClientException(message, { request }));
      }
    }
    await this.#cancelInner(undefined);
  }

  /**
   * Cancels the transport's body with a reason, so the connection is
   * dropped: a streamed body may never end (an event stream), and reading
   * its rest to keep the connection could hold it for ever.
   */
  async #cancelInner(reason: unknown): Promise<void> {
    this.#done = true;
    this.#timeout?.waited();
    this.#settle();
    reason ??= new DOMException("Response body was cancelled", "AbortError");
    // A whole read cannot be cancelled: the exchange's abort drops the connection.
    if (this.#whole === "reading") this.#abort.abort();
    await (this.#reader ?? this.#inner)?.cancel(reason).catch(() => {});
  }

  /** Fails the stream with `error` and gives the transport's body up with `reason`. */
  #stop(error: unknown, reason: unknown): void {
    if (!this.#done) {
      this.#done = true;
      this.#controller?.error(error);
    }
    this.#cancelInner(reason);
  }

  /** The read waiting waited the whole read timeout. */
  readonly #expire = (): void => {
    if (this.#done) return;
    const { request } = this.#init;
    const error = timedOut(
      request,
      `Read timed out after ${this.#timeout!.ms / 1000} s (readTimeout)`,
    );
    this.#stop(error, error);
  };

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#timeout?.stop();
    this.#options.closed.removeEventListener("abort", this.#onAbort);
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }
}

/**
 * A body of known length below this is read in one native read, a single
 * chunk: a reader of the transport's stream costs more than such a body.
 */
const WHOLE = 64 * 1024;

// The read timeout of a streamed body: each wait for the next chunk may last
// at most the timeout. A timeout of a second or more is a deadline on the
// shared timeout tick while a read waits (nothing per chunk but a clock
// reading); a shorter one has one timer per body, moved on to the deadline of
// the read waiting when it fires early, as a timer per chunk costs more than
// the chunk on a fast connection.

/** The read timeout of one body; `expire` is called when a read waited the whole of it. */
class ReadTimeout implements Deadline {
  at = Infinity;
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  prevInFlight: InFlight | undefined = undefined;
  nextInFlight: InFlight | undefined = undefined;
  #linked = false;
  /** A short timeout's: when the read now waiting began; -1 when none waits. */
  #waitingSince = -1;
  /** A short timeout's one timer, while armed. */
  #own: ReturnType<typeof setTimeout> | undefined = undefined;
  #stopped = false;

  /**
   * @param ms The timeout, in milliseconds.
   * @param expire Called once a read has waited `ms`.
   */
  constructor(readonly ms: number, readonly expire: () => void) {}

  /** A read now waits for the next chunk (a read already waiting keeps its deadline). */
  wait(): void {
    if (this.#stopped) return;
    if (this.ms >= SHARED_FROM_MS) {
      if (this.at !== Infinity) return;
      if (!this.#linked) {
        this.#linked = true;
        link(this);
      }
      startTimeout(this, this.ms);
      return;
    }
    if (this.#waitingSince >= 0) return;
    this.#waitingSince = performance.now();
    this.#own ??= setTimeout(this.#onTimer, this.ms);
  }

  /** The read waiting got its chunk, the end or a failure. */
  waited(): void {
    if (this.at !== Infinity) cancelTimeout(this);
    this.#waitingSince = -1;
  }

  /** The body is done: no read waits any more. */
  stop(): void {
    this.#stopped = true;
    this.waited();
    clearTimeout(this.#own);
    this.#own = undefined;
    if (this.#linked) unlink(this);
    this.#linked = false;
  }

  /**
   * A short timeout's timer fired: a read waiting for less than the timeout
   * moves it on to that read's own deadline, one waiting for the whole
   * timeout expires, and with no read waiting the next read arms it.
   */
  readonly #onTimer = (): void => {
    this.#own = undefined;
    if (this.#waitingSince < 0 || this.#stopped) return;
    const left = this.#waitingSince + this.ms - performance.now();
    if (left > 0) this.#own = setTimeout(this.#onTimer, left);
    else this.expire();
  };
}
