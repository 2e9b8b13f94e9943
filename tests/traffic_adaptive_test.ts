// The adaptive controls (API.md "Traffic control" > "Adaptive controls")
// against real fault-injecting servers on loopback: retryBudget() in a
// storm, adaptiveConcurrency()'s limit as a server refuses past N in flight,
// hedge()'s winner and cancelled loser.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { retryBudget } from "../traffic.ts";
import type { Middleware } from "../interfaces.ts";

/** A server that answers 503 to everything, counting what it gets. */
function stormServer() {
  const counts = { requests: 0 };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => (counts.requests++, new Response("down", { status: 503 })),
  );
  return {
    counts,
    origin: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function client(
  origin: string,
  configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder,
  ...middleware: Middleware[]
) {
  return new HttpClient(
    configure(new HttpClientConfigBuilder().withBaseUrl(origin).withMiddleware(...middleware))
      .build(),
  );
}

Deno.test("retryBudget(): a storm of 503s with maxRetries 3 costs at most 1 + ratio times the calls", async () => {
  await using server = stormServer();
  const budget = retryBudget({ ratio: 0.1, minPerSecond: 0 });
  await using limited = client(
    server.origin,
    (builder) => builder.withRetry({ maxRetries: 3, backoff: 0.001, maxBackoff: 0.002, budget }),
  );
  const calls = 200;
  let exhausted = 0;
  for (let i = 0; i < calls; i++) {
    const response = await limited.get("/");
    assert.equal(response.statusCode, 503);
    if (response.context?.metadata.retryBudgetExhausted === true) exhausted++;
  }
  assert.ok(server.counts.requests <= calls * 1.1 + 1, `${server.counts.requests} requests`);
  assert.ok(server.counts.requests >= calls * 1.05, "retries went out while the budget had room");
  assert.ok(exhausted >= calls * 0.85, `${exhausted} calls told the budget was spent`);
  const state = budget.state()[server.origin]!;
  assert.equal(state.calls, calls);
  assert.equal(state.retries, server.counts.requests - calls);
});

Deno.test("retryBudget(): without it the same storm costs 1 + maxRetries times", async () => {
  await using server = stormServer();
  await using plain = client(
    server.origin,
    (builder) => builder.withRetry({ maxRetries: 3, backoff: 0.001, maxBackoff: 0.002 }),
  );
  for (let i = 0; i < 20; i++) await plain.get("/");
  assert.equal(server.counts.requests, 80);
});

Deno.test("retryBudget(): minPerSecond lets a quiet client retry", async () => {
  await using server = stormServer();
  const budget = retryBudget({ ratio: 0, minPerSecond: 1 });
  await using quiet = client(
    server.origin,
    (builder) => builder.withRetry({ maxRetries: 3, backoff: 0.001, maxBackoff: 0.002, budget }),
  );
  const response = await quiet.get("/");
  // 10 retries a window: the first call's 3 go out.
  assert.equal(server.counts.requests, 4);
  assert.equal(response.context?.metadata.retryBudgetExhausted, undefined);
  for (let i = 0; i < 5; i++) await quiet.get("/");
  assert.equal(server.counts.requests, 6 + 10);
});

Deno.test("retryBudget(): a store that fails or hangs leaves the budget in memory deciding, within storeTimeout", async () => {
  await using server = stormServer();
  for (
    const store of [
      { budgetSent() {}, budgetWithdraw: () => Promise.reject(new Error("down")) },
      { budgetSent() {}, budgetWithdraw: () => new Promise<boolean>(() => {}) },
      {
        budgetSent() {
          throw new Error("down");
        },
        budgetWithdraw() {
          throw new Error("down");
        },
      },
    ]
  ) {
    server.counts.requests = 0;
    const budget = retryBudget({ ratio: 0, minPerSecond: 0.1, store, storeTimeout: 0.05 });
    await using failing = client(
      server.origin,
      (builder) => builder.withRetry({ maxRetries: 3, backoff: 0.001, maxBackoff: 0.002, budget }),
    );
    const started = performance.now();
    const response = await failing.get("/");
    assert.ok(performance.now() - started < 1000, "each wait on the store was bounded");
    assert.equal(response.statusCode, 503);
    // One retry a window in memory: the first goes out, the second is refused.
    assert.equal(server.counts.requests, 2);
    assert.equal(response.context?.metadata.retryBudgetExhausted, true);
  }
});

Deno.test("retryBudget(): a store's answer decides", async () => {
  await using server = stormServer();
  const told: string[] = [];
  const store = {
    budgetSent: (key: string) => void told.push(`sent ${key}`),
    budgetWithdraw: (key: string, ratio: number, minimum: number) => (
      told.push(`withdraw ${key} ${ratio} ${minimum}`), Promise.resolve(told.length < 3)
    ),
  };
  const budget = retryBudget({ ratio: 0.5, minPerSecond: 2, scope: "client", key: "api", store });
  await using shared = client(
    server.origin,
    (builder) => builder.withRetry({ maxRetries: 3, backoff: 0.001, maxBackoff: 0.002, budget }),
  );
  const response = await shared.get("/");
  assert.deepEqual(told, ["sent api", "withdraw api 0.5 20", "withdraw api 0.5 20"]);
  assert.equal(server.counts.requests, 2);
  assert.equal(response.context?.metadata.retryBudgetExhausted, true);
});

Deno.test("retryBudget() and withRetry({ budget }) refuse bad input, naming the field", () => {
  assert.throws(() => retryBudget({ ratio: -1 }), /Invalid ratio/);
  assert.throws(() => retryBudget({ minPerSecond: NaN }), /Invalid minPerSecond/);
  assert.throws(() => retryBudget({ scope: "host" as never }), /Invalid scope/);
  assert.throws(() => retryBudget({ key: "k" }), /Invalid key/);
  assert.throws(() => retryBudget({ store: {} as never }), /Invalid store/);
  assert.throws(() => retryBudget({ storeTimeout: 0 }), /storeTimeout/);
  assert.throws(() => retryBudget({ ratios: 1 } as never), /ratios/);
  assert.throws(
    () => new HttpClientConfigBuilder().withRetry({ budget: {} as never }),
    /Invalid budget/,
  );
});
