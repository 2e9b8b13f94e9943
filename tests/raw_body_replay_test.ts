// A raw body that can be sent again (a string, bytes, an ArrayBuffer, a Blob)
// is resent whole on a retry, a 401 refresh and a 307 or 308 redirect; a
// stream, sent once, is never retried, and the redirect or 401 that would
// need it again is the response.

import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  type RequestBody,
  TokenManager,
} from "../mod.ts";
import { TokenData } from "../config.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { countingClient, rejectsWith, singleAttemptClient } from "./helpers.ts";

const TEXT = "line 1\nline 2 — ünïcode";
const BYTES = new TextEncoder().encode(TEXT);

function streamOf(text: string): ReadableStream<Uint8Array> {
  const chunks = [BYTES.slice(0, 5), new TextEncoder().encode(text).slice(5)];
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** Every replayable kind of body, each holding {@linkcode TEXT}. */
function replayable(): RequestBody[] {
  return [TEXT, BYTES.slice(), BYTES.slice().buffer, new Blob([BYTES])];
}

/** The bodies the server received at `path`, as text. */
function bodiesAt(server: FixtureServer, path: string): string[] {
  return server.requests.filter((r) => r.path === path).map((r) =>
    new TextDecoder().decode(r.body)
  );
}

for (const status of [307, 308]) {
  Deno.test(`HttpClient resends a replayable raw body on a ${status} and returns the ${status} for a stream`, async () => {
    await using server = startFixtureServer();
    await using client = singleAttemptClient(server.url);
    for (const body of replayable()) {
      const response = await client.put(`/redirect/${status}`, { params: { to: "/target" }, body });
      assert.equal(response.statusCode, 200);
      assert.equal(server.last().path, "/target");
      assert.equal(server.last().method, "PUT");
      assert.deepEqual(server.last().body, BYTES);
    }
    const before = server.requests.length;
    const response = await client.put(`/redirect/${status}`, {
      params: { to: "/target" },
      body: streamOf(TEXT),
    });
    assert.equal(response.statusCode, status);
    assert.equal(response.header("location"), "/target");
    assert.equal(server.requests.length, before + 1);
    assert.deepEqual(server.last().body, BYTES);
  });
}

Deno.test("HttpClient follows a 303 with a stream body as a GET without the body", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const response = await client.post("/redirect/303", {
    params: { to: "/target" },
    body: streamOf(TEXT),
  });
  assert.equal(response.statusCode, 200);
  const [first, second] = server.requests;
  assert.deepEqual([first?.method, first?.body], ["POST", BYTES]);
  assert.deepEqual([second?.method, second?.path, second?.body], [
    "GET",
    "/target",
    new Uint8Array(),
  ]);
  assert.equal(second?.headers["content-type"], undefined);
});

Deno.test("HttpClient retries a PUT with a replayable body after a 503 and resends it whole; never one with a stream", async () => {
  await using server = startFixtureServer();
  let calls = 0;
  server.route(
    "/flaky",
    () =>
      ++calls % 2 === 1
        ? new Response("busy", { status: 503, headers: { "retry-after": "0" } })
        : new Response("ok"),
  );
  const { client, attempts } = countingClient(server);
  await using _ = client;
  for (const body of replayable()) {
    attempts.length = 0;
    const response = await client.put("/flaky", { body });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(attempts, [0, 1]);
  }
  assert.deepEqual(bodiesAt(server, "/flaky"), Array(8).fill(TEXT));
  attempts.length = 0;
  calls = 0;
  const response = await client.put("/flaky", { body: streamOf(TEXT) });
  assert.equal(response.statusCode, 503);
  assert.deepEqual(attempts, [0]);
  assert.equal(calls, 1);
});

Deno.test("HttpClient retries a PUT with a replayable body after a connection failure; never one with a stream", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder().withRetry({ backoff: 0.001 });
  const attempts: number[] = [];
  await using client = new HttpClient(
    config.withRequestHook({ beforeRequest: (r, c) => (attempts.push(c.attempt), r) }).build(),
  );
  await rejectsWith(client.put(server.dropUrl, { body: TEXT }), ConnectionException, /PUT/);
  assert.deepEqual(attempts, [0, 1, 2]);
  attempts.length = 0;
  await rejectsWith(
    client.put(server.dropUrl, { body: streamOf(TEXT) }),
    ConnectionException,
    /PUT/,
  );
  assert.deepEqual(attempts, [0]);
});

/**
 * A token manager that issues tok-1, tok-2, … and a route that accepts the
 * tokens still valid; `expire()` makes every token issued so far invalid.
 */
function rotatingTokens(server: FixtureServer) {
  let issued = 0;
  const valid = new Set<string>();
  const manager = new TokenManager([{
    name: "rotating",
    fetch: () => {
      const token = `tok-${++issued}`;
      valid.add(token);
      return Promise.resolve(new TokenData({ accessToken: token }));
    },
  }]);
  server.route(
    "/api/upload",
    (request) =>
      valid.has(request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "")
        ? new Response("stored")
        : new Response("expired", { status: 401 }),
  );
  return { manager, expire: () => valid.clear(), issued: () => issued };
}

Deno.test("TokenAuthHook resends a replayable raw body after a 401 refresh and returns the 401 for a stream", async () => {
  await using server = startFixtureServer();
  const tokens = rotatingTokens(server);
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withRetry({ maxRetries: 0 })
      .withTokenAuth({ tokenManager: tokens.manager }).build(),
  );
  for (const body of replayable()) {
    await tokens.manager.getToken();
    tokens.expire();
    const response = await client.post("/api/upload", { body });
    assert.equal(response.statusCode, 200);
  }
  assert.deepEqual(bodiesAt(server, "/api/upload"), Array(8).fill(TEXT), "sent, refused, resent");
  assert.equal(tokens.issued(), 5);
  await tokens.manager.getToken();
  tokens.expire();
  const before = server.requests.length;
  const response = await client.post("/api/upload", { body: streamOf(TEXT) });
  assert.equal(response.statusCode, 401);
  assert.equal(server.requests.length, before + 1);
  assert.deepEqual(server.last().body, BYTES);
  assert.equal(tokens.issued(), 5, "no refresh for a body that cannot be resent");
  // The refused token was invalidated: the next call fetches a new one and needs no refresh.
  assert.equal((await client.post("/api/upload", { body: TEXT })).statusCode, 200);
  assert.equal(server.requests.length, before + 2);
  assert.equal(server.last().headers["authorization"], "Bearer tok-6");
});
