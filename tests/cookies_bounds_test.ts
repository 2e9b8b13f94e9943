// A cookie jar is the caller's code (a store in a database, say): one that
// never answers must not hold a call past its timeout, its total timeout,
// its signal or the client's close, while asking it for cookies or while
// handing it the Set-Cookie lines of a response.

import assert from "node:assert/strict";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpResponse,
  TimeoutException,
} from "../mod.ts";
import type { CookieJarLike } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import type { FixtureServer } from "./fixture_server.ts";
import { rejectsWith } from "./helpers.ts";

/** A jar whose reads, or whose writes, never settle. */
function stuckJar(stuck: "getCookieString" | "setCookie"): CookieJarLike {
  const never = () => new Promise<never>(() => {});
  return {
    getCookieString: stuck === "getCookieString" ? never : () => Promise.resolve(""),
    setCookie: stuck === "setCookie" ? never : () => Promise.resolve(),
  };
}

function stuckClient(server: FixtureServer, stuck: "getCookieString" | "setCookie") {
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withCookies(stuckJar(stuck))
    .withRetry({ maxRetries: 0 })
    .withTimeout(0.3)
    .build();
  return new HttpClient(config);
}

/**
 * `call`'s outcome, or "still waiting" after a few seconds (the bound the
 * call must keep). The clients are closed with `using`: `await using` would
 * wait for the call.
 */
async function settledWithin<T>(call: Promise<T>): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<"still waiting">((resolve) => {
    timer = setTimeout(() => resolve("still waiting"), 5_000);
  });
  try {
    return await Promise.race([call, guard]);
  } finally {
    clearTimeout(timer);
  }
}

function setsCookie(): Response {
  return new Response("set", { headers: { "set-cookie": "sid=1" } });
}

for (const stuck of ["getCookieString", "setCookie"] as const) {
  Deno.test(`A jar whose ${stuck}() never settles fails the call at its timeout`, async () => {
    await using server = startFixtureServer();
    server.route("/login", setsCookie);
    using client = stuckClient(server, stuck);
    const outcome = await settledWithin(
      rejectsWith(client.get("/login"), TimeoutException, /^Request timed out after 0\.3 s: GET/),
    );
    assert.notEqual(outcome, "still waiting");
  });

  Deno.test(`A jar whose ${stuck}() never settles lets the caller's signal and close() end the call`, async () => {
    await using server = startFixtureServer();
    server.route("/login", setsCookie);
    using client = stuckClient(server, stuck);
    const controller = new AbortController();
    const aborted = client.get("/login", { timeout: null, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const outcome = await settledWithin(
      rejectsWith(aborted, HttpClientException, /^Request was aborted: GET/),
    );
    assert.notEqual(outcome, "still waiting");
    const closed = client.get("/login", { timeout: null });
    setTimeout(() => client.close(), 50);
    const ended = await settledWithin(
      rejectsWith(closed, HttpClientException, /^Client was closed during the request: GET/),
    );
    assert.notEqual(ended, "still waiting");
  });
}

Deno.test("A jar whose setCookie() never settles fails a streamed call at its timeout: the head's cookies are stored before the timeout ends", async () => {
  await using server = startFixtureServer();
  server.route("/login", setsCookie);
  using client = stuckClient(server, "setCookie");
  const outcome = await settledWithin(
    client.stream("GET", "/login").then(async (response) => (await response.cancel(), response)),
  ).catch((error: unknown) => error);
  assert.ok(outcome instanceof TimeoutException, String(outcome));
});

Deno.test("A middleware's wait after a streamed call's head is bounded by the call's timeout", async () => {
  await using server = startFixtureServer();
  using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(server.url)
      .withRetry({ maxRetries: 0 })
      .withTimeout(0.3)
      .withMiddleware(async (request, next) => {
        const response = await next(request);
        await response.cancel();
        return new Promise<never>(() => {});
      })
      .build(),
  );
  const outcome = await settledWithin(client.stream("GET", "/echo")).catch((error: unknown) =>
    error
  );
  assert.ok(outcome instanceof TimeoutException, String(outcome));
});

Deno.test("The jar stores a head's cookies though its body then fails", async () => {
  await using server = startFixtureServer();
  server.route(
    "/big",
    () => new Response("x".repeat(5000), { headers: { "set-cookie": "sid=1; Path=/" } }),
  );
  using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(server.url)
      .withCookies()
      .withRetry({ maxRetries: 0 })
      .withMaxResponseBytes(100)
      .build(),
  );
  server.route("/small", () => new Response("ok"));
  await rejectsWith(client.get("/big"), HttpClientException, /exceeds maxResponseBytes/);
  await client.get("/small");
  assert.equal(server.last().headers["cookie"], "sid=1");
});

Deno.test("Every Set-Cookie line reaches the jar, whatever a middleware makes of the response", async () => {
  await using server = startFixtureServer();
  server.route("/login", () => {
    const headers = new Headers();
    headers.append("set-cookie", "a=1; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT");
    headers.append("set-cookie", "b=2; Path=/");
    return new Response("set", { headers });
  });
  using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(server.url)
      .withCookies()
      .withRetry({ maxRetries: 0 })
      .withMiddleware(async (request, next) => {
        const response = await next(request);
        return new HttpResponse({
          statusCode: response.statusCode,
          headers: { ...response.headers },
          content: response.content,
          elapsedMs: response.elapsedMs,
          url: response.url,
          request: response.request,
        });
      })
      .build(),
  );
  await client.get("/login");
  await client.get("/echo");
  assert.equal(server.last().headers["cookie"], "a=1; b=2");
});

Deno.test("A jar's cookie that is no valid header value fails the call as the jar's failure", async () => {
  await using server = startFixtureServer();
  using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(server.url)
      .withCookies({
        getCookieString: () => Promise.resolve("a=1\r\nX-Injected: yes"),
        setCookie: () => Promise.resolve(),
      })
      .withRetry({ maxRetries: 0 })
      .build(),
  );
  await rejectsWith(client.get("/echo"), HttpClientException, /^Cookie jar failed: GET/);
  assert.equal(server.requests.length, 0);
});
