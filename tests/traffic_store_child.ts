// The second process of tests/traffic_store_test.ts: `deno run
// traffic_store_child.ts <redis url> <url> <mode>` connects an ioredis
// client and sends one GET of <url> through a RedisTrafficStore:
// - "budget": withRetry({ maxRetries: 3, budget: retryBudget({ ratio: 0,
//   minPerSecond: 0.2, scope: "client", key: "shared" }) }); prints the
//   retries its call made and whether the budget was spent.
// - "breaker": circuitBreaker({ store, minimumCalls: 4, failureRatio: 1 });
//   prints the exception's class name, or the status.

import { Redis } from "ioredis";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { circuitBreaker, RedisTrafficStore, retryBudget } from "../traffic.ts";

const [redisUrl, url, mode] = Deno.args;
if (redisUrl === undefined || url === undefined || mode === undefined) {
  throw new Error("usage: <redis url> <url> budget|breaker");
}
const redis = new Redis(redisUrl);
try {
  const store = new RedisTrafficStore(redis);
  const builder = new HttpClientConfigBuilder().withTimeout(5);
  if (mode === "budget") {
    const budget = retryBudget({
      ratio: 0,
      minPerSecond: 0.2,
      scope: "client",
      key: "shared",
      store,
    });
    builder.withRetry({ maxRetries: 3, backoff: 0.001, maxBackoff: 0.002, budget });
  } else {
    builder.withRetry({ maxRetries: 0 }).withMiddleware(
      circuitBreaker({ store, minimumCalls: 4, failureRatio: 1 }),
    );
  }
  await using client = new HttpClient(builder.build());
  try {
    const response = await client.get(url);
    console.log(
      mode === "budget"
        ? `${response.context?.attempt} ${response.context?.metadata.retryBudgetExhausted === true}`
        : String(response.statusCode),
    );
  } catch (error) {
    console.log((error as Error).constructor.name);
  }
} finally {
  await redis.quit();
}
