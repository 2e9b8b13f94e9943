// A cache store in a Deno KV: a local file several processes share, or a
// remote KV. The KV is typed by the methods the store calls, so this
// module compiles without Deno's unstable KV types and in the npm builds.
//
// Layout, under the prefix: the head [...prefix, key] holds the entry's
// generation (a fresh id each set), its number of chunks, its deadline and
// the first chunk of its bytes (entry_bytes.ts); the other chunks are at
// [...prefix, key, id, i]. A set writes the chunks before, or with, the head
// that names them, so a head's chunks are there unless they expired or were
// deleted with a replaced generation: a read that misses one answers
// undefined.

import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { corrupt, decodeEntry, encodeEntry, expiryMs } from "./entry_bytes.ts";
import type { CacheEntry, CacheStore } from "./store.ts";

/** A part of a {@linkcode DenoKvLike} key, as `Deno.KvKeyPart` has it. */
export type KvKeyPart = Uint8Array | string | number | bigint | boolean | symbol;

/**
 * The methods of a `Deno.Kv` the {@linkcode DenoKvCacheStore} calls: a
 * `Deno.Kv` is one (typed so, the store needs no unstable types).
 *
 * @example A `Deno.Kv` is a DenoKvLike
 * ```ts
 * import type { DenoKvLike } from "@fetchline/fetchline/cache";
 *
 * const use = (kv: DenoKvLike) => kv.get(["fetchline-cache", "a key"]);
 * ```
 */
export interface DenoKvLike {
  /** The entry under `key` (its `value` null when there is none). */
  get(key: readonly KvKeyPart[]): Promise<{ readonly value: unknown }>;
  /** The entries under `keys` (at most 10), in their order. */
  getMany(keys: readonly (readonly KvKeyPart[])[]): Promise<readonly { readonly value: unknown }[]>;
  /** A new atomic operation. */
  atomic(): DenoKvAtomicLike;
}

/** The methods of a `Deno.AtomicOperation` the {@linkcode DenoKvCacheStore} calls. */
export interface DenoKvAtomicLike {
  /** Sets `value` under `key`, deleted after `expireIn` milliseconds. */
  set(key: readonly KvKeyPart[], value: unknown, options?: { expireIn?: number }): DenoKvAtomicLike;
  /** Deletes `key`. */
  delete(key: readonly KvKeyPart[]): DenoKvAtomicLike;
  /** Commits the operation. */
  commit(): Promise<unknown>;
}

/** Options of a {@linkcode DenoKvCacheStore}. */
export interface DenoKvCacheStoreOptions {
  /** The key parts every key of the store starts with. Default `["fetchline-cache"]`. */
  prefix?: readonly KvKeyPart[] | undefined;
}

const KV_KEYS = keysOf<DenoKvCacheStoreOptions>({ prefix: true });

/** The bytes of a chunk: under KV's 64 KiB a value, with room for the head's other fields. */
const CHUNK_BYTES = 60 * 1024;
/**
 * The values of one commit: 12 of 60 KiB and their keys (2 KiB at most
 * each) stay under KV's 800 KiB a commit.
 */
const VALUES_PER_COMMIT = 12;
/** The keys of one `getMany()`, KV's limit. */
const KEYS_PER_READ = 10;

/** What a head holds. */
interface Head {
  /** The generation: the chunks' key part. */
  readonly id: string;
  /** The number of chunks, the head's own first included. */
  readonly chunks: number;
  /** When the entry stops being of use (epoch milliseconds). */
  readonly until: number;
  /** The first chunk. */
  readonly bytes: Uint8Array;
}

const STORE = "DenoKvCacheStore";

/**
 * A store in a Deno KV (`Deno.openKv()`, which needs `--unstable-kv` or
 * `"unstable": ["kv"]` in deno.json): a local file that several processes
 * share, or a remote KV such as Deno Deploy's. Every value expires with
 * KV's `expireIn` after the entry's time to live, and a read refuses an
 * entry past it (KV deletes expired values lazily). A body of any size is
 * kept in chunks under KV's value limit; a read that finds a chunk missing
 * (expired, or replaced meanwhile) is a miss. The store never closes the KV.
 *
 * @example A store in a KV (a file's path in place of `":memory:"` to share it)
 * ```ts
 * import { DenoKvCacheStore } from "@fetchline/fetchline/cache";
 * import assert from "node:assert/strict";
 *
 * using kv = await Deno.openKv(":memory:");
 * const store = new DenoKvCacheStore(kv, { prefix: ["my-app", "cache"] });
 * await store.set("a key", { meta: { status: 200 }, body: new Uint8Array(100_000) }, 60_000);
 * assert.equal((await store.get("a key"))?.body.byteLength, 100_000);
 * ```
 */
export class DenoKvCacheStore implements CacheStore {
  /** The key parts every key of the store starts with. */
  readonly prefix: readonly KvKeyPart[];
  readonly #kv: DenoKvLike;

