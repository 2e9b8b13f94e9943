// The fault matrix: every way a server or the network can fail a
// call, each ending with the right exception or response, the right number
// of attempts (idempotent methods retried twice by default, POST never), and
// nothing left open: the sanitizers check the client side, and the raw
// listeners report whether the client hung up its connections.

import assert from "node:assert/strict";
import {
  ConnectionException,
  DecodingException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  type RetryOptions,
  TimeoutException,
} from "../mod.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { recordedWaits, rejectsWith, singleAttemptClient } from "./helpers.ts";
import type { RawFault } from "./raw_server.ts";

/**
 * A client with the default retry policy except for waits of about a
 * millisecond, that notes the attempt number of every attempt and every
 * exception its error hooks see.
 */
function faultClient(baseUrl: string, timeout = 5, retry: RetryOptions = { backoff: 0.001 }) {
  const attempts: string[] = [];
  const errors: unknown[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(baseUrl)
    .withTimeout(timeout)
    .withRetry(retry)
    .withRequestHook({
      beforeRequest(request, context) {
        attempts.push(`${request.method}#${context.attempt}`);
        return request;
      },
    })
    .withErrorHook({ onError: (error) => void errors.push(error) })
    .build();
  return { client: new HttpClient(config), attempts, errors };
}

/** Three attempts of GET (the first and two retries), then one of POST. */
const GET_RETRIED_POST_NOT = ["GET#0", "GET#1", "GET#2", "POST#0"];

/** A port nothing listens on: bound, noted, released. */
function refusedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  return listener.addr.port;
}

/**
 * Sends GET then POST to a raw listener with `fault`; both must fail with
 * `type`, each attempt's exception must reach the error hooks, the listener
 * must have seen three GETs and one POST, and every connection must be closed.
 */
async function assertRawFault(
  server: FixtureServer,
  fault: RawFault,
  type: typeof ConnectionException | typeof TimeoutException,
  timeout?: number,
): Promise<void> {
  const { client, attempts, errors } = faultClient(await server.faultUrl(fault), timeout);
  await using _ = client;
  const get = await rejectsWith(client.get(`/${fault}`), type, new RegExp(`GET .*/${fault}`));
  const post = await rejectsWith(
    client.post(`/${fault}`, { jsonData: { id: 7 } }),
    type,
    new RegExp(`POST .*/${fault}`),
  );
  assert.deepEqual(attempts, GET_RETRIED_POST_NOT);
  assert.deepEqual(server.requests.map((r) => `${r.method} ${r.path}`), [
    ...Array(3).fill(`GET /${fault}`),
    `POST /${fault}`,
  ]);
  assert.equal(new TextDecoder().decode(server.last().body), '{"id": 7}');
  assert.equal(errors.length, 4, "the error hooks saw every attempt's exception");
  assert.equal(errors[2], get);
  assert.equal(errors[3], post);
  assert.ok(await server.rawConnectionsClosed(), "every connection was closed");
}

Deno.test("HttpClient.get() retries a refused connection twice, POST not at all", async () => {
  const port = refusedPort();
  const { client, attempts, errors } = faultClient(`http://127.0.0.1:${port}`);
  await using _ = client;
  await rejectsWith(
    client.get("/refused"),
    ConnectionException,
    new RegExp(
      `^Connection failed: connection refused \\(.+\\): GET http://127\\.0\\.0\\.1:${port}/refused$`,
    ),
  );
  await rejectsWith(client.post("/refused", { data: { a: 1 } }), ConnectionException, /POST/);
  assert.deepEqual(attempts, GET_RETRIED_POST_NOT);
  assert.equal(errors.length, 4);
});

Deno.test("HttpClient.get() retries a connection reset before the response twice, POST not at all", async () => {
  await using server = startFixtureServer();
  await assertRawFault(server, "reset", ConnectionException);
});

Deno.test("HttpClient.get() retries a connection reset in the middle of the body twice, POST not at all", async () => {
  await using server = startFixtureServer();
  await assertRawFault(server, "reset-mid-body", ConnectionException);
});

