// The traffic controls' shared state in Redis (one store type for
// rateLimit(), retryBudget() and circuitBreaker()), through a client of the
// `redis` package (node-redis) or of `ioredis` that the user creates,
// connects and closes (typed by the methods called, as the cache's Redis
// store does: the library imports neither). Each operation is one Lua
// script, atomic on the server and timed by the server's clock; each wait
// on it is bounded by `storeTimeout`.

import { HttpClientException } from "../errors.ts";
import { checkKnownKeys, describeType, keysOf, validateRedisClient } from "../models/_validate.ts";
import { answerWithin } from "../waits.ts";
import type { RateLimitTake } from "./rate_store.ts";
import type { CircuitBreakerStore, TrafficStore } from "./traffic_store.ts";

/**
 * The methods of an `ioredis` client (`Redis` or `Cluster`) the
 * {@linkcode RedisTrafficStore} calls.
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
 * {@linkcode RedisTrafficStore} calls.
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

/** Options of a {@linkcode RedisTrafficStore}. */
export interface RedisTrafficStoreOptions {
  /**
   * What every key of the store starts with, before `rate:`, `budget:` or
   * `breaker:`. Default `"fetchline-"` (a bucket's key is then
   * `fetchline-rate:<key>`, as the rate limit's store had it).
   */
  prefix?: string | undefined;
  /**
   * The longest wait for one answer of the server: seconds, or a duration
   * (`"1s"`, `"250ms"`). Default `"1s"`. Past it the operation fails, and
   * the control goes on with its state in memory.
   */
  storeTimeout?: number | string | undefined;
}

const REDIS_KEYS = keysOf<RedisTrafficStoreOptions>({ prefix: true, storeTimeout: true });

/**
 * GCRA on the server: KEYS[1] holds the theoretical arrival time (TAT, ms
 * on the server's clock); ARGV the interval in ms and the burst. Answers
 * { wait ms (0: taken), ms until the bucket is full }, rounded up. The
 * server's TIME, never a client's clock: processes whose clocks disagree
 * share one bucket rightly. The key expires (PX) when the bucket is full
 * again. `replicate_commands` lets Redis before 5 replicate the SET after
 * TIME (a no-op since 5).
 */
const RATE_SCRIPT = `
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
 * A retry budget's call counted: KEYS[1] is a hash of counts per second of
 * the server's clock (`c:<s>` calls, `r:<s>` retries) that expires 11 s
 * after its last count; the fields that just left the 10 s window go.
 */
/**
 * A rate limit's refund on the server: KEYS[1]'s TAT moves one interval
 * (ARGV[1], ms) back, never before the server's now (the key is deleted
 * then: a full bucket); a key that is gone stays gone.
 */
const RATE_REFUND_SCRIPT = `
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

const BUDGET_SENT_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local now = tonumber(redis.call('TIME')[1])
redis.call('HINCRBY', KEYS[1], 'c:' .. now, 1)
for old = now - 20, now - 10 do redis.call('HDEL', KEYS[1], 'c:' .. old, 'r:' .. old) end
redis.call('EXPIRE', KEYS[1], 11)
return 1
`;

/**
 * A retry taken when the retries of the last 10 s stay under ARGV[1] (the
 * ratio) of the calls or under ARGV[2] (the minimum): 1 taken, 0 refused.
 */
const BUDGET_WITHDRAW_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local now = tonumber(redis.call('TIME')[1])
local fields = redis.call('HGETALL', KEYS[1])
local calls, retries = 0, 0
for i = 1, #fields, 2 do
  local second = tonumber(string.sub(fields[i], 3))
  if second == nil or second <= now - 10 then redis.call('HDEL', KEYS[1], fields[i])
  elseif string.sub(fields[i], 1, 1) == 'c' then calls = calls + tonumber(fields[i + 1])
  else retries = retries + tonumber(fields[i + 1]) end
end
if retries + 1 > math.max(tonumber(ARGV[1]) * calls, tonumber(ARGV[2])) then return 0 end
redis.call('HINCRBY', KEYS[1], 'r:' .. now, 1)
redis.call('EXPIRE', KEYS[1], 11)
return 1
`;

/** A breaker's open circuit: the ms its key (KEYS[2]) has left, or 0. */
const BREAKER_OPEN_SCRIPT = `
local left = redis.call('PTTL', KEYS[2])
if left > 0 then return left end
return 0
`;

/**
 * A breaker's outcome counted: KEYS[1] a hash of calls (`c:<bucket>`) and
 * failures (`f:<bucket>`) per bucket of ARGV[3] ms, KEYS[2] the open
 * circuit's key, which expires when it half-opens. ARGV: failed (1/0),
 * probe (1/0), bucket ms, minimum calls, failure ratio, open ms. Answers the
 * ms the circuit stays open, or 0.
 */
