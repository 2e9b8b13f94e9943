// The transport over a `fetch`: Deno's pool, the global `fetch` of Bun,
// workerd and browsers, or the caller's own (`withFetch`). Decodes a body
// the fetch leaves encoded.

import type { FetchLike, NetworkOptions, Pool, Transport, WireResponse } from "./types.ts";
import { decodeFailure, headOverflow, isDecoderError } from "./failures.ts";
import { RuntimeLimitError, runtimeName } from "../errors.ts";

/** How {@linkcode fetchTransport} adapts a `fetch`. */
export interface FetchTransportOptions {
  /** Merged into every `RequestInit` (Deno's pool goes in as `client`). */
  readonly init?: RequestInit;
  /**
   * Decodes a body whose Content-Encoding is `deflate`, for a `fetch` that
   * decodes only gzip and br and leaves deflate as it came (Deno's).
   */
  readonly inflate?: boolean;
}

/**
 * The pool of a runtime without one of its own (Bun, workerd, browsers):
 * the global `fetch`, with nothing to close. A proxy and TLS options are
 * refused (the builder refuses them first, as `pooled` is false there; a
 * setting that reached this far anyway is refused too, never ignored).
 * workerd's fetch, like Deno's, decodes gzip and br but leaves a deflate
 * body encoded: it is inflated here (a worker bundled with only the
 * `worker` condition takes the browser build, so it too comes here).
 */
export function globalFetchPool(network: NetworkOptions): Pool {
  if (network.proxy !== undefined && network.proxy !== null) {
    throw new TypeError(`Invalid proxy: ${runtimeName()} has no pool to send through a proxy`);
  }
  if (network.tls !== undefined) {
    throw new TypeError(`Invalid tls: ${runtimeName()} has no pool to apply TLS options`);
  }
  return {
    transport: fetchTransport((input, init) => fetch(input, init), {
      inflate: runtimeName() === "workerd",
    }),
    close() {},
  };
}

/**
 * A transport over a `fetch`-compatible function: the pool's on Deno, or
 * a custom one (`withFetch`). Redirects are left to the caller
 * (`redirect: "manual"`).
 */
export function fetchTransport(
  fetchLike: FetchLike,
  options: FetchTransportOptions = {},
): Transport {
  const { init: extra, inflate = false } = options;
  return async (request, abort) => {
    const init: RequestInit = {
      method: request.method,
      redirect: "manual",
      signal: abort.signal(),
    };
    // No headers at all is cheaper for fetch than an empty record.
    for (const _ in request.headers) {
      init.headers = request.headers;
      break;
    }
    const { body } = request;
    if (body !== undefined) {
      init.body = body as BodyInit;
      // fetch sends a stream only with `duplex: "half"`: the response may come before its end.
      if (body instanceof ReadableStream) (init as { duplex?: string }).duplex = "half";
    }
    if (extra !== undefined) Object.assign(init, extra);
    let response: Response;
    try {
      response = await fetchLike(request.url, init);
    } catch (error) {
      throw headOverflow(error) ?? error;
    }
    if (response.type === "opaqueredirect") throw opaqueRedirect();
    // A HEAD, 204, 205 or 304 has no body, whatever a runtime's fetch hands over (Chromium
    // an empty stream for a HEAD): the contract's `null`, so its Content-Length is not read as one.
    if (hasNoBody(request.method, response.status)) {
      void response.body?.cancel().catch(() => {});
      const { status, headers } = response;
      return { status, headers, location: headers.get("location"), body: null };
    }
    return new FetchResponse(response, inflate);
  };
}

/**
 * A browser's fetch answers a redirect with `redirect: "manual"` by an opaque
 * response (status 0, no headers, no Location): the client can neither follow
 * it nor return it, so the call fails, naming the runtime, rather than
 * resolve to a response that is not the server's. Never retried: the same
 * redirect would come again.
 */
function opaqueRedirect(): RuntimeLimitError {
  return new RuntimeLimitError(
    `Redirect not followed: ${runtimeName()} hides a redirect's status and Location from ` +
      "fetch; call the final URL, or have the server answer without a redirect",
  );
}

const NO_BODY: ReadonlySet<number> = new Set([204, 205, 304]);

