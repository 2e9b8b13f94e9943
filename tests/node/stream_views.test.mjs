// A streamed response on the npm build seen whole without its body: a
// spread, Object.entries, JSON and util.inspect (console.log's path) never
// throw and never read the body, which stays readable afterwards.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";
import { ResponseNotReadException } from "@fetchline/fetchline";
import { fixture } from "./server.mjs";
import { singleAttemptClient } from "./helpers.mjs";

test("a streamed response spreads, lists its entries, logs and serializes without reading its body", async (t) => {
  const server = await fixture(t);
  server.route("/text", (_req, res) => res.end("the body"));
  const http = singleAttemptClient(t, server);
  const response = await http.stream("GET", "/text");
  t.after(() => response.cancel());
  const copy = { ...response };
  assert.equal(copy.statusCode, 200);
  assert.equal("content" in copy, false);
  assert.equal(Object.entries(response).some(([name]) => name === "content"), false);
  assert.ok(Object.keys(response).includes("statusCode"));
  assert.match(inspect(response), /\(streamed\)/);
  assert.match(JSON.stringify(response), /"content":"\(streamed\)"/);
  assert.throws(() => response.content, ResponseNotReadException);
  // Nothing above read the body: it is still all there.
  assert.equal((await response.read()).text, "the body");
});
