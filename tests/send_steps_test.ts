import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
} from "../mod.ts";
import { forEachInFlight } from "../src/send/deadline.ts";

/** How many steps of calls are in flight in this realm. */
function stepsInFlight(): number {
  let count = 0;
  forEachInFlight(() => count++);
  return count;
}

function serve() {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === "/redirect") return Response.redirect(new URL("/ok", request.url), 302);
    if (pathname === "/loop") return Response.redirect(new URL("/loop", request.url), 302);
    return Response.json({ ok: true });
  });
}

Deno.test("Each call's step leaves the in-flight list when the call ends, with or without a redirect", async () => {
  await using server = serve();
  const base = `http://127.0.0.1:${server.addr.port}`;
  const config = (builder: HttpClientConfigBuilder) =>
    builder.withBaseUrl(base).withRetry({ maxRetries: 0 }).withMaxRedirects(3).build();
  await using client = new HttpClient(config(new HttpClientConfigBuilder()));
  await using keyed = new HttpClient(
    config(new HttpClientConfigBuilder().withAuthHook(new ApiKeyAuthHook("k3y"))),
  );
  const before = stepsInFlight();
  for (const each of [client, keyed]) {
    assert.deepEqual((await each.get("/ok")).json(), { ok: true });
    assert.equal(stepsInFlight(), before);
    assert.deepEqual((await each.get("/redirect")).json(), { ok: true });
    assert.equal(stepsInFlight(), before);
    await assert.rejects(each.get("/loop"), HttpClientException);
    assert.equal(stepsInFlight(), before);
    const streamed = await each.stream("GET", "/ok");
    assert.deepEqual((await streamed.read()).json(), { ok: true });
    assert.equal(stepsInFlight(), before);
  }
});
