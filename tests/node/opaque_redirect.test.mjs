// A browser's fetch gives an opaque response (status 0, no headers) for a
// redirect with `redirect: "manual"`. Node's fetch never does, so a custom
// fetch turns the fixture's real 302 into what a browser returns for it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { fixture } from "./server.mjs";

/** What a browser's fetch resolves to for a redirect it was told not to follow. */
function opaqueRedirect() {
  const response = new Response(null);
  Object.defineProperty(response, "type", { value: "opaqueredirect" });
  Object.defineProperty(response, "status", { value: 0 });
  return response;
}

test("an opaque redirect fails the call, naming the runtime, and is not retried", async (t) => {
  const server = await fixture(t);
  server.route("/moved", (_req, res) => {
    res.writeHead(302, { location: "/echo" });
    res.end();
  });
  let calls = 0;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withFetch(async (input, init) => {
      calls++;
      const real = await fetch(input, init);
      if (real.status < 300 || real.status >= 400) return real;
      await real.body?.cancel();
      return opaqueRedirect();
    })
    .build();
  const client = new HttpClient(config);
  t.after(() => client.close());
  await assert.rejects(client.get("/moved"), (error) => {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${error}`);
    assert.match(error.message, /^Redirect not followed: Node hides a redirect's status/);
    return true;
  });
  assert.equal(calls, 1);
  assert.equal((await client.get("/echo")).statusCode, 200);
});
