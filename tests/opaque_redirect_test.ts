// A browser's fetch gives an opaque response (status 0, no headers) for a
// redirect with `redirect: "manual"`. Deno's fetch never does, so a custom
// fetch turns the fixture's real 302 into what a browser returns for it.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";

/** What a browser's fetch resolves to for a redirect it was told not to follow. */
function opaqueRedirect(): Response {
  const response = new Response(null);
  Object.defineProperty(response, "type", { value: "opaqueredirect" });
  Object.defineProperty(response, "status", { value: 0 });
  return response;
}

Deno.test("an opaque redirect fails the call, naming the runtime, and is not retried", async () => {
  await using server = startFixtureServer();
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
  await using client = new HttpClient(config);
  await assert.rejects(client.get("/redirect/302?to=/echo"), (error: unknown) => {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${error}`);
    assert.match(error.message, /^Redirect not followed: Deno hides a redirect's status/);
    return true;
  });
  assert.equal(calls, 1);
  assert.equal((await client.get("/echo")).statusCode, 200);
});
