// What a cache store is (the interface a user's own store implements) and
// the store in memory. The stores that outlive a process live beside it:
// deno_kv_store.ts and redis_store.ts.

import { checkKnownKeys, keysOf, validatePositive } from "../models/_validate.ts";

/**
 * A stored response as a {@linkcode CacheStore} keeps it: what the cache
 * needs to judge it (`meta`, JSON-safe: a store may serialize it with
 * `JSON.stringify`) and the body's bytes. A store keeps both as given and
 * hands back an equal pair; it never reads them. Neither holds a
 * credential: the cache keeps hashes of them, never their values.
 *
 * @example An entry
 * ```ts
 * import type { CacheEntry } from "@fetchline/fetchline/cache";
 *
 * const entry: CacheEntry = { meta: { status: 200 }, body: new TextEncoder().encode("hello") };
 * ```
 */
export interface CacheEntry {
  /** What the cache needs to judge the response: a JSON-safe object. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** The body, decoded (the bytes a caller reads). */
  readonly body: Uint8Array;
}

/**
 * Where an {@linkcode HttpCache} keeps its responses. Keys are strings of
 * at most 512 characters (the cache hashes longer ones). A store may be
 * shared by several clients and processes. Each method may answer at once
 * or with a promise. A store that throws, hangs or answers garbage never
 * fails a call: the cache bounds each wait by the call's deadlines, treats
 * a failure as a miss and tells it to its `onError`.
 *
 * @example A store in a `Map` (no bound, no expiry: for a test)
 * ```ts
 * import type { CacheEntry, CacheStore } from "@fetchline/fetchline/cache";
 *
 * const entries = new Map<string, CacheEntry>();
 * const store: CacheStore = {
 *   get: (key) => entries.get(key),
 *   set: (key, entry) => void entries.set(key, entry),
 *   delete: (key) => void entries.delete(key),
 * };
 * ```
 */
export interface CacheStore {
  /** The entry stored under `key`, or `undefined`. */
  get(key: string): CacheEntry | undefined | Promise<CacheEntry | undefined>;
  /**
   * Stores `entry` under `key`, replacing what was there; `ttlMs` is how
   * long it can be of use (fresh, or stale but still servable): a store
   * may drop it after that.
   */
  set(key: string, entry: CacheEntry, ttlMs: number): void | Promise<void>;
  /** Removes the entry under `key`, if any. */
  delete(key: string): void | Promise<void>;
}

/** Options of a {@linkcode MemoryCacheStore}. */
export interface MemoryCacheStoreOptions {
  /** The most bytes of bodies and metadata kept. Default 64 MiB. */
  maxBytes?: number | undefined;
  /** The most entries kept. Default 10,000. */
  maxEntries?: number | undefined;
}

const MEMORY_KEYS = keysOf<MemoryCacheStoreOptions>({ maxBytes: true, maxEntries: true });

/** An entry in memory whose body is larger than {@linkcode PACKED_BODY}: as given, with when it stops being of use. */
interface Held {
  readonly entry: CacheEntry;
  readonly until: number;
  readonly bytes: number;
}

/**
 * The largest body kept packed into one string with its metadata and time
 * to live ({@linkcode pack}). A Uint8Array costs about 300 bytes of its
 * own, more than a small body: 10,000 entries of an 84-byte JSON body and
 * 5 headers took 2.9x their bytes held as objects and a Uint8Array, 1.4x
 * packed (heap and external memory, Deno 2.9.6, `deno task bench:cache`).
 */
const PACKED_BODY = 1024;

/** How many unpacked entries a store keeps beside their packed strings. */
const UNPACKED = 256;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * `until`, `meta` and `body` as one string: `until`, the metadata's length
 * and the body's byte length in decimal, "|" after each, the metadata's
 * JSON, then the body as text when it is UTF-8 that decodes and encodes
 * back to the same bytes (what a hit unpacks natively: about 0.3 µs for
 * 1 KiB, against 4.7 µs a byte at a time), else a character a byte (byte
 * length -1).
 */
function pack(until: number, meta: string, body: Uint8Array): string {
  const text = decoder.decode(body);
  const again = encoder.encode(text);
  let same = again.length === body.length;
  for (let i = 0; same && i < body.length; i++) same = again[i] === body[i];
  const packed = same ? text : String.fromCharCode.apply(null, body as unknown as number[]);
  return `${until}|${meta.length}|${same ? body.length : -1}|${meta}${packed}`;
}

/**
 * The metadata and body of a {@linkcode pack}ed entry (`known`, when it was
 * unpacked before), or `undefined` past `until`.
 */