Deno.test("HttpClient.get() retries a chunked body cut before its last chunk twice, POST not at all", async () => {
  await using server = startFixtureServer();
  await assertRawFault(server, "truncated-chunked", ConnectionException);
});

Deno.test("HttpClient.get() retries an invalid status line twice, POST not at all", async () => {
  await using server = startFixtureServer();
  await assertRawFault(server, "bad-status-line", ConnectionException);
});

Deno.test("HttpClient.get() times out on a server that never answers, retries twice and hangs up", async () => {
  await using server = startFixtureServer();
  await assertRawFault(server, "silent", TimeoutException, 0.3);
});

Deno.test("HttpClient.get() times out on a body that trickles in, retries twice and hangs up", async () => {
  await using server = startFixtureServer();
  await assertRawFault(server, "trickle", TimeoutException, 0.3);
});

Deno.test("HttpClient's timeout cuts a trickling body long before it would end", async () => {
  await using server = startFixtureServer();
  const { client } = faultClient(await server.faultUrl("trickle"), 0.3, { maxRetries: 0 });
  await using _ = client;
  const start = performance.now();
  await rejectsWith(client.get("/slow-body"), TimeoutException, /after 0\.3 s: GET .*\/slow-body$/);
  const elapsed = performance.now() - start;
  // The 1,000 bytes at one per 50 ms would take 50 s; only the headers were on time.
  assert.ok(elapsed < 10_000, `gave up after ${elapsed} ms`);
  assert.ok(await server.rawConnectionsClosed(), "the client hung up");
});

Deno.test("HttpClient.get() waits Retry-After between the retries of a 503, then returns it; POST gets it at once", async () => {
  await using server = startFixtureServer();
  server.route(
    "/busy",
    () => new Response("busy", { status: 503, headers: { "retry-after": "1" } }),
  );
  const { waits, sleep } = recordedWaits();
  // Backoff waits would be at most 1 and 2 ms: the 1,000 ms can only be Retry-After's.
  const { client, attempts, errors } = faultClient(server.url, 5, {
    backoff: 0.001,
    random: () => 1,
    sleep,
  });
  await using _ = client;
  const response = await client.get("/busy");
  assert.equal(response.statusCode, 503);
  assert.equal(response.text, "busy");
  assert.deepEqual(waits, [1000, 1000]);
  assert.equal((await client.post("/busy", { jsonData: {} })).statusCode, 503);
  assert.deepEqual(waits, [1000, 1000], "POST did not wait");
  assert.deepEqual(attempts, GET_RETRIED_POST_NOT);
  assert.equal(server.requests.length, 4);
  assert.deepEqual(errors, [], "a 503 is a response, not an exception");
});

Deno.test("HttpClient fails a redirect loop after 20 hops with HttpClientException, without retrying", async () => {
  await using server = startFixtureServer();
  const { client, attempts, errors } = faultClient(server.url);
  await using _ = client;
  for (const call of [() => client.get("/redirect-loop"), () => client.post("/redirect-loop")]) {
    await rejectsWith(call(), HttpClientException, /^Too many redirects \(more than 20\): /);
  }
  assert.deepEqual(attempts, ["GET#0", "POST#0"]);
  assert.equal(server.requests.length, 2 * 21, "each call: the first request and 20 hops");
  assert.equal(errors.length, 2);
});

