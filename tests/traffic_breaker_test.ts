// circuitBreaker() (API.md "Traffic control") against real servers: when it
// opens, that an open circuit sends nothing (counted at the server), its
// half-open probe, what counts as a failure. Short times run on the real
// clock; the defaults' 30 s on a fake performance.now() (the breaker's
// clock), ticked only between calls.

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { ConnectionException, HttpClientException, TimeoutException } from "../mod.ts";
import { circuitBreaker, CircuitOpenException } from "../traffic.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { clientWith, rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

/** Routes `/flaky` of `server` to answer `status()` after `delayMs()`; gives how many it answered. */
function flaky(
  server: FixtureServer,
  status: () => number,
  delayMs: () => number = () => 0,
): { readonly served: number } {
  const count = { served: 0 };
  server.route("/flaky", async () => {
    count.served++;
    const delay = delayMs();
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return new Response(null, { status: status() });
  });
  return count;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `done()` holds, checking every 5 ms for at most a second. */
async function until(done: () => boolean): Promise<void> {
  for (let turns = 0; !done(); turns++) {
    if (turns === 200) throw new Error("The condition did not hold within a second");
    await sleep(5);
  }
}

Deno.test("a breaker opens after failures, fails fast, half-opens after openSeconds with one probe, closes on success", async () => {
  await using server = startFixtureServer();
  let status = 500;
  let delay = 0;
  const count = flaky(server, () => status, () => delay);
  const breaker = circuitBreaker({ failureRatio: 0.5, minimumCalls: 4, openSeconds: 0.3 });
  await using client = clientWith(server.url, breaker);
  for (let i = 0; i < 4; i++) assert.equal((await client.get("/flaky")).statusCode, 500);
  assert.deepEqual(breaker.state()[server.url]?.state, "open");
  const open = breaker.state()[server.url]!;
  assert.ok(open.halfOpensAt! > Date.now() && open.halfOpensAt! <= Date.now() + 300);

  const started = performance.now();
  for (let i = 0; i < 5; i++) {
    await rejectsWith(
      client.get("/flaky"),
      CircuitOpenException,
      /^The circuit breaker of http:\/\/127\.0\.0\.1:\d+ is open: GET http:\/\/127\.0\.0\.1:\d+\/flaky$/,
    );
  }
  assert.ok(performance.now() - started < 300, "they failed at once");
  assert.equal(count.served, 4, "an open circuit sends nothing");

  await sleep(320);
  assert.equal(breaker.state()[server.url]?.state, "half-open");
  status = 200;
  delay = 100;
  const probe = client.get("/flaky");
  await sleep(20);
  await rejectsWith(
    client.get("/flaky"),
    CircuitOpenException,
    /is half-open, its probe in flight/,
  );
  assert.equal((await settles(probe)).statusCode, 200);
  assert.equal(count.served, 5, "exactly one probe went through");
  assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 0, failures: 0 });
  delay = 0;
  const passing = await Promise.all(Array.from({ length: 5 }, () => client.get("/flaky")));
  assert.ok(passing.every((response) => response.statusCode === 200));
  assert.equal(count.served, 10);
});

Deno.test("a probe that fails opens the circuit again for openSeconds", async () => {
  await using server = startFixtureServer();
  const count = flaky(server, () => 503);
  const breaker = circuitBreaker({ failureRatio: 1, minimumCalls: 2, openSeconds: 0.2 });
  await using client = clientWith(server.url, breaker);
  await client.get("/flaky");
  await client.get("/flaky");
  await rejectsWith(client.get("/flaky"), CircuitOpenException, /is open/);
  await sleep(220);
  assert.equal((await client.get("/flaky")).statusCode, 503, "the probe's answer, as it is");
  assert.equal(count.served, 3);
  assert.equal(breaker.state()[server.url]?.state, "open");
  await rejectsWith(client.get("/flaky"), CircuitOpenException, /is open/);
  assert.equal(count.served, 3);
  await sleep(220);
  assert.equal((await client.get("/flaky")).statusCode, 503);
  assert.equal(count.served, 4, "one probe each openSeconds");
});

