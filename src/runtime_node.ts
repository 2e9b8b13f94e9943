// The Node counterpart of `runtime.ts`: the npm build compiles this file in
// its place, so the npm package pools connections in an undici `Agent` and
// sends with undici's `dispatch()` (several times the throughput of fetch on
// Node), reads files with node:fs, and never branches on the runtime again.
// It exports what `runtime.ts` exports.

import { readFile as readNodeFile } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import type { TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { Agent, errors, FormData as UndiciFormData } from "undici";
import type { Dispatcher } from "undici";
import type { PoolOptions } from "./config/client_config.ts";
import { BodyTooLarge, collectBytes, declaresMoreThan, isZlibWrapped } from "./client/transport.ts";
import type { Transport, WireRequest, WireResponse } from "./client/transport.ts";
import type { Abort } from "./client/abort.ts";

/** A connection pool: the transport bound to it, and the call that releases it. */
export interface Pool {
  readonly transport: Transport;
  close(): void;
}

/**
 * Creates a pool: an undici `Agent`. Deno's option names map to undici's
 * (`poolIdleTimeout` → `keepAliveTimeout`, `http2` → `allowH2`); other
 * options pass through to the Agent. undici's own headers and body timeouts
 * are off: the client's timeout covers the whole exchange.
 */
export function createPool(options: PoolOptions = {}): Pool {
  const { poolIdleTimeout, poolMaxIdlePerHost: _, http1: __, http2, ...rest } = options;
  const agentOptions: Agent.Options = { headersTimeout: 0, bodyTimeout: 0, ...rest };
  if (typeof poolIdleTimeout === "number") agentOptions.keepAliveTimeout = poolIdleTimeout;
  if (poolIdleTimeout === false) agentOptions.keepAliveMaxTimeout = 2 ** 31 - 1;
  if (http2 !== undefined) agentOptions.allowH2 = http2;
  const agent = new Agent(agentOptions);
  return {
    transport: (wire, abort) => send(agent, wire, abort),
    close: () => void agent.destroy().catch(() => {}),
  };
}

/** Reads a whole file from disk. */
export async function readFile(path: string): Promise<Uint8Array> {
  return await readNodeFile(path);
}

// The headers Node's fetch adds when a request has none of its own.
const FETCH_DEFAULTS: readonly (readonly [string, string])[] = [
  ["accept", "*/*"],
  ["accept-encoding", "gzip, deflate, br"],
  ["user-agent", "node"],
];

/**
 * Sends one request with undici's `dispatch()`, the layer under `request()`:
 * the response body is collected by the handler ({@linkcode Exchange})
 * instead of through a `Readable` per response, which took about a third of
 * undici's own CPU time per request.
 */
function send(agent: Agent, wire: WireRequest, abort: Abort): Promise<WireResponse> {
  const exchange = new Exchange(wire.method, abort);
  try {
    const url = new URL(wire.url);
    agent.dispatch({
      origin: url.origin,
      path: url.pathname + url.search,
      method: wire.method as Dispatcher.HttpMethod,
      headers: withFetchDefaults(wire.headers),
      body: typeof wire.body === "object" ? toUndiciForm(wire.body) : wire.body ?? null,
    }, exchange);
  } catch (error) {
    return Promise.reject(error);
  }
  return exchange.head;
}

/** How much of a discarded body is read before the connection is dropped instead (as undici's `dump()`). */
const DISCARD_LIMIT = 128 * 1024;

/**
 * One exchange as undici's dispatch handler, and its response once the head
 * has arrived ({@linkcode Exchange.head}). The body is collected as it comes:
 * as chunks when it is not encoded, else through a `Readable` into the
 * decoders. Aborting the step aborts the exchange, even while it waits for
 * a connection.
 */
class Exchange implements Dispatcher.DispatchHandler, WireResponse {
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
  #chunks: Uint8Array[] = [];
  #size = 0;
  #maxBytes = Infinity;
  #ended = false;
  #failed = false;
  #error: unknown;
  #discarding = false;
  #waiter: { resolve(bytes: Uint8Array): void; reject(error: unknown): void } | undefined;
  /** The encoded body, for the decoders. */
  #encoded: Readable | undefined;
  #decoders: Transform[] = [];

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

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abort.aborted || this.#failed) controller.abort(new errors.RequestAbortedError());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 1xx: informational, the response is still to come.
    this.status = statusCode;
    this.headers = joinHeaders(headers);
    this.location = this.headers["location"] ?? null;
    this.#decoders = decodersFor(this.#method, statusCode, this.headers["content-encoding"]);
    if (this.#decoders.length > 0) this.#encoded = new Readable({ read() {} });
    this.#started = true;
    this.#resolveHead(this);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Uint8Array): void {
    if (this.#encoded !== undefined) {
      this.#encoded.push(chunk);
      return;
    }
    this.#size += chunk.byteLength;
    if (this.#discarding) {
      if (this.#size > DISCARD_LIMIT) controller.abort(new errors.RequestAbortedError());
    } else if (this.#size > this.#maxBytes) {
      controller.abort(new BodyTooLarge(this.#maxBytes));
    } else {
      this.#chunks.push(chunk);
    }
  }

  onResponseEnd(): void {
    this.#ended = true;
    if (this.#encoded !== undefined) this.#encoded.push(null);
    else this.#waiter?.resolve(this.#joined());
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: unknown): void {
    if (this.#failed || this.#ended) return;
    this.#failed = true;
    this.#error = error;
    this.#abort.offAbort(this.#onAbort);
    if (!this.#started) this.#rejectHead(error);
    else if (this.#encoded !== undefined) this.#encoded.destroy(error as Error);
    else this.#waiter?.reject(error);
  }

  bytes(maxBytes: number): Promise<Uint8Array> {
    if (this.#encoded !== undefined) return readDecoded(this.#encoded, this.#decoders, maxBytes);
    this.#maxBytes = maxBytes;
    const declared = this.#method === "HEAD" ? undefined : this.headers["content-length"];
    if (this.#size > maxBytes || declaresMoreThan(declared, maxBytes)) {
      this.#controller?.abort(new errors.RequestAbortedError());
      return Promise.reject(new BodyTooLarge(maxBytes));
    }
    if (this.#failed) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve(this.#joined());
    return new Promise((resolve, reject) => this.#waiter = { resolve, reject });
  }

  discard(): Promise<void> {
    this.#chunks = [];
    if (this.#encoded !== undefined) this.#encoded.destroy();
    else if (!this.#ended && !this.#failed) this.#discarding = true;
    return Promise.resolve();
  }

  /**
   * The body in one plain `Uint8Array` of its own, even for a single chunk
   * (unlike transport.ts's `concat`): undici's chunks are `Buffer` views of
   * socket reads, and the response's content is a `Uint8Array`.
   */
  #joined(): Uint8Array {
    const bytes = new Uint8Array(this.#size);
    let offset = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    this.#chunks = [];
    return bytes;
  }
}

/**
 * undici's `dispatch()` (and `request()`) encodes multipart bodies only from its own FormData
 * class (it checks the brand, and Node's global FormData is another copy).
 */
function toUndiciForm(form: FormData): UndiciFormData {
  const copy = new UndiciFormData();
  for (const [name, value] of form) {
    if (typeof value === "string") copy.append(name, value);
    else copy.append(name, value, value.name);
  }
  return copy;
}

/** The headers as undici's flat `[name, value, ...]` list, fetch's defaults added. */
function withFetchDefaults(headers: Readonly<Record<string, string>>): string[] {
  const flat: string[] = [];
  let given = 0;
  for (const name in headers) {
    flat.push(name, headers[name] as string);
    const lower = name.toLowerCase();
    for (let i = 0; i < FETCH_DEFAULTS.length; i++) {
      if ((FETCH_DEFAULTS[i] as readonly [string, string])[0] === lower) given |= 1 << i;
    }
  }
  FETCH_DEFAULTS.forEach(([name, value], i) => {
    if ((given & (1 << i)) === 0) flat.push(name, value);
  });
  return flat;
}

/** undici's headers with repeated ones joined by ", ", as `Headers.get` does. */
function joinHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const record: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) record[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return record;
}

/** Reads the decoded body: the limit counts decoded bytes. */
async function readDecoded(
  encoded: Readable,
  decoders: Transform[],
  maxBytes: number,
): Promise<Uint8Array> {
  let bytes: Uint8Array = new Uint8Array(0);
  // pipeline() destroys every stream when one fails, the sink included.
  await chain(encoded, ...decoders, async (decoded: AsyncIterable<Uint8Array>) => {
    bytes = await collectBytes(decoded, maxBytes);
  });
  return bytes;
}

// Node's typings have no overload for a spread of transforms before a sink.
const chain = pipeline as (...stages: unknown[]) => Promise<void>;

/**
 * The decoders for a Content-Encoding, applied in reverse order of the
 * codings, as fetch does: none for HEAD, 204, 205 and 304, none at all when
 * one coding is unknown (the body is then returned as received).
 */
function decodersFor(method: string, status: number, encoding: string | undefined): Transform[] {
  if (encoding === undefined || method === "HEAD") return [];
  if (status === 204 || status === 205 || status === 304) return [];
  const decoders: Transform[] = [];
  for (const coding of encoding.toLowerCase().split(",").reverse()) {
    const decoder = decoderFor(coding.trim());
    if (decoder === undefined) return [];
    decoders.push(decoder);
  }
  return decoders;
}

// Lenient about a missing end of stream, as fetch is.
const ZLIB_OPTIONS = {
  flush: zlib.constants.Z_SYNC_FLUSH,
  finishFlush: zlib.constants.Z_SYNC_FLUSH,
};
const BROTLI_OPTIONS = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

function decoderFor(coding: string): Transform | undefined {
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(ZLIB_OPTIONS);
    case "deflate":
      return new DeflateDecoder();
    case "br":
      return zlib.createBrotliDecompress(BROTLI_OPTIONS);
    default:
      return undefined;
  }
}

/**
 * Inflates "deflate", zlib-wrapped or raw as some servers send it: the first
 * byte tells ({@linkcode isZlibWrapped}).
 */
class DeflateDecoder extends Transform {
  #inflate: zlib.Inflate | zlib.InflateRaw | undefined;

  override _transform(chunk: Uint8Array, _: BufferEncoding, done: TransformCallback): void {
    if (this.#inflate === undefined) {
      if (chunk.byteLength === 0) return done();
      const inflate = isZlibWrapped(chunk[0] as number)
        ? zlib.createInflate(ZLIB_OPTIONS)
        : zlib.createInflateRaw(ZLIB_OPTIONS);
      inflate.on("data", (data: Uint8Array) => this.push(data));
      inflate.on("error", (error: Error) => this.destroy(error));
      this.#inflate = inflate;
    }
    this.#inflate.write(chunk, done);
  }

  override _flush(done: TransformCallback): void {
    if (this.#inflate === undefined) return done();
    this.#inflate.once("end", () => done());
    this.#inflate.end();
  }
}