/** True when a response to `method` with `status` has no body: a HEAD's, a 204, 205 or 304. */
export function hasNoBody(method: string, status: number): boolean {
  return method === "HEAD" || NO_BODY.has(status);
}

/**
 * A fetch `Response` as a {@linkcode WireResponse}; headers are read, and an
 * encoded body's decoding stream made, only when asked for.
 */
class FetchResponse implements WireResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly #response: Response;
  readonly #inflate: boolean;
  #body: ReadableStream<Uint8Array> | null | undefined = undefined;

  constructor(response: Response, inflate: boolean) {
    this.status = response.status;
    this.headers = response.headers;
    this.#response = response;
    this.#inflate = inflate;
  }

  get location(): string | null {
    return this.headers.get("location");
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body !== undefined) return this.#body;
    const { body } = this.#response;
    const coding = body === null
      ? undefined
      : this.headers.get("content-encoding")?.trim().toLowerCase() || undefined;
    // An unencoded body is the fetch's own stream: a byte stream, read in place.
    return this.#body = coding === undefined
      ? body
      : decodedBody(body as ReadableStream, coding, this.#inflate);
  }

  /** `Response.bytes()` where the runtime has it (Deno, Node 22): one allocation, no copy. */
  readAll(): Promise<Uint8Array> {
    const response = this.#response;
    const { bytes } = response as { bytes?: () => Promise<Uint8Array> };
    return typeof bytes === "function"
      ? bytes.call(response)
      : response.arrayBuffer().then((buffer) => new Uint8Array(buffer));
  }
}

/**
 * True when a deflate body starting with `firstByte` is zlib-wrapped, as
 * RFC 9110 means "deflate"; some servers send raw deflate instead. A zlib
 * header's low nibble is 8, the deflate method.
 */
export function isZlibWrapped(firstByte: number): boolean {
  return (firstByte & 0x0f) === 0x08;
}

/** Reads one chunk of a stream. */
type Read = () => Promise<ReadableStreamReadResult<Uint8Array>>;

/**
 * The body of an encoded response, decoded (by the fetch, or inflated here
 * with `inflate`): the decoder's failure becomes a `decode` Failure,
 * the connection's stays as it is. Nothing is read before it is asked for.
 */
function decodedBody(
  body: ReadableStream<Uint8Array>,
  coding: string,
  inflate: boolean,
): ReadableStream<Uint8Array> {
  const raw = body.getReader();
  const own = inflate && coding === "deflate";
  // Set when a read of the body itself fails, which is the connection's
  // failure when this side inflates; a fetch that decodes fails its reads
  // with the decoder's errors too.
  let failed = false;
  const readRaw: Read = () =>
    raw.read().catch((error) => {
      failed = true;
      throw error;
    });
  let read: Read | undefined = own ? undefined : readRaw;
  let inflater: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (read === undefined) {
          inflater = await inflating(readRaw, raw);
          read = inflater === undefined ? readRaw : () => inflater!.read();
        }
        const { done, value } = await read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        throw !(own && failed) && isDecoderError(error) ? decodeFailure(coding, error) : error;
      }
    },
    cancel: (reason) => (inflater ?? raw).cancel(reason),
  }, { highWaterMark: 0 });
}

/**
 * A reader of the body inflated, zlib-wrapped or raw as its first byte
 * tells; `undefined` for an empty body.
 */
async function inflating(
  readRaw: Read,
  raw: ReadableStreamDefaultReader<Uint8Array>,
): Promise<ReadableStreamDefaultReader<Uint8Array> | undefined> {
  let first = await readRaw();
  while (!first.done && first.value.byteLength === 0) first = await readRaw();
  if (first.done) return undefined;
  let pending: Uint8Array | undefined = first.value;
  const zlibWrapped = isZlibWrapped(pending[0] as number);
  const rejoined = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending !== undefined) {
        controller.enqueue(pending);
        pending = undefined;
        return;
      }
      const { done, value } = await readRaw();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => raw.cancel(reason),
  });
  return rejoined.pipeThrough(
    new DecompressionStream(zlibWrapped ? "deflate" : "deflate-raw") as TransformStream<
      Uint8Array,
      Uint8Array
    >,
  ).getReader();
}
