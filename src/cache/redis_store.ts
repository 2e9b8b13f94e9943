// A cache store in Redis, through a client of the `redis` package
// (node-redis) or of `ioredis` that the user creates, connects and closes.
// The clients are typed by the methods the store calls: the library imports
// neither package. A key holds one value, the entry as bytes
// (entry_bytes.ts), set with a PX expiry of the entry's time to live.

import { checkKnownKeys, describeType, keysOf, validateRedisClient } from "../models/_validate.ts";
import { corrupt, decodeEntry, encodeEntry, expiryMs } from "./entry_bytes.ts";
import type { CacheEntry, CacheStore } from "./store.ts";

/**
 * The methods of an `ioredis` client (`Redis` or `Cluster`) the
 * {@linkcode RedisCacheStore} calls.
 *
 * @example An ioredis client is one
 * ```ts
 * import type { IoRedisLike } from "@fetchline/fetchline/cache";
 *
 * const read = (redis: IoRedisLike) => redis.getBuffer("fetchline-cache:a key");
 * ```
 */
export interface IoRedisLike {
  /** GET, the value as bytes. */
  getBuffer(key: string): Promise<Uint8Array | null>;
  /**
   * SET key value PX milliseconds; `value` is a `Buffer` (typed `never`:
   * the library does not name Node's types, and ioredis takes no other bytes).
   */
  set(key: string, value: never, mode: "PX", milliseconds: number): Promise<unknown>;
  /** DEL. */
  del(key: string): Promise<unknown>;
}

/**
 * The method of a `redis` (node-redis) client the
 * {@linkcode RedisCacheStore} calls.
 *
 * @example A node-redis client is one
 * ```ts
 * import type { NodeRedisLike } from "@fetchline/fetchline/cache";
 *
 * const ping = (redis: NodeRedisLike) => redis.sendCommand(["PING"]);
 * ```
 */
export interface NodeRedisLike {
  /** Sends a command; `typeMapping` says which type a reply of each RESP type takes. */
  sendCommand(
    args: readonly (string | Uint8Array)[],
    options?: { typeMapping?: Record<number, unknown> },
  ): Promise<unknown>;
}

/** Options of a {@linkcode RedisCacheStore}. */
export interface RedisCacheStoreOptions {
  /** What every key of the store starts with. Default `"fetchline-cache:"`. */
  prefix?: string | undefined;
}

const REDIS_KEYS = keysOf<RedisCacheStoreOptions>({ prefix: true });

/** Node's `Buffer`, as far as the store uses it: the clients send and read Buffers only. */
interface BufferClass {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): Uint8Array;
}

/** RESP's blob string type (`$`): node-redis's `RESP_TYPES.BLOB_STRING`. */
const BLOB_STRING = 36;

const STORE = "RedisCacheStore";

/**
 * A store in Redis, through a client of the `redis` package (node-redis's
 * `createClient()`) or of `ioredis` (`Redis` or `Cluster`) that the caller
 * creates, connects and closes: one cache for many processes and machines.
 * Each entry is one value, its metadata and body as bytes, that Redis
 * expires (`PX`) after the entry's time to live. Runs where the clients run
 * (Node, Deno, Bun: it uses their `Buffer`).
 *
 * @example A store through node-redis (connect the client before the first call: `await redis.connect()`)
 * ```ts
 * import { createClient } from "redis";
 * import { RedisCacheStore } from "@fetchline/fetchline/cache";
 *
 * const redis = createClient({ url: "redis://127.0.0.1:6379" });
 * const store = new RedisCacheStore(redis);
 * ```
 *
 * @example Through ioredis, with a prefix of one's own
 * ```ts
 * import type { Redis } from "ioredis";
 * import { RedisCacheStore } from "@fetchline/fetchline/cache";
 *
 * // redis: new Redis("redis://127.0.0.1:6379"), created where the application starts.
 * const cacheStore = (redis: Redis) => new RedisCacheStore(redis, { prefix: "my-app:cache:" });
 * ```
 */
export class RedisCacheStore implements CacheStore {
  /** What every key of the store starts with. */
  readonly prefix: string;
  readonly #redis: IoRedisLike | NodeRedisLike;
  readonly #buffer: BufferClass;

  /** A store through `redis`, a connected client the caller owns. */
  constructor(redis: IoRedisLike | NodeRedisLike, options: RedisCacheStoreOptions = {}) {
    validateRedisClient("redis", redis, ["getBuffer", "sendCommand"]);
    checkKnownKeys(`${STORE} options`, options, REDIS_KEYS);
    const prefix = options.prefix ?? "fetchline-cache:";
    if (typeof prefix !== "string") {
      throw new TypeError(`Invalid prefix: expected a string, got ${describeType(prefix)}`);
    }
    const buffer = (globalThis as { Buffer?: BufferClass }).Buffer;
    if (typeof buffer?.from !== "function") {
      throw new TypeError(`${STORE} needs the runtime's Buffer (Node, Deno or Bun), found none`);
    }
    this.#redis = redis;
    this.#buffer = buffer;
    this.prefix = prefix;
  }

  /** The entry under `key`, or `undefined`. */
  async get(key: string): Promise<CacheEntry | undefined> {
    const redis = this.#redis;
    const name = this.prefix + key;
    const value = "getBuffer" in redis
      ? await redis.getBuffer(name)
      : await redis.sendCommand(["GET", name], { typeMapping: { [BLOB_STRING]: this.#buffer } });
    if (value === null) return undefined;
    if (!(value instanceof Uint8Array)) throw corrupt(STORE);
    return decodeEntry(STORE, value);
  }

  /** Stores `entry`, expiring after `ttlMs`; a `ttlMs` of 0 or less deletes the entry. */
  async set(key: string, entry: CacheEntry, ttlMs: number): Promise<void> {
    const milliseconds = expiryMs(ttlMs);
    if (milliseconds === undefined) return await this.delete(key);
    const bytes = encodeEntry(entry);
    const value = this.#buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const redis = this.#redis;
    const name = this.prefix + key;
    if ("getBuffer" in redis) await redis.set(name, value as never, "PX", milliseconds);
    else await redis.sendCommand(["SET", name, value, "PX", String(milliseconds)]);
  }

  /** Removes the entry under `key`. */
  async delete(key: string): Promise<void> {
    const redis = this.#redis;
    const name = this.prefix + key;
    if ("getBuffer" in redis) await redis.del(name);
    else await redis.sendCommand(["DEL", name]);
  }
}
