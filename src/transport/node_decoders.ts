// The decoders of the npm build's transport (`undici_exchange.ts`): Node's
// zlib for each Content-Encoding, as fetch decodes them.

import { Readable, Transform } from "node:stream";
import type { TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { isZlibWrapped } from "./fetch_transport.ts";

/**
 * Pipes `encoded` through `decoders` into `deliver`, which returns a promise
 * while the reader of the decoded bytes wants no more. Rejects with the
 * first stream's error.
 */
export async function pipeDecoded(
  encoded: Readable,
  decoders: Transform[],
  deliver: (chunk: Uint8Array) => Promise<void> | undefined,
): Promise<void> {
  await chain(encoded, ...decoders, async (decoded: AsyncIterable<Uint8Array>) => {
    for await (const chunk of decoded) {
      const full = deliver(chunk);
      if (full !== undefined) await full;
    }
  });
}

/** What {@linkcode startDecoding} calls back. */
export interface DecodingCallbacks {
  /** The decoders want more encoded bytes. */
  resume(): void;
  /** A decoded chunk; a promise while the reader wants no more. */
  deliver(chunk: Uint8Array): Promise<void> | undefined;
  /** The whole body was decoded. */
  finish(): void;
  /** The decoders, or the encoded stream, failed. */
  fail(error: unknown): void;
}

/**
 * Starts decoding a body of `encoding`: the `Readable` to push its encoded
 * chunks into, or `undefined` when it needs no decoding (see
 * {@linkcode decodersFor}).
 */
export function startDecoding(
  method: string,
  status: number,
  encoding: string | undefined,
  callbacks: DecodingCallbacks,
): Readable | undefined {
  const decoders = decodersFor(method, status, encoding);
  if (decoders.length === 0) return undefined;
  const encoded = new Readable({ read: () => callbacks.resume() });
  pipeDecoded(encoded, decoders, callbacks.deliver).then(callbacks.finish, callbacks.fail);
  return encoded;
}

// Node's typings have no overload for a spread of transforms before a sink.
const chain = pipeline as (...stages: unknown[]) => Promise<void>;

/**
 * The decoders for a Content-Encoding, applied in reverse order of the
 * codings, as fetch does: none for HEAD, 204, 205 and 304, none at all when
 * one coding is unknown (the body is then returned as received).
 */
export function decodersFor(
  method: string,
  status: number,
  encoding: string | undefined,
): Transform[] {
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
