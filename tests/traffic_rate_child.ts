// The second process of tests/traffic_rate_test.ts: `deno run
// traffic_rate_child.ts <redis url> <url> <key> <calls> [skew]` connects an
// ioredis client, prints "ready", waits for a line on stdin, then sends
// <calls> GETs of <url> at once through rateLimit({ requests: 10,
// perSeconds: 0.2, scope: "client", key }) over a RedisTrafficStore and
// prints how many succeeded (each within 5 s, never retried). With `skew`,
// its Date runs an hour behind.

import FakeTimers from "@sinonjs/fake-timers";
import { Redis } from "ioredis";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { rateLimit, RedisTrafficStore } from "../traffic.ts";

const [redisUrl, url, key, calls, skew] = Deno.args;
if (redisUrl === undefined || url === undefined || key === undefined || calls === undefined) {
  throw new Error("usage: <redis url> <url> <key> <calls> [skew]");
}
const redis = new Redis(redisUrl);
const clock = skew === "skew"
  ? FakeTimers.install({ toFake: ["Date"], now: Date.now() - 3_600_000, shouldAdvanceTime: true })
  : undefined;
try {
  const limit = rateLimit({
    requests: 10,
    perSeconds: 0.2,
    scope: "client",
    key,
    store: new RedisTrafficStore(redis),
  });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withHeaders({ "X-Caller": "child" }).withMiddleware(limit)
      .withTimeout(5).withRetry({ maxRetries: 0 }).build(),
  );
  await redis.ping();
  console.log("ready");
  const stdin = Deno.stdin.readable.getReader();
  await stdin.read();
  await stdin.cancel();
  const responses = await Promise.all(
    Array.from({ length: Number(calls) }, () => client.get(url)),
  );
  console.log(responses.filter((response) => response.statusCode === 200).length);
} finally {
  clock?.uninstall();
  await redis.quit();
}