Deno.test("HttpClient.get() retries a redirect to a refused port twice, POST not at all", async () => {
  await using server = startFixtureServer();
  const to = `http://127.0.0.1:${refusedPort()}/gone`;
  const { client, attempts, errors } = faultClient(server.url);
  await using _ = client;
  await rejectsWith(
    client.get("/redirect/302", { params: { to } }),
    ConnectionException,
    /^Connection failed: connection refused \(.+\): GET http:\/\/127\.0\.0\.1:\d+\/redirect\/302$/,
  );
  await rejectsWith(
    client.post("/redirect/307", { params: { to }, jsonData: { a: 1 } }),
    ConnectionException,
    /POST .*\/redirect\/307/,
  );
  assert.deepEqual(attempts, GET_RETRIED_POST_NOT);
  assert.deepEqual(server.requests.map((r) => `${r.method} ${r.path}`), [
    "GET /redirect/302",
    "GET /redirect/302",
    "GET /redirect/302",
    "POST /redirect/307",
  ]);
  assert.equal(errors.length, 4);
});

/**
 * Sends one GET to a raw listener with `fault`: it must fail with exactly
 * `type` and a message matching `message` after one attempt, the listener
 * having seen one request, and every connection closed.
 */
async function assertNotRetried(
  fault: RawFault,
  type: typeof HttpClientException,
  message: RegExp,
): Promise<Error> {
  await using server = startFixtureServer();
  const { client, attempts, errors } = faultClient(await server.faultUrl(fault));
  await using _ = client;
  const error = await rejectsWith(client.get(`/${fault}`), type, message);
  assert.deepEqual(attempts, ["GET#0"]);
  assert.equal(server.requests.length, 1, "the server saw one request");
  assert.deepEqual(errors, [error]);
  assert.ok(await server.rawConnectionsClosed(), "every connection was closed");
  return error;
}

for (const coding of ["gzip", "br", "deflate"]) {
  Deno.test(`HttpClient.get() fails a corrupt ${coding} body with DecodingException, without retrying`, async () => {
    const fault = `corrupt-${coding}` as RawFault;
    const error = await assertNotRetried(
      fault,
      DecodingException,
      new RegExp(
        `^Response body could not be decoded \\(${coding}\\): GET http://127\\.0\\.0\\.1:\\d+/${fault}$`,
      ),
    );
    assert.ok(error.cause instanceof Error, "cause is the runtime's error");
  });
}

Deno.test("HttpClient.get() retries a gzip body cut short by the connection twice, as a ConnectionException", async () => {
  await using server = startFixtureServer();
  await assertRawFault(server, "truncated-gzip", ConnectionException);
});

Deno.test("HttpClient.get() names too many response headers and does not retry", async () => {
  await assertNotRetried(
    "many-headers",
    HttpClientException,
    /^Malformed response \(too many response headers\): GET http:\/\/127\.0\.0\.1:\d+\/many-headers$/,
  );
});

Deno.test("HttpClient lets Deno's NotCapable through unchanged, after one attempt and no retry wait", async () => {
  const { waits, sleep } = recordedWaits();
  // 127.0.0.2 is outside --allow-net=127.0.0.1, so the permission check fails
  // before any connection; port 8, as fetch refuses port 9 outright.
  const { client, attempts, errors } = faultClient("http://127.0.0.2:8", 5, { sleep });
  await using _ = client;
  const error = await rejectsWith(client.get("/denied"), Deno.errors.NotCapable, /127\.0\.0\.2:8/);
  assert.deepEqual(attempts, ["GET#0"]);
  assert.deepEqual(waits, []);
  assert.deepEqual(errors, [error], "the error hooks saw the same object");
});

Deno.test("HttpClient raises ConnectionException when the connection is refused", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await using client = singleAttemptClient(`http://127.0.0.1:${port}`);
  await rejectsWith(
    client.get("/x"),
    ConnectionException,
    new RegExp(
      `^Connection failed: connection refused \\(.+\\): GET http://127\\.0\\.0\\.1:${port}/x$`,
    ),
  );
});

Deno.test("HttpClient raises ConnectionException when the server drops the connection", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.dropUrl);
  await rejectsWith(client.get("/dropped"), ConnectionException, /GET .*\/dropped/);
  assert.equal(server.last().path, "/dropped");
});

Deno.test("HttpClient raises ConnectionException on a truncated body", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await rejectsWith(client.get("/truncate"), ConnectionException, /GET .*\/truncate/);
});
