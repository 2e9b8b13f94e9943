// The adaptive controls (API.md "Traffic control" > "Adaptive controls")
// against real fault-injecting servers on loopback: retryBudget() in a
// storm, adaptiveConcurrency()'s limit as a server refuses past N in flight,
// hedge()'s winner and cancelled loser.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import {
  adaptiveConcurrency,
  circuitBreaker,
  concurrency,
  hedge,
  QueueFullException,
  retryBudget,
} from "../traffic.ts";
import type { Middleware } from "../interfaces.ts";
import { stormServer } from "./helpers.ts";

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

/** A server that holds each request `ms` and answers 429 past `allowed` in flight. */
function crowdedServer(allowed: number, ms: number) {
  const counts = { requests: 0, refused: 0, inFlight: 0, most: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    counts.requests++;
    if (counts.inFlight >= allowed) {
      counts.refused++;
      return new Response("busy", { status: 429 });
    }
    counts.most = Math.max(counts.most, ++counts.inFlight);
    await new Promise((resolve) => setTimeout(resolve, ms));
    counts.inFlight--;
    return new Response("ok");
  });
  return {
    counts,
    origin: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Runs `workers` loops of calls for `ms`; returns the statuses. */
async function load(http: HttpClient, workers: number, ms: number): Promise<number[]> {
  const statuses: number[] = [];
  const until = performance.now() + ms;
  await Promise.all(Array.from({ length: workers }, async () => {
    while (performance.now() < until) statuses.push((await http.get("/")).statusCode);
  }));
  return statuses;
}

Deno.test("adaptiveConcurrency(): the limit falls to what a server allows in flight, then few 429s", async () => {
  await using server = crowdedServer(4, 10);
  const limiter = adaptiveConcurrency({ initial: 32, min: 1, max: 64 });
  await using http = client(server.origin, (b) => b.withRetry({ maxRetries: 0 }), limiter);
  const trajectory: number[] = [];
  const timer = setInterval(() => trajectory.push(limiter.limit(server.origin)), 20);
  try {
    await load(http, 32, 600);
    const settled = server.counts.requests;
    const refusedBefore = server.counts.refused;
    const statuses = await load(http, 32, 1000);
    const refused = server.counts.refused - refusedBefore;
    assert.ok(trajectory[0]! > 8 && limiter.limit(server.origin) <= 6, `trajectory ${trajectory}`);
    assert.ok(refused / statuses.length <= 0.05, `${refused} of ${statuses.length} refused`);
    assert.ok(server.counts.requests > settled + 40, "calls went on at the limit");
  } finally {
    clearInterval(timer);
  }
  assert.deepEqual(limiter.state()[server.origin], {
    limit: limiter.limit(server.origin),
    inFlight: 0,
    queued: 0,
  });
});

Deno.test("adaptiveConcurrency(): the limit rises while answers hold and the limit is in use", async () => {
  await using server = crowdedServer(1000, 2);
  const limiter = adaptiveConcurrency({ initial: 2, min: 1, max: 12 });
  await using http = client(server.origin, (b) => b, limiter);
  assert.equal(limiter.limit(server.origin), 2);
  await load(http, 16, 700);
  // Near the top, a latency rise on a busy machine may take it down a step.
  assert.ok(limiter.limit(server.origin) >= 6, `limit ${limiter.limit(server.origin)}`);
  assert.ok(server.counts.most <= 12);
});

Deno.test("adaptiveConcurrency(): calls past the limit queue with concurrency()'s bounds and errors", async () => {
  await using server = crowdedServer(1000, 50);
  const limiter = adaptiveConcurrency({ initial: 1, min: 1, max: 1, maxQueue: 1 });
  await using http = client(server.origin, (b) => b, limiter);
  const first = http.get("/");
  const second = http.get("/");
  await assert.rejects(http.get("/"), QueueFullException);
  assert.equal(limiter.state()[server.origin]?.queued, 1);
  await assert.rejects(
    http.get("/", { timeout: 0.02 }).catch((error) => {
      throw error;
    }),
    QueueFullException,
  );
  await Promise.all([first, second]);
  assert.equal(server.counts.most, 1);
});

Deno.test("adaptiveConcurrency() refuses bad input, naming the field", () => {
  assert.throws(() => adaptiveConcurrency({ initial: 0 }), /Invalid initial/);
  assert.throws(() => adaptiveConcurrency({ min: 1.5 }), /Invalid min/);
  assert.throws(() => adaptiveConcurrency({ max: -1 }), /Invalid max/);
  assert.throws(() => adaptiveConcurrency({ min: 4, max: 2 }), /min <= initial <= max/);
  assert.throws(() => adaptiveConcurrency({ maxQueue: -1 }), /Invalid maxQueue/);
  assert.throws(() => adaptiveConcurrency({ latencyTolerance: 1 }), /Invalid latencyTolerance/);
  assert.throws(() => adaptiveConcurrency({ scope: "x" as never }), /Invalid scope/);
  assert.throws(() => adaptiveConcurrency({ limit: 1 } as never), /limit/);
});

/**
 * A server whose answers to the requests `slow` picks (by their number,
 * from 0) take `slowMs`, the others `fastMs`; it records which requests
 * were ended by the client before their answer.
 */
function slowServer(slow: (n: number, path: string) => boolean, slowMs: number, fastMs = 0) {
  const counts = { requests: 0, abandoned: [] as number[], answered: [] as number[] };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const n = counts.requests++;
    const ms = slow(n, new URL(request.url).pathname) ? slowMs : fastMs;
    const ended = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      request.signal.addEventListener("abort", () => (clearTimeout(timer), resolve(true)));
    });
    if (ended) counts.abandoned.push(n);
    else counts.answered.push(n);
    return new Response(`answer ${n}`);
  });
  return {
    counts,
    origin: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Waits (at most 2 s) until `done()` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 2000) throw new Error(`not within 2 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

Deno.test("hedge(): the first head wins and the slow send is cancelled on the server", async () => {
  await using server = slowServer((n) => n === 0, 3000);
  const hedging = hedge({ after: "30ms", maxExtra: 1 });
  const limit = concurrency({ max: 10 });
  await using http = client(server.origin, (b) => b, hedging, limit);
  const started = performance.now();
  const response = await http.get("/");
  assert.equal(response.text, "answer 1");
  assert.ok(performance.now() - started < 1000, "the hedge's answer came first");
  await until(() => server.counts.abandoned.includes(0), "the loser is cancelled");
  assert.deepEqual(server.counts.answered, [1]);
  // Each send took a place of the concurrency after it, and gave it back.
  assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
  assert.equal(Math.round(hedging.state()[server.origin]!.won), 1, "counts decay over 10 s");
});

Deno.test("hedge(): a streamed call's winner is read whole, the loser cancelled", async () => {
  await using server = slowServer((n) => n === 0, 3000);
  const limit = concurrency({ max: 10 });
  await using http = client(server.origin, (b) => b, hedge({ after: 30, maxExtra: 1 }), limit);
  const response = await http.stream("GET", "/");
  assert.equal((await response.read()).text, "answer 1");
  await until(() => server.counts.abandoned.includes(0), "the loser is cancelled");
  assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
});

Deno.test("hedge(): no hedge for a POST, nor past maxExtra of the calls", async () => {
  await using server = slowServer(() => true, 40);
  const hedging = hedge({ after: "5ms", maxExtra: 0.1 });
  await using http = client(server.origin, (b) => b, hedging);
  await http.post("/", { body: "x" });
  assert.equal(server.counts.requests, 1);
  for (let i = 0; i < 40; i++) await http.get("/");
  const extra = server.counts.requests - 41;
  assert.ok(extra >= 1 && extra <= 0.1 * 41 + 1, `${extra} hedges for 41 calls`);
});

Deno.test("hedge(): after p95 learns the origin's latency; a slow answer gets a hedge", async () => {
  // /slow's first request is slow; its hedge, and every other request, fast (5 ms).
  let slowOnes = 0;
  await using server = slowServer((_, path) => path === "/slow" && slowOnes++ === 0, 3000, 5);
  const hedging = hedge({ after: "p95", maxExtra: 0.5 });
  await using http = client(server.origin, (b) => b, hedging);
  for (let i = 0; i < 20; i++) await http.get("/");
  assert.equal(server.counts.requests, 20, "no hedge before 20 answers");
  for (let i = 0; i < 40; i++) await http.get("/");
  // About 5% of answers come past the p95: a few hedges.
  assert.ok(server.counts.requests <= 60 + 6, `${server.counts.requests - 60} hedges`);
  const learned = hedging.state()[server.origin]!.afterMs!;
  assert.ok(learned >= 4 && learned < 200, `p95 ${learned} ms`);
  const started = performance.now();
  const sent = server.counts.requests;
  assert.equal((await http.get("/slow")).text, `answer ${sent + 1}`);
  assert.ok(performance.now() - started < 1000);
  await until(() => server.counts.abandoned.includes(sent), "the loser is cancelled");
});

Deno.test("hedge(): after p95 rises when more than 5% of answers turn slow, though their hedges win", async () => {
  // 40 fast answers (10 ms) teach a low p95; then every 4th call's first send takes 3 s,
  // its hedge 10 ms. A hedged first send took longer than its call: the learned p95 must
  // count it past the call's time, not at the delay (that kept the p95 among the fast
  // answers, so a quarter of the calls went on taking a hedge under a "p95").
  let calls = 0;
  const firstSends = new Set<string>();
  await using server = slowServer(
    (_, path) => {
      const slow = path.startsWith("/slow") && !firstSends.has(path);
      firstSends.add(path);
      return slow;
    },
    3000,
    10,
  );
  const hedging = hedge({ after: "p95", maxExtra: 1 });
  await using http = client(server.origin, (b) => b, hedging);
  for (; calls < 40; calls++) await http.get(`/fast${calls}`);
  const learned = hedging.state()[server.origin]!.afterMs!;
  assert.ok(learned < 100, `p95 ${learned} ms among the fast answers`);
  for (; calls < 160; calls++) await http.get(calls % 4 === 0 ? `/slow${calls}` : `/fast${calls}`);
  const risen = hedging.state()[server.origin]!.afterMs!;
  assert.ok(risen >= learned + 30, `p95 ${learned} ms, then ${risen} ms with 25% of answers slow`);
});

Deno.test("hedge(): a hedge is taken from the retry budget, and the breaker counts each send", async () => {
  await using server = slowServer(() => true, 60);
  const budget = retryBudget({ ratio: 0, minPerSecond: 0 });
  const breaker = circuitBreaker({ minimumCalls: 100 });
  await using http = client(
    server.origin,
    (b) => b,
    hedge({ after: "5ms", maxExtra: 1, budget }),
    breaker,
  );
  await http.get("/");
  assert.equal(server.counts.requests, 1, "the budget refused the hedge");
  assert.equal(budget.state()[server.origin]?.refused, 1);
  const open = retryBudget({ ratio: 0, minPerSecond: 1 });
  await using other = client(
    server.origin,
    (b) => b,
    hedge({ after: "5ms", maxExtra: 1, budget: open }),
    breaker,
  );
  await other.get("/");
  await until(() => server.counts.requests === 3, "the hedge went out");
  assert.equal(open.state()[server.origin]?.retries, 1);
  await until(() => breaker.state()[server.origin]?.calls === 2, "the breaker counted 2 answers");
});

Deno.test("hedge(): maxExtra holds while a budget with a store decides", async () => {
  // Four calls at once, all slow: maxExtra 0.3 of 4 calls is one hedge. The budget's store
  // answers after 50 ms; the four delays pass meanwhile, and each must see the hedges the
  // others are deciding on (they counted only once the store said yes: four hedges went out).
  await using server = slowServer(() => true, 300);
  const store = {
    budgetSent() {},
    budgetWithdraw: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 50)),
  };
  const budget = retryBudget({ ratio: 1, minPerSecond: 100, store });
  const hedging = hedge({ after: "5ms", maxExtra: 0.3, budget });
  await using http = client(server.origin, (b) => b, hedging);
  await Promise.all(Array.from({ length: 4 }, () => http.get("/")));
  assert.equal(server.counts.requests, 5, "one hedge for four calls");
  assert.equal(Math.round(hedging.state()[server.origin]!.hedges), 1);
});

Deno.test("hedge(): a hedge the budget refuses gives its share of maxExtra back", async () => {
  await using server = slowServer(() => true, 100);
  let answers = 0;
  const store = {
    budgetSent() {},
    budgetWithdraw: () => Promise.resolve(answers++ > 0),
  };
  const budget = retryBudget({ ratio: 1, minPerSecond: 100, store });
  const hedging = hedge({ after: "5ms", maxExtra: 1, budget });
  await using http = client(server.origin, (b) => b, hedging);
  await http.get("/");
  assert.equal(server.counts.requests, 1, "the store refused the first hedge");
  assert.ok(hedging.state()[server.origin]!.hedges < 0.01);
  await http.get("/");
  await until(() => server.counts.requests === 3, "the second call's hedge went out");
});

Deno.test("hedge(): the call's signal ends both sends", async () => {
  await using server = slowServer(() => true, 3000);
  await using http = client(server.origin, (b) => b, hedge({ after: "5ms", maxExtra: 1 }));
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 60);
  await assert.rejects(http.get("/", { signal: controller.signal }));
  await until(() => server.counts.abandoned.length === 2, "both sends ended");
});

Deno.test("hedge() refuses bad input, naming the field", () => {
  assert.throws(() => hedge({ after: "soon" }), /Invalid after/);
  assert.throws(() => hedge({ after: -1 }), /Invalid after/);
  assert.throws(() => hedge({ after: "p0" }), /Invalid after/);
  assert.throws(() => hedge({ maxExtra: -0.1 }), /Invalid maxExtra/);
  assert.throws(() => hedge({ budget: {} as never }), /Invalid budget/);
  assert.throws(() => hedge({ delay: 1 } as never), /delay/);
});
