// serverPacing() and circuitBreaker() on the npm build under Node, against a
// node:http server that counts and times what reaches it: a 429 with
// Retry-After: 1 keeps the next callers away for a second, a longer wait
// fails at once, a waiting call ends with its timeout and its signal; a
// breaker opens, fails fast, half-opens with one probe and closes.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "@fetchline/fetchline";
import {
  circuitBreaker,
  CircuitOpenException,
  RateLimitedException,
  serverPacing,
} from "@fetchline/fetchline/traffic";
import { rejectsWith, settles } from "./helpers.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server answering `answer(n)` ([status, headers]) to its n-th request (from 1); `arrivals` their times. */
async function startServer(t, answer) {
  const arrivals = [];
  const server = createServer((req, res) => {
    req.resume();
    arrivals.push(Date.now());
    const [status, headers = {}] = answer(arrivals.length);
    res.writeHead(status, headers).end("body");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${server.address().port}`, arrivals };
}

function clientWith(t, url, middleware, configure = (builder) => builder) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(5)
    .withRetry({ maxRetries: 0 }).withMiddleware(middleware);
  const client = new HttpClient(configure(builder).build());
  t.after(() => client.close());
  return client;
}

test("a 429 with Retry-After: 1 keeps the next callers from the server for 1 s", async (t) => {
  const server = await startServer(t, (n) => n === 1 ? [429, { "retry-after": "1" }] : [200]);
  const pacing = serverPacing();
  const client = clientWith(t, server.url, pacing);
  assert.equal((await client.get("/")).statusCode, 429);
  const waiting = [client.get("/"), client.get("/")];
  await sleep(50);
  assert.equal(pacing.state()[server.url]?.waiting, 2);
  assert.equal(server.arrivals.length, 1);
  for (const response of await settles(Promise.all(waiting))) {
    assert.equal(response.statusCode, 200);
  }
  for (const at of server.arrivals.slice(1)) {
    assert.ok(at - server.arrivals[0] >= 1000, `${at - server.arrivals[0]} ms after the 429`);
  }
});

test("a wait past maxWaitSeconds fails at once with RateLimitedException; the draft's RateLimit and an epoch reset are read", async (t) => {
  const epoch = Math.floor(Date.now() / 1000) + 3600;
  const answers = [
    [503, { "retry-after": "120" }],
    [200, { "ratelimit": '"default";r=0;t=90' }],
    [200, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(epoch) }],
  ];
  for (const [status, headers] of answers) {
    const server = await startServer(t, (n) => n === 1 ? [status, headers] : [200]);
    const client = clientWith(t, server.url, serverPacing({ maxWaitSeconds: 60 }));
    assert.equal((await client.get("/")).statusCode, status);
    const error = await rejectsWith(
      client.get("/"),
      RateLimitedException,
      /^Rate limited by the server for \d+ s/,
    );
    const expected = Number(headers["retry-after"] ?? 90);
    if (headers["x-ratelimit-reset"] === undefined) assert.equal(error.retryAfterSeconds, expected);
    else assert.ok(Math.abs(error.retryAfterSeconds - 3600) <= 1, `${error.retryAfterSeconds}`);
    assert.ok(error instanceof HttpClientException);
    assert.equal(server.arrivals.length, 1);
  }
});

test("a waiting call ends with its timeout, naming the wait, and with its signal", async (t) => {
  const server = await startServer(t, (n) => n === 1 ? [429, { "retry-after": "30" }] : [200]);
  const pacing = serverPacing();
  const client = clientWith(t, server.url, pacing);
  await client.get("/");
  await rejectsWith(
    settles(client.get("/", { timeout: 0.1 })),
    TimeoutException,
    /^Request timed out after 0\.1 s waiting in the server's rate limit: GET/,
  );
  // The caller's AbortSignal.timeout() is a TimeoutException naming the caller's signal.
  await rejectsWith(
    settles(client.get("/", { signal: AbortSignal.timeout(50) })),
    TimeoutException,
    /^Request timed out \(the caller's signal\)/,
  );
  assert.equal(pacing.state()[server.url]?.waiting, 0);
  assert.equal(server.arrivals.length, 1);
});

test("a breaker opens after 5xx answers, fails fast, half-opens with one probe and closes", async (t) => {
  let status = 500;
  const server = await startServer(t, () => [status]);
  const breaker = circuitBreaker({ failureRatio: 1, minimumCalls: 3, openSeconds: 0.2 });
  const client = clientWith(t, server.url, breaker);
  for (let i = 0; i < 3; i++) assert.equal((await client.get("/")).statusCode, 500);
  await rejectsWith(
    client.get("/"),
    CircuitOpenException,
    /^The circuit breaker of .* is open: GET/,
  );
  assert.equal(server.arrivals.length, 3);
  await sleep(220);
  status = 404;
  const [probe, other] = await Promise.allSettled([client.get("/"), client.get("/")]);
  assert.equal(probe.value?.statusCode, 404, "a 4xx is a success");
  assert.ok(other.reason instanceof CircuitOpenException, String(other.reason));
  assert.equal(server.arrivals.length, 4);
  assert.deepEqual(breaker.state()[server.url], { state: "closed", calls: 0, failures: 0 });
});