function unpack(packed: string, now: number, known?: CacheEntry): CacheEntry | undefined {
  const first = packed.indexOf("|");
  if (Number(packed.slice(0, first)) <= now) return undefined;
  if (known !== undefined) return known;
  const second = packed.indexOf("|", first + 1);
  const third = packed.indexOf("|", second + 1);
  const bodyAt = third + 1 + Number(packed.slice(first + 1, second));
  const bytes = Number(packed.slice(second + 1, third));
  const meta = JSON.parse(packed.slice(third + 1, bodyAt));
  if (bytes >= 0) {
    const body = new Uint8Array(bytes);
    encoder.encodeInto(packed.slice(bodyAt), body);
    return { meta, body };
  }
  const body = new Uint8Array(packed.length - bodyAt);
  for (let i = 0; i < body.length; i++) body[i] = packed.charCodeAt(bodyAt + i);
  return { meta, body };
}

/**
 * A store in memory, bounded in bytes (of bodies and metadata, as JSON)
 * and in entries: past either bound, the least recently used entries go
 * first. An entry past its time to live is dropped when next read. One
 * store may serve several clients of one process.
 *
 * @example A cache in memory
 * ```ts
 * import { HttpCache, MemoryCacheStore } from "@fetchline/fetchline/cache";
 *
 * const cache = new HttpCache({ store: new MemoryCacheStore({ maxBytes: 16 * 2 ** 20 }) });
 * ```
 */
export class MemoryCacheStore implements CacheStore {
  /** The most bytes kept. */
  readonly maxBytes: number;
  /** The most entries kept. */
  readonly maxEntries: number;
  /** The entries, the least recently used first (a Map keeps insertion order). */
  readonly #held = new Map<string, Held | string>();
  /**
   * The last entries unpacked, by key, with the string they came from: a
   * hit on one of them unpacks nothing (the JSON of the metadata, a body
   * copied out), and gives the same metadata object, whose policy the
   * cache then keeps too. At most {@linkcode UNPACKED} of them.
   */
  readonly #unpacked = new Map<string, { readonly packed: string; readonly entry: CacheEntry }>();
  #bytes = 0;

  /** Creates an empty store with the bounds of `options`. */
  constructor(options: MemoryCacheStoreOptions = {}) {
    checkKnownKeys("MemoryCacheStore options", options, MEMORY_KEYS);
    this.maxBytes = validatePositive("maxBytes", options.maxBytes ?? 64 * 2 ** 20);
    this.maxEntries = validatePositive("maxEntries", options.maxEntries ?? 10_000);
  }

  /** How many entries the store holds. */
  get size(): number {
    return this.#held.size;
  }

  /** How many bytes the store holds, as it counts them. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The entry under `key`, now the most recently used; `undefined` past its time to live. */
  get(key: string): CacheEntry | undefined {
    const held = this.#held.get(key);
    if (held === undefined) return undefined;
    this.#held.delete(key);
    if (typeof held !== "string") {
      if (held.until <= Date.now()) return void (this.#bytes -= held.bytes + key.length);
      this.#held.set(key, held);
      return held.entry;
    }
    const known = this.#unpacked.get(key);
    const entry = unpack(held, Date.now(), known?.packed === held ? known.entry : undefined);
    if (entry === undefined) {
      this.#unpacked.delete(key);
      return void (this.#bytes -= held.length + key.length);
    }
    this.#held.set(key, held);
    if (known?.entry !== entry) {
      this.#unpacked.delete(key);
      this.#unpacked.set(key, { packed: held, entry });
      if (this.#unpacked.size > UNPACKED) {
        this.#unpacked.delete(this.#unpacked.keys().next().value!);
      }
    }
    return entry;
  }

  /** Stores `entry` for `ttlMs`; one larger than `maxBytes` is not kept. */
  set(key: string, entry: CacheEntry, ttlMs: number): void {
    this.delete(key);
    const until = Date.now() + ttlMs;
    const meta = JSON.stringify(entry.meta);
    const { body } = entry;
    const held: Held | string = body.byteLength <= PACKED_BODY
      ? pack(until, meta, body)
      : { entry, until, bytes: body.byteLength + meta.length };
    // Flattened now (a read of a character does it): a string built by
    // concatenation is a tree of its parts, which would be kept too (10,000
    // entries of an 84-byte body: 715 bytes each, 461 flattened; Deno 2.9.6).
    if (typeof held === "string") held.charCodeAt(0);
    const bytes = (typeof held === "string" ? held.length : held.bytes) + key.length;
    if (bytes > this.maxBytes || !(ttlMs > 0)) return;
    this.#held.set(key, held);
    this.#bytes += bytes;
    for (const [oldest] of this.#held) {
      if (this.#bytes <= this.maxBytes && this.#held.size <= this.maxEntries) break;
      this.delete(oldest);
    }
  }

  /** Removes the entry under `key`. */
  delete(key: string): void {
    this.#unpacked.delete(key);
    const held = this.#held.get(key);
    if (held === undefined) return;
    this.#held.delete(key);
    this.#bytes -= (typeof held === "string" ? held.length : held.bytes) + key.length;
  }

  /** Removes every entry. */
  clear(): void {
    this.#held.clear();
    this.#unpacked.clear();
    this.#bytes = 0;
  }
}