Deno.test("a probe that times out opens the circuit again", async () => {
  await using server = startFixtureServer();
  let delay = 0;
  const count = flaky(server, () => 500, () => delay);
  const breaker = circuitBreaker({ failureRatio: 1, minimumCalls: 1, openSeconds: 0.1 });
  await using client = clientWith(server.url, breaker, (builder) => builder.withTimeout(0.05));
  await client.get("/flaky");
  await sleep(120);
  delay = 300;
  await rejectsWith(client.get("/flaky"), TimeoutException, /timed out/);
  await until(() => breaker.state()[server.url]?.state === "open");
  await rejectsWith(client.get("/flaky"), CircuitOpenException, /is open/);
  assert.equal(count.served, 2);
});

Deno.test("4xx answers never count as failures; they count as calls", async () => {
  await using server = startFixtureServer();
  let status = 404;
  const count = flaky(server, () => status);
  const breaker = circuitBreaker({ failureRatio: 0.5, minimumCalls: 2 });
  await using client = clientWith(server.url, breaker);
  for (const code of [400, 401, 403, 404, 409, 422, 429, 499]) {
    status = code;
    assert.equal((await client.get("/flaky")).statusCode, code);
  }
  assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 8, failures: 0 });
  status = 500;
  for (let i = 0; i < 7; i++) await client.get("/flaky");
  assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 15, failures: 7 });
  await client.get("/flaky");
  assert.equal(breaker.state()[server.url]?.state, "open", "8 of 16 failed");
  assert.equal(count.served, 16);
});

Deno.test("connection errors and timeouts are failures", async () => {
  // A port nothing listens on: connection refused.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const refused = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  listener.close();
  const breaker = circuitBreaker({ failureRatio: 1, minimumCalls: 2 });
  await using client = clientWith(refused, breaker);
  await rejectsWith(client.get("/"), ConnectionException, /Connection failed/);
  await rejectsWith(client.get("/"), ConnectionException, /Connection failed/);
  await rejectsWith(client.get("/"), CircuitOpenException, /is open/);

  await using server = startFixtureServer();
  const count = flaky(server, () => 200, () => 300);
  await using slow = clientWith(server.url, breaker, (builder) => builder.withTimeout(0.05));
  await rejectsWith(slow.get("/flaky"), TimeoutException, /timed out/);
  await rejectsWith(slow.get("/flaky"), TimeoutException, /timed out/);
  // A timeout is counted once the exchange under the breaker has ended: a moment after.
  await until(() => breaker.state()[server.url]?.state === "open");
  await rejectsWith(slow.get("/flaky"), CircuitOpenException, /is open/);
  assert.equal(count.served, 2);
  // Each origin has its own circuit: the echo of another server passes.
  await using other = startFixtureServer();
  assert.equal((await slow.get(`${other.url}/echo`)).statusCode, 200);
  assert.deepEqual(
    Object.values(breaker.state()).map((circuit) => circuit.state),
    ["open", "open", "closed"],
  );
});

Deno.test("a call ended by its signal or the client's close is no failure, nor a probe's end", async () => {
  await using server = startFixtureServer();
  let status = 500;
  const count = flaky(server, () => status, () => 300);
  const breaker = circuitBreaker({ failureRatio: 1, minimumCalls: 1, openSeconds: 0.1 });
  await using client = clientWith(server.url, breaker);
  // The caller's AbortSignal.timeout() is a TimeoutException, and still no failure of the server.
  await rejectsWith(
    client.get("/flaky", { signal: AbortSignal.timeout(50) }),
    TimeoutException,
    /^Request timed out \(the caller's signal\)/,
  );
  const closing = clientWith(server.url, breaker);
  const closed = closing.get("/flaky");
  await sleep(50);
  await closing.close();
  await rejectsWith(closed, HttpClientException, /closed/);
  assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 0, failures: 0 });
  // One 500 opens it; the probe ended by its caller leaves it half-open.
  assert.equal((await client.get("/flaky")).statusCode, 500);
  await sleep(120);
  status = 200;
  // The caller's AbortSignal.timeout() is a TimeoutException, and still no failure of the server.
  await rejectsWith(
    client.get("/flaky", { signal: AbortSignal.timeout(50) }),
    TimeoutException,
    /^Request timed out \(the caller's signal\)/,
  );
  assert.equal(breaker.state()[server.url]?.state, "half-open");
  assert.equal((await client.get("/flaky")).statusCode, 200, "the next call probes");
  assert.equal(breaker.state()[server.url]?.state, "closed");
  assert.equal(count.served, 5);
});