  /** A store in `kv`, which the caller opens and closes. */
  constructor(kv: DenoKvLike, options: DenoKvCacheStoreOptions = {}) {
    const methods = ["get", "getMany", "atomic"] as const;
    if (typeof kv !== "object" || kv === null || methods.some((m) => typeof kv[m] !== "function")) {
      throw new TypeError(
        `Invalid kv: expected a Deno.Kv (with get, getMany and atomic), got ${describeType(kv)}`,
      );
    }
    checkKnownKeys(`${STORE} options`, options, KV_KEYS);
    const prefix = options.prefix ?? ["fetchline-cache"];
    if (!Array.isArray(prefix) || !prefix.every(isKeyPart)) {
      throw new TypeError(
        `Invalid prefix: expected an array of KV key parts, got ${describeType(prefix)}`,
      );
    }
    this.#kv = kv;
    this.prefix = [...prefix];
  }

  /** The entry under `key`; `undefined` when absent, expired or missing a chunk. */
  async get(key: string): Promise<CacheEntry | undefined> {
    const headKey = [...this.prefix, key];
    const { value } = await this.#kv.get(headKey);
    if (value === null) return undefined;
    if (!isHead(value)) throw corrupt(STORE);
    const head = value;
    if (head.until <= Date.now()) return undefined;
    const parts = [head.bytes];
    for (let first = 1; first < head.chunks; first += KEYS_PER_READ) {
      const keys = [];
      for (let i = first; i < Math.min(head.chunks, first + KEYS_PER_READ); i++) {
        keys.push([...headKey, head.id, i]);
      }
      for (const { value } of await this.#kv.getMany(keys)) {
        if (value === null) return undefined;
        if (!(value instanceof Uint8Array)) throw corrupt(STORE);
        parts.push(value);
      }
    }
    return decodeEntry(STORE, parts.length === 1 ? head.bytes : concat(parts));
  }

  /**
   * Stores `entry` for `ttlMs`: its chunks first (in commits of at most 12
   * values), the head with the last of them; then deletes the chunks of the
   * generation it replaced. A `ttlMs` of 0 or less deletes the entry.
   */
  async set(key: string, entry: CacheEntry, ttlMs: number): Promise<void> {
    const expireIn = expiryMs(ttlMs);
    if (expireIn === undefined) return await this.delete(key);
    const headKey = [...this.prefix, key];
    const bytes = encodeEntry(entry);
    // Copies (slice): KV would store a view's whole buffer.
    const chunk = (i: number) => bytes.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES);
    const head: Head = {
      id: crypto.randomUUID(),
      chunks: Math.max(1, Math.ceil(bytes.byteLength / CHUNK_BYTES)),
      until: Date.now() + expireIn,
      bytes: chunk(0),
    };
    const { value: old } = await this.#kv.get(headKey);
    const writes: Mutation[] = [];
    for (let i = 1; i < head.chunks; i++) {
      writes.push((operation) => operation.set([...headKey, head.id, i], chunk(i), { expireIn }));
    }
    writes.push((operation) => operation.set(headKey, head, { expireIn }));
    await this.#commit(writes);
    await this.#commit(chunkDeletes(headKey, old));
  }

  /** Removes the entry under `key`: its head, then its chunks. */
  async delete(key: string): Promise<void> {
    const headKey = [...this.prefix, key];
    const { value } = await this.#kv.get(headKey);
    if (value !== null) {
      await this.#commit([
        (operation) => operation.delete(headKey),
        ...chunkDeletes(headKey, value),
      ]);
    }
  }

  /** Commits `mutations` in their order, in commits of at most {@linkcode VALUES_PER_COMMIT}. */
  async #commit(mutations: readonly Mutation[]): Promise<void> {
    for (let first = 0; first < mutations.length; first += VALUES_PER_COMMIT) {
      const operation = this.#kv.atomic();
      for (const mutate of mutations.slice(first, first + VALUES_PER_COMMIT)) mutate(operation);
      await operation.commit();
    }
  }
}

/** A KV mutation, for an atomic operation. */
type Mutation = (operation: DenoKvAtomicLike) => void;

/** The deletes of the chunks `old`, a head once under `headKey`, names (none when it is no head). */
function chunkDeletes(headKey: readonly KvKeyPart[], old: unknown): Mutation[] {
  const head = isHead(old) ? old : undefined;
  const deletes: Mutation[] = [];
  for (let i = 1; i < (head?.chunks ?? 0); i++) {
    deletes.push((operation) => operation.delete([...headKey, head!.id, i]));
  }
  return deletes;
}

/** Whether `value` has a head's fields. */
function isHead(value: unknown): value is Head {
  const head = value as Partial<Head> | null;
  return typeof head === "object" && head !== null && typeof head.id === "string" &&
    Number.isSafeInteger(head.chunks) && head.chunks! >= 1 && typeof head.until === "number" &&
    head.bytes instanceof Uint8Array;
}

function isKeyPart(part: unknown): part is KvKeyPart {
  return ["string", "number", "bigint", "boolean", "symbol"].includes(typeof part) ||
    part instanceof Uint8Array;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}
