// A rate limit's buckets in Redis, through a client of the `redis` package
// (node-redis) or of `ioredis` that the user creates, connects and closes
// (typed by the methods called, as the cache's Redis store does: the
// library imports neither). One Lua script takes a token atomically on the
// server, by the server's clock.

import { HttpClientException } from "../errors.ts";
import { checkKnownKeys, describeType, keysOf, validateRedisClient } from "../models/_validate.ts";
import type { RateLimitStore, RateLimitTake } from "./rate_store.ts";

/**
 * The methods of an `ioredis` client (`Redis` or `Cluster`) the
 * {@linkcode RedisRateLimitStore} calls.
 *
 * @example An ioredis client is one
 * ```ts
 * import type { IoRedisScriptLike } from "@fetchline/fetchline/traffic";
 *
 * const run = (redis: IoRedisScriptLike) => redis.eval("return 1", 0);
 * ```
 */
export interface IoRedisScriptLike {
  /** EVALSHA sha numkeys key… arg…. */
  evalsha(sha: string, keys: number, ...args: string[]): Promise<unknown>;
  /** EVAL script numkeys key… arg…. */
  eval(script: string, keys: number, ...args: string[]): Promise<unknown>;
}

/**
 * The method of a `redis` (node-redis) client the
 * {@linkcode RedisRateLimitStore} calls.
 *
 * @example A node-redis client is one
 * ```ts
 * import type { NodeRedisScriptLike } from "@fetchline/fetchline/traffic";
 *
 * const ping = (redis: NodeRedisScriptLike) => redis.sendCommand(["PING"]);
 * ```
 */
export interface NodeRedisScriptLike {
  /** Sends a command. */
  sendCommand(args: readonly string[]): Promise<unknown>;
}

/** Options of a {@linkcode RedisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** What every key of the store starts with. Default `"fetchline-rate:"`. */
  prefix?: string | undefined;
}

const REDIS_KEYS = keysOf<RedisRateLimitStoreOptions>({ prefix: true });

/**
 * GCRA on the server: KEYS[1] holds the theoretical arrival time (TAT, ms
 * on the server's clock); ARGV the interval in ms and the burst. Answers
 * { wait ms (0: taken), ms until the bucket is full }, rounded up. The
 * server's TIME, never a client's clock: processes whose clocks disagree
 * share one bucket rightly. The key expires (PX) when the bucket is full
 * again. `replicate_commands` lets Redis before 5 replicate the SET after
 * TIME (a no-op since 5).
 */
const SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local interval = tonumber(ARGV[1])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') or 0, now)
local nextTat = tat + interval
local wait = nextTat - tonumber(ARGV[2]) * interval - now
if wait > 0 then return { math.ceil(wait), math.ceil(tat - now) } end
redis.call('SET', KEYS[1], string.format('%.3f', nextTat), 'PX', math.ceil(nextTat - now))
return { 0, math.ceil(nextTat - now) }
`;

/**
 * A refund on the server: KEYS[1]'s TAT moves one interval (ARGV[1], ms)
 * back, never before the server's now (the key is deleted then: a full
 * bucket); a key that is gone stays gone.
 */
const REFUND = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1]) or '')
if not tat then return 0 end
local back = tat - tonumber(ARGV[1])
if back <= now then redis.call('DEL', KEYS[1]) return 0 end
redis.call('SET', KEYS[1], string.format('%.3f', back), 'PX', math.ceil(back - now))
return 1
`;

/**
 * Buckets in Redis, through a client of the `redis` package (node-redis's
 * `createClient()`) or of `ioredis` (`Redis` or `Cluster`) that the caller
 * creates, connects and closes: every process that names the same key
 * shares its bucket. A take is one Lua script (EVALSHA, EVAL the first
 * time the server lacks it), atomic on the server and timed by the
 * server's clock (`TIME`), so processes whose clocks disagree still share
 * the bucket rightly; a key holds one number and expires once its bucket
 * is full again. Keys are the store's prefix and an origin or the key a
 * limit of scope `"client"` names: no credential.
 *
 * @example One bucket for every process of an application (connect the client first: `await redis.connect()`)
 * ```ts
 * import { createClient } from "redis";
 * import { rateLimit, RedisRateLimitStore } from "@fetchline/fetchline/traffic";
 *
 * const redis = createClient({ url: "redis://127.0.0.1:6379" });
 * const limit = rateLimit({
 *   requests: 100,
 *   perSeconds: 60,
 *   scope: "client",
 *   key: "github-api",
 *   store: new RedisRateLimitStore(redis),
 * });
 * ```
 */
export class RedisRateLimitStore implements RateLimitStore {
  /** What every key of the store starts with. */
  readonly prefix: string;
  readonly #redis: IoRedisScriptLike | NodeRedisScriptLike;
  /** The script's SHA-1, in hex, once computed. */
  #sha: Promise<string> | undefined;
  /** The refund script's SHA-1, in hex, once computed. */
  #refundSha: Promise<string> | undefined;

  /** A store through `redis`, a connected client the caller owns. */
  constructor(
    redis: IoRedisScriptLike | NodeRedisScriptLike,
    options: RedisRateLimitStoreOptions = {},
  ) {
    validateRedisClient("redis", redis, ["evalsha", "sendCommand"]);
    checkKnownKeys("RedisRateLimitStore options", options, REDIS_KEYS);
    const prefix = options.prefix ?? "fetchline-rate:";
    if (typeof prefix !== "string") {
      throw new TypeError(`Invalid prefix: expected a string, got ${describeType(prefix)}`);
    }
    this.#redis = redis;
    this.prefix = prefix;
  }

  /** Takes a token from `key`'s bucket if one is free, on the server ({@linkcode RateLimitStore.take}). */
  async take(key: string, intervalMs: number, burst: number): Promise<RateLimitTake> {
    const args = [this.prefix + key, String(intervalMs), String(burst)];
    const reply = await this.#script(SCRIPT, await (this.#sha ??= sha1(SCRIPT)), args);
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new HttpClientException(
        `RedisRateLimitStore: the script answered ${describeType(reply)}, not two numbers`,
      );
    }
    return { waitMs: Number(reply[0]), fullInMs: Number(reply[1]) };
  }

  /** Gives a token back to `key`'s bucket, on the server ({@linkcode RateLimitStore.refund}). */
  async refund(key: string, intervalMs: number): Promise<void> {
    const sha = await (this.#refundSha ??= sha1(REFUND));
    await this.#script(REFUND, sha, [this.prefix + key, String(intervalMs)]);
  }

  /** Runs `script` by its `sha` (EVALSHA), by its text (EVAL) when the server lacks it. */
  async #script(script: string, sha: string, args: string[]): Promise<unknown> {
    try {
      return await this.#run("EVALSHA", sha, args);
    } catch (error) {
      if (!String((error as Error | undefined)?.message).startsWith("NOSCRIPT")) throw error;
      return await this.#run("EVAL", script, args);
    }
  }

  #run(command: "EVALSHA" | "EVAL", script: string, args: string[]): Promise<unknown> {
    const redis = this.#redis;
    if ("evalsha" in redis) {
      return command === "EVAL"
        ? redis.eval(script, 1, ...args)
        : redis.evalsha(script, 1, ...args);
    }
    return redis.sendCommand([command, script, "1", ...args]);
  }
}

/** The SHA-1 of `text`, in hex: the name EVALSHA knows a script by. */
async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