Deno.test("only the last windowSeconds count, and only from minimumCalls on", async () => {
  await using server = startFixtureServer();
  let status = 500;
  flaky(server, () => status);
  const breaker = circuitBreaker({ failureRatio: 0.6, minimumCalls: 3, windowSeconds: 0.3 });
  await using client = clientWith(server.url, breaker);
  await client.get("/flaky");
  await client.get("/flaky");
  assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 2, failures: 2 });
  await sleep(350);
  assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 0, failures: 0 });
  status = 200;
  await client.get("/flaky");
  status = 500;
  await client.get("/flaky");
  assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 2, failures: 1 });
  await client.get("/flaky");
  assert.equal(breaker.state()[server.url]?.state, "open", "2 of 3 failed: past 0.6");
});

Deno.test("with the client's retries: each attempt is a call, and a retry into the opened circuit fails at once", async () => {
  await using server = startFixtureServer();
  const count = flaky(server, () => 503);
  const breaker = circuitBreaker({ failureRatio: 1, minimumCalls: 2, openSeconds: 60 });
  await using client = clientWith(
    server.url,
    breaker,
    (builder) => builder.withRetry({ maxRetries: 5, backoff: 0.001 }),
  );
  await rejectsWith(client.get("/flaky"), CircuitOpenException, /is open/);
  assert.equal(count.served, 2, "CircuitOpenException is never retried");
});

Deno.test("the defaults: 20 calls, half of them failed, in 30 s open the circuit for 30 s (a fake clock)", async () => {
  await using server = startFixtureServer();
  let status = 500;
  const count = flaky(server, () => status);
  const clock = FakeTimers.install({ toFake: ["performance"] });
  try {
    const breaker = circuitBreaker();
    await using client = clientWith(server.url, breaker);
    for (let i = 0; i < 19; i++) await client.get("/flaky");
    // 31 s later the window has forgotten them.
    clock.tick(31_000);
    for (let i = 0; i < 10; i++) await client.get("/flaky");
    status = 200;
    for (let i = 0; i < 9; i++) await client.get("/flaky");
    assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 19, failures: 10 });
    await client.get("/flaky");
    assert.equal(breaker.state()[server.url]?.state, "open", "10 of 20 failed");
    clock.tick(29_900);
    await rejectsWith(client.get("/flaky"), CircuitOpenException, /is open/);
    clock.tick(100);
    assert.equal((await client.get("/flaky")).statusCode, 200);
    assert.equal(breaker.state()[server.url]?.state, "closed");
    assert.equal(count.served, 40);
  } finally {
    clock.uninstall();
  }
});

Deno.test("circuitBreaker() refuses bad options with a TypeError naming the field", () => {
  const cases: [string, unknown[], RegExp][] = [
    ["failureRatio", [0, -0.5, 1.5, NaN, "0.5", null], /expected a number above 0 and at most 1/],
    ["minimumCalls", [0, 1.5, -1, Infinity, "20"], /expected a whole number from 1/],
    ["windowSeconds", [0, -1, Infinity, NaN, "30"], /expected a finite number of seconds above 0/],
    ["openSeconds", [0, -1, Infinity, null], /expected a finite number of seconds above 0/],
  ];
  for (const [field, values, expected] of cases) {
    for (const value of values) {
      const error = throwsAtOnce(
        () => circuitBreaker({ [field]: value } as never),
        TypeError,
        new RegExp(`^Invalid ${field}: `),
      );
      assert.match(error.message, expected);
    }
  }
  throwsAtOnce(
    () => circuitBreaker({ failureRate: 0.5 } as never),
    TypeError,
    /^Invalid circuitBreaker options: unknown key "failureRate" \(known: failureRatio, minimumCalls, windowSeconds, openSeconds, store, storeTimeout\)$/,
  );
  assert.deepEqual(circuitBreaker({ failureRatio: 1, minimumCalls: 1 }).state(), {});
});
