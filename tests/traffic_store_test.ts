// RedisTrafficStore (API.md "Traffic control" > "Adaptive controls"): one
// store for rateLimit(), retryBudget() and circuitBreaker(), against a real
// redis-server shared by two clients and by two processes; a store that is
// down or slow never fails or hangs a call.

import assert from "node:assert/strict";
import { createClient } from "redis";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import {
  circuitBreaker,
  CircuitOpenException,
  rateLimit,
  RedisTrafficStore,
  retryBudget,
} from "../traffic.ts";
import type { Middleware } from "../interfaces.ts";
import { recordingLogger, stormServer } from "./helpers.ts";
import { startRedis } from "./redis_server.ts";

function client(
  configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder,
  ...middleware: Middleware[]
) {
  return new HttpClient(
    configure(new HttpClientConfigBuilder().withMiddleware(...middleware)).build(),
  );
}

/** Runs tests/traffic_store_child.ts; returns what it printed. */
async function child(redisUrl: string, url: string, mode: "budget" | "breaker"): Promise<string> {
  const output = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --no-prompt "$@"',
      Deno.execPath(),
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      new URL("./traffic_store_child.ts", import.meta.url).pathname,
      redisUrl,
      url,
      mode,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const errors = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, errors);
  return new TextDecoder().decode(output.stdout).trim();
}

Deno.test("RedisTrafficStore: two clients share a retry budget", async () => {
  await using redis = await startRedis();
  await using server = stormServer();
  const first = await createClient({ url: redis.url }).connect();
  const second = await createClient({ url: redis.url }).connect();
  try {
    const clients = [first, second].map((connection) => {
      const store = new RedisTrafficStore(connection);
      // Two retries a 10 s window, whatever the calls.
      const budget = retryBudget({ ratio: 0, minPerSecond: 0.2, store });
      return client((b) => b.withRetry({ maxRetries: 3, backoff: 0.001, budget }));
    });
    await using a = clients[0]!;
    await using b = clients[1]!;
    const one = await a.get(server.origin);
    assert.equal(server.counts.requests, 3, "the first call's two retries");
    assert.equal(one.context?.metadata.retryBudgetExhausted, true);
    const two = await b.get(server.origin);
    assert.equal(server.counts.requests, 4, "the other client's budget is the same: spent");
    assert.equal(two.context?.metadata.retryBudgetExhausted, true);
    const fields = Number(await first.sendCommand(["HLEN", `fetchline-budget:${server.origin}`]));
    assert.ok(fields >= 2 && fields <= 4, `${fields} counts by second on the server`);
    const ttl = Number(await first.sendCommand(["TTL", `fetchline-budget:${server.origin}`]));
    assert.ok(ttl > 0 && ttl <= 11, `TTL ${ttl}`);
  } finally {
    await first.close();
    await second.close();
  }
});

Deno.test("RedisTrafficStore: a breaker opened by one client's failures fails the other's calls at once", async () => {
  await using redis = await startRedis();
  await using server = stormServer();
  const first = await createClient({ url: redis.url }).connect();
  const second = await createClient({ url: redis.url }).connect();
  try {
    const options = { minimumCalls: 4, failureRatio: 1, openSeconds: 30 };
    const breakerA = circuitBreaker({ ...options, store: new RedisTrafficStore(first) });
    const breakerB = circuitBreaker({ ...options, store: new RedisTrafficStore(second) });
    await using a = client((b) => b.withRetry({ maxRetries: 0 }), breakerA);
    await using b = client((b) => b.withRetry({ maxRetries: 0 }), breakerB);
    for (let i = 0; i < 2; i++) await a.get(server.origin);
    for (let i = 0; i < 2; i++) await b.get(server.origin);
    // The fourth failure, counted on the server, opened it (each client counted only 2).
    await assert.rejects(a.get(server.origin), CircuitOpenException);
    await assert.rejects(b.get(server.origin), CircuitOpenException);
    assert.equal(server.counts.requests, 4);
    assert.equal(breakerB.state()[server.origin]?.state, "open");
    const left = Number(
      await first.sendCommand(["PTTL", `fetchline-breaker:{${server.origin}}:open`]),
    );
    assert.ok(left > 28_000 && left <= 30_000, `PTTL ${left}`);
    // A third client, new to the origin, learns it at its first call.
    const breakerC = circuitBreaker({ ...options, store: new RedisTrafficStore(first) });
    await using c = client((b) => b.withRetry({ maxRetries: 0 }), breakerC);
    await assert.rejects(c.get(server.origin), CircuitOpenException);
    assert.equal(server.counts.requests, 4);
  } finally {
    await first.close();
    await second.close();
  }
});

