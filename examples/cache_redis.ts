/**
 * One HTTP cache for many processes, through Redis: this process starts a
 * small API and a second process of this same script; each has its own
 * client and its own `RedisCacheStore` on one Redis server. The second
 * process asks first (a miss, stored in Redis), then this one asks for the
 * same resource and is answered from Redis without reaching the API.
 *
 * Run it with a Redis server listening (Debian's `redis-server`):
 * `deno task example:cache-redis` (`REDIS_URL`, default
 * `redis://127.0.0.1:6379`).
 *
 * @module
 */

import { createClient } from "redis";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { HttpCache, RedisCacheStore } from "@fetchline/fetchline/cache";

/** Sends one GET of `url` through a cache in the Redis at `redisUrl`; gives its Cache-Status. */
export async function fetchThroughRedis(redisUrl: string, url: string): Promise<string> {
  const redis = await createClient({ url: redisUrl }).connect(); // the user's client: we close it
  try {
    const cache = new HttpCache({ store: new RedisCacheStore(redis) });
    await using client = new HttpClient(new HttpClientConfigBuilder().withCache(cache).build());
    const response = await client.get(url);
    await cache.whenIdle(); // the entry is in Redis before this process ends
    return `${response.header("cache-status")}: ${response.text}`;
  } finally {
    await redis.quit();
  }
}

/** Runs `deno` with `args` and gives what it printed (a test runs it its own way). */
export type RunDeno = (args: string[]) => Promise<string>;

const runDeno: RunDeno = async (args) => {
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    stdin: "null",
  }).output();
  if (!success) throw new Error(new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout).trim();
};

/** Runs the example against the Redis at `redisUrl`, printing each line with `print`. */
export async function main(
  redisUrl: string,
  print: (line: string) => void = console.log,
  run: RunDeno = runDeno,
): Promise<number> {
  let served = 0;
  await using api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    served++;
    return Response.json({ report: "weekly", rows: 1200 }, {
      headers: { "Cache-Control": "max-age=300" },
    });
  });
  const url = `http://127.0.0.1:${api.addr.port}/reports/weekly?run=${crypto.randomUUID()}`;
  const second = await run([
    "run",
    "--allow-net=127.0.0.1",
    "--allow-env",
    import.meta.filename!,
    redisUrl,
    url,
  ]);
  print(`second process: ${second}`);
  print(`this process:   ${await fetchThroughRedis(redisUrl, url)}`);
  print(`the API served ${served} request(s)`);
  return served;
}

if (import.meta.main) {
  const [redisUrl, url] = Deno.args;
  if (url !== undefined) console.log(await fetchThroughRedis(redisUrl!, url)); // the second process
  else await main(Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379");
}
