import type { FetchLike, Transport, WireResponse } from "./types.ts";
import { BodyTooLarge, collectBytes, collectStream } from "./body_buffer.ts";
import { BodyDecodeError, headOverflow, isDecoderError } from "./transport_errors.ts";

export { BodyTooLarge, collectBytes } from "./body_buffer.ts";
export { BodyDecodeError, headOverflow, MalformedResponse } from "./transport_errors.ts";

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
    if (request.body !== undefined) init.body = request.body;
    if (extra !== undefined) Object.assign(init, extra);
    let response: Response;
    try {
      response = await fetchLike(request.url, init);
    } catch (error) {
      throw headOverflow(error) ?? error;
    }
    return new FetchResponse(response, inflate);
  };
}

/** A fetch `Response` as a {@linkcode WireResponse}; headers are read only when asked for. */
class FetchResponse implements WireResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly #response: Response;
  readonly #inflate: boolean;

  constructor(response: Response, inflate: boolean) {
    this.status = response.status;
    this.headers = response.headers;
    this.#response = response;
    this.#inflate = inflate;
  }

  get location(): string | null {
    return this.headers.get("location");
  }

  async bytes(maxBytes: number): Promise<Uint8Array> {
    const response = this.#response;
    const coding = response.headers.get("content-encoding")?.trim().toLowerCase() || undefined;
    const source = { failed: false };
    try {
      return await readFetchBody(response, maxBytes, coding, this.#inflate, source);
    } catch (error) {
      throw coding !== undefined && !source.failed && isDecoderError(error)
        ? new BodyDecodeError(coding, error)
        : error;
    }
  }

  async discard(): Promise<void> {
    await this.#response.body?.cancel();
  }
}

/**
 * Reads the whole decoded body under `maxBytes`. An unencoded body of known
 * length is read by `Response.bytes()` (on Deno one allocation of that
 * length, the cheapest read); any other goes through a {@linkcode BodyBuffer}
 * that stops at the limit. `source.failed` tells a connection failure from
 * the decoder's.
 */
async function readFetchBody(
  response: Response,
  maxBytes: number,
  coding: string | undefined,
  inflate: boolean,
  source: { failed: boolean },
): Promise<Uint8Array> {
  const { body } = response;
  if (body === null) return new Uint8Array(0);
  if (inflate && coding === "deflate") {
    return await collectBytes(await inflated(body, source), maxBytes);
  }
  if (maxBytes === Infinity) return await allBytes(response);
  const length = coding === undefined ? response.headers.get("content-length") : null;
  if (declaresMoreThan(length, maxBytes)) {
    await body.cancel();
    throw new BodyTooLarge(maxBytes);
  }
  if (length === null) return await collectStream(body, maxBytes);
  const bytes = await allBytes(response);
  // A `withFetch` function may give a body longer than its Content-Length.
  if (bytes.byteLength > maxBytes) throw new BodyTooLarge(maxBytes);
  return bytes;
}

/** The whole body: `Response.bytes()` where the runtime has it (Deno, Node 22), no copy either way. */
async function allBytes(response: Response): Promise<Uint8Array> {
  const { bytes } = response as { bytes?: () => Promise<Uint8Array> };
  return typeof bytes === "function"
    ? await bytes.call(response)
    : new Uint8Array(await response.arrayBuffer());
}

/** True when a Content-Length value announces more than `maxBytes`: fail before reading. */
export function declaresMoreThan(contentLength: string | null | undefined, maxBytes: number) {
  return Number(contentLength ?? 0) > maxBytes;
}

/**
 * True when a deflate body starting with `firstByte` is zlib-wrapped, as
 * RFC 9110 means "deflate"; some servers send raw deflate instead. A zlib
 * header's low nibble is 8, the deflate method.
 */
export function isZlibWrapped(firstByte: number): boolean {
  return (firstByte & 0x0f) === 0x08;
}

/** `body` inflated, zlib-wrapped or raw; a failed read of `body` sets `source.failed`. */
async function inflated(
  body: ReadableStream<Uint8Array>,
  source: { failed: boolean },
): Promise<ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  const read = () =>
    reader.read().catch((error) => {
      source.failed = true;
      throw error;
    });
  let first = await read();
  while (!first.done && first.value.byteLength === 0) first = await read();
  let pending = first.done ? undefined : first.value;
  if (pending === undefined) return new Blob([]).stream();
  const raw = !isZlibWrapped(pending[0] as number);
  const rejoined = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending !== undefined) {
        controller.enqueue(pending);
        pending = undefined;
        return;
      }
      const { done, value } = await read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return rejoined.pipeThrough(
    new DecompressionStream(raw ? "deflate-raw" : "deflate") as TransformStream<
      Uint8Array,
      Uint8Array
    >,
  );
}
