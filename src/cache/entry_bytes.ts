// A cache entry as bytes, for the stores that keep bytes outside the
// process (deno_kv_store.ts, redis_store.ts), and the time to live they
// give their values.
//
// The layout: a format byte (1), the metadata's length in bytes (4 bytes,
// big-endian), the metadata as JSON (UTF-8), then the body.

import { HttpClientException } from "../errors.ts";
import { isPlainRecord } from "../models/_validate.ts";
import type { CacheEntry } from "./store.ts";

const FORMAT = 1;
const HEAD_BYTES = 5;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** `entry` as one array of bytes. */
export function encodeEntry(entry: CacheEntry): Uint8Array {
  const meta = encoder.encode(JSON.stringify(entry.meta));
  const bytes = new Uint8Array(HEAD_BYTES + meta.byteLength + entry.body.byteLength);
  bytes[0] = FORMAT;
  new DataView(bytes.buffer).setUint32(1, meta.byteLength);
  bytes.set(meta, HEAD_BYTES);
  bytes.set(entry.body, HEAD_BYTES + meta.byteLength);
  return bytes;
}

/**
 * The entry `bytes` hold (its body a view of them); an HttpClientException
 * naming `store` when they are not one.
 */
export function decodeEntry(store: string, bytes: Uint8Array): CacheEntry {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const metaEnd = bytes.byteLength < HEAD_BYTES ? -1 : HEAD_BYTES + view.getUint32(1);
  if (bytes[0] !== FORMAT || metaEnd < 0 || metaEnd > bytes.byteLength) throw corrupt(store);
  let meta: unknown;
  try {
    meta = JSON.parse(decoder.decode(bytes.subarray(HEAD_BYTES, metaEnd)));
  } catch (cause) {
    throw corrupt(store, cause);
  }
  if (!isPlainRecord(meta)) throw corrupt(store);
  const body = new Uint8Array(bytes.buffer, bytes.byteOffset + metaEnd, bytes.byteLength - metaEnd);
  return { meta, body };
}

/** The failure of a read that found something other than an entry. */
export function corrupt(store: string, cause?: unknown): HttpClientException {
  return new HttpClientException(`${store}: a stored value is not a cache entry`, { cause });
}

/** The longest time to live a store gives: 1e14 ms, about 3,000 years (Deno KV refuses far more). */
const MAX_TTL_MS = 1e14;

/** `ttlMs` as whole milliseconds for a store's expiry, or undefined when nothing is to be kept. */
export function expiryMs(ttlMs: number): number | undefined {
  return ttlMs > 0 ? Math.min(Math.ceil(ttlMs), MAX_TTL_MS) : undefined;
}
