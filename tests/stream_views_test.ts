// A streamed response seen whole without its body: a spread, Object.entries,
// JSON and the console never throw and never read the body, which stays
// readable afterwards; `content` alone throws until read().

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, ResponseNotReadException } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";

Deno.test("A streamed response spreads, lists its entries, logs and serializes without reading its body", async () => {
  await using server = startFixtureServer();
  server.route("/text", () => new Response("the body"));
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5).build(),
  );
  await using response = await client.stream("GET", "/text");
  const copy = { ...response };
  assert.equal(copy.statusCode, 200);
  assert.equal("content" in copy, false);
  assert.equal(Object.entries(response).some(([name]) => name === "content"), false);
  assert.ok(Object.keys(response).includes("statusCode"));
  assert.match(Deno.inspect(response), /\(streamed\)/);
  assert.match(JSON.stringify(response), /"content":"\(streamed\)"/);
  // @ts-expect-error: a streamed response's type has no content; at run time it throws
  assert.throws(() => response.content, ResponseNotReadException);
  // Nothing above read the body: it is still all there.
  assert.equal((await response.read()).text, "the body");
});
