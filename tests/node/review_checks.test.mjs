// Checks a copy or a cache could skip, on the npm build under Node: the
// origin credentials go to for a URL with an empty authority, and what
// util.inspect shows of a body that is not JSON.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";
import {
  ApiKeyAuthHook,
  HttpClient,
  HttpClientConfigBuilder,
  ResponseParseException,
} from "@fetchline/fetchline";
import { fixture } from "./server.mjs";

test("An absolute URL with an empty authority gets credentials by its own host, not by a URL seen before", async (t) => {
  const first = await fixture(t);
  const second = await fixture(t);
  const client = new HttpClient(
    new HttpClientConfigBuilder()
      .withAuthHook(new ApiKeyAuthHook("k-1"))
      .withAuthOrigins([first.url])
      .withTimeout(5)
      .build(),
  );
  t.after(() => client.close());
  // "http:///127.0.0.1:<port>/" is the URL "http://127.0.0.1:<port>/" once parsed.
  const emptyAuthority = (server) => server.url.replace("//", "///");
  await client.get(`${emptyAuthority(first)}/named`);
  assert.equal(first.requests.at(-1).headers["x-api-key"], "k-1", "named by withAuthOrigins");
  await client.get(`${emptyAuthority(second)}/other`);
  assert.equal(second.requests.at(-1).path, "/other");
  assert.equal(second.requests.at(-1).headers["x-api-key"], undefined, "not another origin's");
});

test("json() of a body that is not JSON: no view of the exception quotes the body", async (t) => {
  const server = await fixture(t);
  const secret = "s3cr3tT0k3n";
  server.route("/text", (_req, res) => res.end(`token=${secret}`));
  const client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5).build(),
  );
  t.after(() => client.close());
  const response = await client.get("/text");
  assert.throws(() => response.json(), (error) => {
    assert.ok(error instanceof ResponseParseException);
    assert.ok(error.cause instanceof SyntaxError, "the parser's error stays the cause");
    assert.ok(error.cause.message.includes(secret), "Node's parser quotes the body");
    for (const shown of [String(error), JSON.stringify(error), inspect(error, { depth: 8 })]) {
      assert.ok(!shown.includes(secret), shown);
    }
    return true;
  });
});