const BREAKER_RECORD_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local openMs = tonumber(ARGV[6])
if ARGV[2] == '1' and ARGV[1] == '1' then
  redis.call('SET', KEYS[2], '1', 'PX', openMs)
  redis.call('DEL', KEYS[1])
  return openMs
end
local left = redis.call('PTTL', KEYS[2])
if left > 0 then return left end
local time = redis.call('TIME')
local bucketMs = tonumber(ARGV[3])
local bucket = math.floor((tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)) / bucketMs)
redis.call('HINCRBY', KEYS[1], 'c:' .. bucket, 1)
if ARGV[1] == '1' then redis.call('HINCRBY', KEYS[1], 'f:' .. bucket, 1) end
redis.call('PEXPIRE', KEYS[1], bucketMs * 11)
local fields = redis.call('HGETALL', KEYS[1])
local calls, failures = 0, 0
for i = 1, #fields, 2 do
  local at = tonumber(string.sub(fields[i], 3))
  if at == nil or at <= bucket - 10 then redis.call('HDEL', KEYS[1], fields[i])
  elseif string.sub(fields[i], 1, 1) == 'c' then calls = calls + tonumber(fields[i + 1])
  else failures = failures + tonumber(fields[i + 1]) end
end
if calls >= tonumber(ARGV[4]) and failures / calls >= tonumber(ARGV[5]) then
  redis.call('SET', KEYS[2], '1', 'PX', openMs)
  redis.call('DEL', KEYS[1])
  return openMs
