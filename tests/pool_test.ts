import assert from "node:assert/strict";
import { type HttpClient, HttpClientException } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, singleAttemptClient } from "./helpers.ts";

Deno.test("HttpClient creates one pool lazily and reuses its connections", async () => {
  await using server = startFixtureServer();
  const original = Deno.createHttpClient;
  let created = 0;
  Deno.createHttpClient = (options) => {
    created++;
    return original(options);
  };
  try {
    await using client = singleAttemptClient(server.url);
    assert.equal(created, 0);
    for (let i = 0; i < 3; i++) await client.get(`/n/${i}`);
    assert.equal(created, 1);
    const ports = new Set(server.requests.map((r) => r.remotePort));
    assert.equal(ports.size, 1, "one kept-alive connection served all three requests");
  } finally {
    Deno.createHttpClient = original;
  }
});

Deno.test("HttpClient.close() releases the pool and later calls fail clearly", async () => {
  await using server = startFixtureServer();
  const client = singleAttemptClient(server.url);
  await client.get("/before");
  client.close();
  client.close();
  assert.ok(client.closed);
  await rejectsWith(client.get("/after"), HttpClientException, /^Client is closed: GET \/after$/);
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpClient.close() fails requests in flight with HttpClientException", async () => {
  await using server = startFixtureServer();
  const client = singleAttemptClient(server.url);
  const pending = client.get("/delay/3000");
  await new Promise((resolve) => setTimeout(resolve, 50));
  client.close();
  await rejectsWith(pending, HttpClientException, /Client was closed during the request: GET/);
});

Deno.test("HttpClient closes at the end of a using block, and await using lets requests finish", async () => {
  await using server = startFixtureServer();
  let kept: HttpClient;
  {
    using client = singleAttemptClient(server.url);
    kept = client;
    await client.get("/inside");
  }
  assert.ok(kept.closed);
  let pending: Promise<unknown>;
  {
    await using client = singleAttemptClient(server.url);
    kept = client;
    pending = client.get("/delay/100");
  }
  assert.ok(kept.closed);
  assert.equal(((await pending) as { statusCode: number }).statusCode, 200);
});

Deno.test("HttpClient aborts a call on the caller's signal", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const controller = new AbortController();
  const pending = client.get("/delay/3000", { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("user gave up")), 30);
  const error = await rejectsWith(pending, HttpClientException, /Request was aborted: GET/);
  assert.equal((error.cause as Error).message, "user gave up");
});
