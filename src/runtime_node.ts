// The Node counterpart of `runtime.ts`: the npm build compiles this file in
// its place, so the npm package pools connections in an undici `Agent` and
// sends with undici's `request()` (several times the throughput of fetch on
// Node), reads files with node:fs, and never branches on the runtime again.
// It exports what `runtime.ts` exports.

import { readFile as readNodeFile } from "node:fs/promises";
import { Transform } from "node:stream";
import type { Readable, TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { Agent, FormData as UndiciFormData, request } from "undici";
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

async function send(agent: Agent, wire: WireRequest, abort: Abort): Promise<WireResponse> {
  const { statusCode, headers, body } = await request(wire.url, {
    dispatcher: agent,
    method: wire.method as Dispatcher.HttpMethod,
    headers: withFetchDefaults(wire.headers),
    body: typeof wire.body === "object" ? toUndiciForm(wire.body) : wire.body ?? null,
    // An Abort is an emitter of "abort", which undici takes as a signal: no
    // AbortController, and no object with a getter of its own per request
    // (those made V8's young-generation collections several times slower).
    signal: abort as unknown as Dispatcher.RequestOptions["signal"],
  });
  const record = joinHeaders(headers);
  const decoders = decodersFor(wire.method, statusCode, record["content-encoding"]);
  return {
    status: statusCode,
    headers: record,
    location: record["location"] ?? null,
    bytes: (maxBytes) => readBody(body, decoders, record["content-length"], maxBytes),
    discard: () => body.dump(),
  };
}

/**
 * undici's `request()` encodes multipart bodies only from its own FormData
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

async function readBody(
  body: Readable & { bytes(): Promise<Uint8Array> },
  decoders: Transform[],
  contentLength: string | undefined,
  maxBytes: number,
): Promise<Uint8Array> {
  if (maxBytes === Infinity && decoders.length === 0) return await body.bytes();
  if (decoders.length === 0 && declaresMoreThan(contentLength, maxBytes)) {
    body.destroy();
    throw new BodyTooLarge(maxBytes);
  }
  let bytes: Uint8Array = new Uint8Array(0);
  // pipeline() destroys every stream when one fails, the sink included.
  await chain(body, ...decoders, async (decoded: AsyncIterable<Uint8Array>) => {
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