Deno.test("RedisTrafficStore: two processes share a budget and a breaker's state", async () => {
  await using redis = await startRedis();
  await using server = stormServer();
  const connection = await createClient({ url: redis.url }).connect();
  try {
    const store = new RedisTrafficStore(connection);
    const budget = retryBudget({
      ratio: 0,
      minPerSecond: 0.2,
      scope: "client",
      key: "shared",
      store,
    });
    await using ours = client((b) => b.withRetry({ maxRetries: 3, backoff: 0.001, budget }));
    await ours.get(server.origin);
    assert.equal(server.counts.requests, 3);
    // The child's budget, through its own ioredis client, is the one we spent.
    assert.equal(await child(redis.url, server.origin, "budget"), "0 true");
    assert.equal(server.counts.requests, 4);

    const breaker = circuitBreaker({ store, minimumCalls: 4, failureRatio: 1 });
    await using broken = client((b) => b.withRetry({ maxRetries: 0 }), breaker);
    for (let i = 0; i < 4; i++) await broken.get(server.origin);
    assert.equal(await child(redis.url, server.origin, "breaker"), "CircuitOpenException");
    assert.equal(server.counts.requests, 8);
  } finally {
    await connection.close();
  }
});

/** A client whose every command hangs (a store that is slow or cut off). */
const hanging = { sendCommand: () => new Promise<never>(() => {}) };

Deno.test("RedisTrafficStore: a store that hangs or is down never fails or hangs a call", async () => {
  await using server = stormServer();
  const store = new RedisTrafficStore(hanging, { storeTimeout: "50ms" });
  const { logger, lines } = recordingLogger();
  await using slow = client(
    (b) =>
      b.withLogging({ logger }).withRetry({
        maxRetries: 2,
        backoff: 0.001,
        budget: retryBudget({ ratio: 0, minPerSecond: 0.1, store, storeTimeout: 5 }),
      }),
    rateLimit({ requests: 100, perSeconds: 1, store, storeTimeout: 5 }),
    circuitBreaker({ minimumCalls: 100, store, storeTimeout: 5 }),
  );
  const started = performance.now();
  const response = await slow.get(server.origin);
  const took = performance.now() - started;
  assert.equal(response.statusCode, 503);
  // Each exchange waits at most 50 ms on the store (the rate limit and the breaker), plus the budget's.
  assert.ok(took < 1500, `took ${took.toFixed(0)} ms`);
  // The budget in memory decided: one retry a window.
  assert.equal(server.counts.requests, 2);
  assert.ok(lines.some(([, line]) => /did not answer within 50 ms/.test(line)), "told the logger");

  // A real server, stopped: its client fails (or queues) every command.
  const redis = await startRedis();
  const connection = await createClient({
    url: redis.url,
    socket: { reconnectStrategy: false },
    disableOfflineQueue: true,
  }).on("error", () => {}).connect();
  const down = new RedisTrafficStore(connection, { storeTimeout: 0.05 });
  await redis[Symbol.asyncDispose]();
  await using cut = client(
    (b) => b.withRetry({ maxRetries: 0 }),
    circuitBreaker({ minimumCalls: 100, store: down }),
  );
  const before = performance.now();
  assert.equal((await cut.get(server.origin)).statusCode, 503);
  assert.ok(performance.now() - before < 1000);
  await connection.close().catch(() => {});
});

Deno.test("RedisTrafficStore refuses bad input, naming the field", () => {
  assert.throws(() => new RedisTrafficStore({} as never), /Invalid redis/);
  assert.throws(
    () => new RedisTrafficStore(hanging, { storeTimeout: "soon" }),
    /Invalid storeTimeout/,
  );
  assert.throws(() => new RedisTrafficStore(hanging, { storeTimeout: 0 }), /Invalid storeTimeout/);
  assert.throws(() => new RedisTrafficStore(hanging, { prefix: 1 } as never), /Invalid prefix/);
  assert.throws(() => new RedisTrafficStore(hanging, { ttl: 1 } as never), /ttl/);
  assert.throws(() => circuitBreaker({ store: {} as never }), /Invalid store/);
  assert.throws(() => circuitBreaker({ storeTimeout: -1 }), /Invalid storeTimeout/);
});
