// What a cache store is (the interface a user's own store implements) and
// the store in memory. The stores that outlive a process live beside it:
// deno_kv_store.ts and redis_store.ts.

import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";

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

/** An entry in memory: the entry, its size as counted, and when it stops being of use. */
interface Held {
  readonly entry: CacheEntry;
  readonly bytes: number;
  readonly until: number;
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
  readonly #held = new Map<string, Held>();
  #bytes = 0;

  /** Creates an empty store with the bounds of `options`. */
  constructor(options: MemoryCacheStoreOptions = {}) {
    checkKnownKeys("MemoryCacheStore options", options, MEMORY_KEYS);
    this.maxBytes = positive("maxBytes", options.maxBytes ?? 64 * 2 ** 20);
    this.maxEntries = positive("maxEntries", options.maxEntries ?? 10_000);
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
    this.#remove(key, held);
    if (held.until <= Date.now()) return undefined;
    this.#held.set(key, held);
    this.#bytes += held.bytes;
    return held.entry;
  }

  /** Stores `entry` for `ttlMs`; one larger than `maxBytes` is not kept. */
  set(key: string, entry: CacheEntry, ttlMs: number): void {
    const old = this.#held.get(key);
    if (old !== undefined) this.#remove(key, old);
    // The metadata counted as its JSON text, one byte a character: what it
    // would take in a store that serializes it.
    const bytes = entry.body.byteLength + JSON.stringify(entry.meta).length + key.length;
    if (bytes > this.maxBytes || !(ttlMs > 0)) return;
    this.#held.set(key, { entry, bytes, until: Date.now() + ttlMs });
    this.#bytes += bytes;
    for (const [oldest, held] of this.#held) {
      if (this.#bytes <= this.maxBytes && this.#held.size <= this.maxEntries) break;
      this.#remove(oldest, held);
    }
  }

  /** Removes the entry under `key`. */
  delete(key: string): void {
    const held = this.#held.get(key);
    if (held !== undefined) this.#remove(key, held);
  }

  /** Removes every entry. */
  clear(): void {
    this.#held.clear();
    this.#bytes = 0;
  }

  #remove(key: string, held: Held): void {
    this.#held.delete(key);
    this.#bytes -= held.bytes;
  }
}

/** `value` when it is a positive integer, else a TypeError naming `field`. */
function positive(field: string, value: unknown): number {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  throw new TypeError(
    `Invalid ${field}: expected a positive integer, got ${
      typeof value === "number" ? value : describeType(value)
    }`,
  );
}
