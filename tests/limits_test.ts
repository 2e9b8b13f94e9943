import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith } from "./helpers.ts";

function limitedClient(maxBytes: number): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder()
      .withMaxResponseBytes(maxBytes)
      .withRetry({ maxRetries: 0 })
      .withTimeout(10)
      .build(),
  );
}

Deno.test("withMaxResponseBytes() fails a longer body and lets one of exactly the limit through", async () => {
  await using server = startFixtureServer();
  server.route("/sized", () => new Response("x".repeat(1000)));
  await using client = limitedClient(1000);
  assert.equal((await client.get(`${server.url}/sized`)).content.byteLength, 1000);
  await using tight = limitedClient(999);
  const error = await rejectsWith(
    tight.get(`${server.url}/sized`),
    HttpClientException,
    /^Response body exceeds maxResponseBytes \(999\): GET http:\/\/127\.0\.0\.1:\d+\/sized \(read it with stream\(\), or raise withMaxResponseBytes\)$/,
  );
  assert.equal(error.constructor, HttpClientException);
});

Deno.test("withMaxResponseBytes() stops reading an endless body at the limit, long before the timeout", async () => {
  await using server = startFixtureServer();
  let sent = 0;
  const chunk = new Uint8Array(16 * 1024);
  server.route("/endless", () =>
    new Response(
      new ReadableStream({
        pull(controller) {
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    ));
  await using client = limitedClient(64 * 1024);
  await rejectsWith(
    client.get(`${server.url}/endless`),
    HttpClientException,
    /exceeds maxResponseBytes \(65536\)/,
  );
  // The server may run ahead of the client by what the socket buffers hold, no more.
  assert.ok(sent < 16 * 1024 * 1024, `server sent ${sent} bytes`);
});

Deno.test("withMaxResponseBytes() refuses a limit that is not a whole number, takes Infinity, and defaults to 256 MiB", () => {
  const builder = new HttpClientConfigBuilder();
  for (const bad of [-1, 1.5, NaN]) {
    assert.throws(() => builder.withMaxResponseBytes(bad), RangeError);
  }
  assert.throws(() => builder.withMaxResponseBytes(-1), /Invalid maxResponseBytes/);
  assert.equal(builder.withMaxResponseBytes(0).build().maxResponseBytes, 0);
  assert.equal(builder.withMaxResponseBytes(Infinity).build().maxResponseBytes, Infinity);
  assert.equal(new HttpClientConfigBuilder().build().maxResponseBytes, 256 * 1024 * 1024);
});