end
return 0
`;

/**
 * The traffic controls' shared state in Redis, through a client of the
 * `redis` package (node-redis's `createClient()`) or of `ioredis` (`Redis`
 * or `Cluster`) that the caller creates, connects and closes: one store for
 * `rateLimit({ store })` (a bucket), `retryBudget({ store })` (a budget)
 * and `circuitBreaker({ store })` (a breaker's window and open state).
 * Every process that names the same key shares it. Each operation is one
 * Lua script (EVALSHA, EVAL the first time the server lacks it), atomic on
 * the server and timed by the server's clock (`TIME`), so processes whose
 * clocks disagree share rightly; every key expires once it holds nothing
 * worth keeping. Keys are the prefix, the control's name and an origin or
 * the key a control of scope `"client"` names: no credential. Each answer
 * is awaited at most `storeTimeout`; the controls then go on with their
 * state in memory, so a store that is down or slow never fails or hangs a
 * call. (It replaces `RedisRateLimitStore`, whose behaviour it keeps.)
 *
 * @example One bucket, budget and breaker for every process of an application (connect the client first: `await redis.connect()`)
 * ```ts
 * import { createClient } from "redis";
 * import { circuitBreaker, rateLimit, RedisTrafficStore, retryBudget } from "@fetchline/fetchline/traffic";
 *
 * const redis = createClient({ url: "redis://127.0.0.1:6379" });
 * const store = new RedisTrafficStore(redis, { storeTimeout: "250ms" });
 * const limit = rateLimit({ requests: 100, perSeconds: 60, scope: "client", key: "github-api", store });
 * const budget = retryBudget({ ratio: 0.1, store });
 * const breaker = circuitBreaker({ store });
 * ```
 */
export class RedisTrafficStore implements TrafficStore {
  /** What every key of the store starts with. */
  readonly prefix: string;
  /** The longest wait for one answer, in ms. */
  readonly storeTimeoutMs: number;
  readonly #redis: IoRedisScriptLike | NodeRedisScriptLike;
  /** Each script's SHA-1, in hex, once computed. */
  readonly #shas = new Map<string, Promise<string>>();

  /** A store through `redis`, a connected client the caller owns. */
  constructor(
    redis: IoRedisScriptLike | NodeRedisScriptLike,
    options: RedisTrafficStoreOptions = {},
  ) {
    validateRedisClient("redis", redis, ["evalsha", "sendCommand"]);
    checkKnownKeys("RedisTrafficStore options", options, REDIS_KEYS);
    const prefix = options.prefix ?? "fetchline-";
    if (typeof prefix !== "string") {
      throw new TypeError(`Invalid prefix: expected a string, got ${describeType(prefix)}`);
    }
    this.#redis = redis;
    this.prefix = prefix;
    this.storeTimeoutMs = parseStoreTimeout(options.storeTimeout ?? "1s");
  }

  /** Takes a token from `key`'s bucket if one is free, on the server ({@linkcode RateLimitStore.take}). */
  async take(key: string, intervalMs: number, burst: number): Promise<RateLimitTake> {
    const reply = await this.#script(RATE_SCRIPT, [`${this.prefix}rate:${key}`], [
      String(intervalMs),
      String(burst),
    ]);
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new HttpClientException(
        `RedisTrafficStore: the script answered ${describeType(reply)}, not two numbers`,
      );
    }
    return { waitMs: Number(reply[0]), fullInMs: Number(reply[1]) };
  }

  /** Gives a token back to `key`'s bucket, on the server ({@linkcode RateLimitStore.refund}). */
  async refund(key: string, intervalMs: number): Promise<void> {
    await this.#script(RATE_REFUND_SCRIPT, [`${this.prefix}rate:${key}`], [String(intervalMs)]);
  }

  /** Counts a call of `key`'s retry budget ({@linkcode RetryBudgetStore.budgetSent}). */
  async budgetSent(key: string): Promise<void> {
    await this.#script(BUDGET_SENT_SCRIPT, [`${this.prefix}budget:${key}`], []);
  }

  /** Takes a retry of `key`'s budget if it has room ({@linkcode RetryBudgetStore.budgetWithdraw}). */
  async budgetWithdraw(key: string, ratio: number, minimum: number): Promise<boolean> {
    const reply = await this.#script(BUDGET_WITHDRAW_SCRIPT, [`${this.prefix}budget:${key}`], [
      String(ratio),
      String(minimum),
    ]);
    return Number(reply) === 1;
  }

  /** The ms until `key`'s open circuit half-opens, or 0 ({@linkcode CircuitBreakerStore.breakerOpenMs}). */
  async breakerOpenMs(key: string): Promise<number> {
    return Number(await this.#script(BREAKER_OPEN_SCRIPT, this.#breakerKeys(key), []));
  }

  /** Counts an outcome of `key`'s breaker ({@linkcode CircuitBreakerStore.breakerRecord}). */
  async breakerRecord(
    key: string,
    outcome: Parameters<CircuitBreakerStore["breakerRecord"]>[1],
  ): Promise<number> {
    const { failed, probe, bucketMs, minimumCalls, failureRatio, openMs } = outcome;
    return Number(
      await this.#script(BREAKER_RECORD_SCRIPT, this.#breakerKeys(key), [
        failed ? "1" : "0",
        probe ? "1" : "0",
        String(Math.max(1, Math.round(bucketMs))),
        String(minimumCalls),
        String(failureRatio),
        String(Math.max(1, Math.round(openMs))),
      ]),
    );
  }

  /** A breaker's window and open keys, in one hash slot (a Redis Cluster's `{}`). */
  #breakerKeys(key: string): string[] {
    const base = `${this.prefix}breaker:{${key}}`;
    return [base, `${base}:open`];
  }

  /** Runs `script` (EVALSHA, EVAL when the server lacks it), bounded by the store's timeout. */
  async #script(script: string, keys: string[], args: string[]): Promise<unknown> {
    let sha = this.#shas.get(script);
    if (sha === undefined) this.#shas.set(script, sha = sha1(script));
    const run = async () => {
      try {
        return await this.#run("EVALSHA", await sha, keys, args);
      } catch (error) {
        if (!String((error as Error | undefined)?.message).startsWith("NOSCRIPT")) throw error;
        return await this.#run("EVAL", script, keys, args);
      }
    };
    return await answerWithin(run(), this.storeTimeoutMs, "RedisTrafficStore");
  }

  #run(
    command: "EVALSHA" | "EVAL",
    script: string,
    keys: string[],
    args: string[],
  ): Promise<unknown> {
    const redis = this.#redis;
    if ("evalsha" in redis) {
      return command === "EVAL"
        ? redis.eval(script, keys.length, ...keys, ...args)
        : redis.evalsha(script, keys.length, ...keys, ...args);
    }
    return redis.sendCommand([command, script, String(keys.length), ...keys, ...args]);
  }
}

/** `storeTimeout` in ms: seconds, or a duration such as `"1s"` or `"250ms"`. */
function parseStoreTimeout(value: unknown): number {
  let ms = NaN;
  if (typeof value === "number") ms = value * 1000;
  else if (typeof value === "string") {
    const match = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(value);
    if (match !== null) ms = Number(match[1]) * (match[2] === "s" ? 1000 : 1);
  }
  if (ms > 0 && Number.isFinite(ms)) return ms;
  throw new TypeError(
    `Invalid storeTimeout: expected a positive number of seconds or a duration ("1s", "250ms"), got ${
      typeof value === "string" ? JSON.stringify(value) : describeType(value)
    }`,
  );
}

/** The SHA-1 of `text`, in hex: the name EVALSHA knows a script by. */
async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
