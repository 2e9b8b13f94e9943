// The send path's steps on Node: one timeout for an exchange and all its
// redirects, a fresh one for a resend after a 401.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BaseAuthHook,
  HttpClient,
  HttpClientConfigBuilder,
  TimeoutException,
  TokenData,
} from "@fetchline/fetchline";
import { fixture } from "./server.mjs";

/** How long the server takes before each answer, in milliseconds. */
const HOP_MS = 400;
/** Longer than one answer, shorter than two, with 300 ms to spare either way for a loaded machine. */
const TIMEOUT_S = 0.7;

/** Answers with `status` and `headers` after {@linkcode HOP_MS}. */
function slowly(status, headers = {}) {
  return (_req, res) =>
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(status, headers);
      res.end(status === 200 ? "landed" : "");
    }, HOP_MS);
}

/** Sends `X-Key: k<version>`; a refresh moves to the next version. */
class VersionedKeyHook extends BaseAuthHook {
  version = 1;
  beforeRequest(request) {
    return request.withHeaders({ "X-Key": `k${this.version}` });
  }
  getToken() {
    return Promise.resolve(new TokenData({ accessToken: `k${this.version}` }));
  }
  refreshAuth() {
    this.version++;
    return Promise.resolve(true);
  }
}

function client(t, server, authHook) {
  let builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(TIMEOUT_S)
    .withRetry({ maxRetries: 0 });
  if (authHook !== undefined) builder = builder.withAuthHook(authHook);
  const created = new HttpClient(builder.build());
  t.after(() => created.close());
  return created;
}

test("the timeout covers every hop of a redirect, not each hop anew", async (t) => {
  const server = await fixture(t);
  server.route("/hops/1", slowly(303, { location: "/hops/0" }));
  server.route("/hops/0", slowly(200));
  await assert.rejects(client(t, server).get("/hops/1"), (error) => {
    assert.equal(error.constructor, TimeoutException);
    assert.match(error.message, /after 0\.7 s: GET .*\/hops\/1/);
    return true;
  });
  assert.deepEqual(server.requests.map((r) => r.path), ["/hops/1", "/hops/0"]);
});

test("a resend after a 401 gets a timeout of its own", async (t) => {
  const server = await fixture(t);
  server.route("/key", (req, res) => {
    slowly(req.headers["x-key"] === "k2" ? 200 : 401)(req, res);
  });
  const response = await client(t, server, new VersionedKeyHook()).get("/key");
  assert.equal(response.statusCode, 200);
  assert.deepEqual(server.requests.map((r) => r.headers["x-key"]), ["k1", "k2"]);
});
