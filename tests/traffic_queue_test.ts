// Traffic control's concurrency() and dedupe() (API.md "Traffic control")
// against real servers that count what reaches them and how much at once.

import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "../mod.ts";
import type { Middleware } from "../interfaces.ts";
import { concurrency, dedupe, QueueFullException } from "../traffic.ts";
import { rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

/**
 * A server that counts the requests it received (`paths`) and the most in
 * flight at once; while `hold` is set, a request waits for `open()`, which
 * unsets it.
 */
function server(
  answer: (request: Request) => Response | Promise<Response> = () => new Response("ok"),
) {
  let now = 0;
  let gate = Promise.withResolvers<void>();
  const state = {
    most: 0,
    paths: [] as string[],
    headers: [] as Headers[],
    hold: false,
    open() {
      state.hold = false;
      gate.resolve();
      gate = Promise.withResolvers();
    },
  };
  const served = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    state.paths.push(new URL(request.url).pathname);
    state.headers.push(request.headers);
    state.most = Math.max(state.most, ++now);
    try {
      if (state.hold) await gate.promise;
      return await answer(request);
    } finally {
      now--;
    }
  });
  return Object.assign(state, {
    url: `http://127.0.0.1:${served.addr.port}`,
    async [Symbol.asyncDispose]() {
      state.open();
      await served.shutdown();
    },
  });
}

/** A client of `url` with `middleware`, no retries, a 10 s timeout unless `configure` says. */
function clientWith(
  url: string,
  middleware: Middleware[],
  configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder = (b) => b,
): HttpClient {
  const builder = new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(10)
    .withRetry({ maxRetries: 0 }).withMiddleware(...middleware);
  return new HttpClient(configure(builder).build());
}

/** Waits until `ready()` holds (checked every 5 ms, for at most 5 s). */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !ready(); waited += 5) {
    if (waited > 5000) throw new Error(`Not within 5 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

Deno.test("concurrency({ max: 8 }): 1,000 concurrent calls, never more than 8 at the server, all answered", async () => {
  await using target = server(async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return new Response(new URL(request.url).pathname);
  });
  const limit = concurrency({ max: 8 });
  await using client = clientWith(target.url, [limit]);
  const responses = await Promise.all(
    Array.from({ length: 1000 }, (_, index) => client.get(`/${index}`)),
  );
  assert.deepEqual(responses.map((response) => response.text), responses.map((_, i) => `/${i}`));
  assert.equal(target.paths.length, 1000);
  assert.equal(target.most, 8);
  assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
});

Deno.test("concurrency({ perOrigin }): each origin has its own places, and a full origin does not hold back another's call behind it", async () => {
  const slow = () =>
    new Promise<Response>((resolve) => setTimeout(() => resolve(new Response("ok")), 5));
  await using a = server(slow);
  await using b = server(slow);
  const limit = concurrency({ max: 6, perOrigin: 2 });
  await using client = clientWith(a.url, [limit]);
  a.hold = true;
  const held = Array.from({ length: 10 }, () => client.get(`${a.url}/a`));
  await until(() => a.paths.length === 2, "two calls at a");
  assert.deepEqual(limit.state().origins[a.url], { inFlight: 2, queued: 8 });
  // Queued after a's eight, b's call takes one of b's places at once.
  assert.equal((await settles(client.get(`${b.url}/b`))).text, "ok");
  a.open();
  await Promise.all(held);
  const many = Array.from({ length: 40 }, (_, i) => client.get(`${i % 2 ? a.url : b.url}/x`));
  await Promise.all(many);
  assert.equal(a.most, 2);
  assert.equal(b.most, 2);
  assert.equal(a.paths.length, 30);
  assert.equal(b.paths.length, 21);
  assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
});

Deno.test("concurrency({ maxQueue }): a call past a full queue fails at once with QueueFullException, never sent nor retried", async () => {
  await using target = server();
  const limit = concurrency({ max: 1, maxQueue: 1 });
  // Retries on: a full queue is not retried.
  await using client = clientWith(target.url, [limit], (b) => b.withRetry({ maxRetries: 3 }));
  target.hold = true;
  const first = client.get("/first");
  const second = client.get("/second");
  await until(() => target.paths.length === 1, "the first call at the server");
  const full = await rejectsWith(
    settles(client.get("/third?token=s3cret"), 1000),
    QueueFullException,
    /^The concurrency queue is full \(1 waiting\): GET http:\/\/127\.0\.0\.1:\d+\/third\?token=\*\*\*$/,
  );
  assert.ok(full instanceof HttpClientException);
  assert.deepEqual(target.paths, ["/first"]);
  target.open();
  assert.equal((await first).text, "ok");
  assert.equal((await second).text, "ok");
  assert.deepEqual(target.paths, ["/first", "/second"]);
});

Deno.test("concurrency: a queued call ended by its signal, by close() or by its timeout leaves the queue and frees its place", async () => {
  await using target = server();
  const limit = concurrency({ max: 1 });
  await using client = clientWith(target.url, [limit]);
  // A second client sharing the limit, to be closed.
  const other = clientWith(target.url, [limit]);
  target.hold = true;
  const first = client.get("/first");
  await until(() => target.paths.length === 1, "the first call at the server");

  const controller = new AbortController();
  const aborted = client.get("/aborted", { signal: controller.signal });
  const closed = other.get("/closed");
  const timedOut = client.get("/timed-out", { timeout: 0.2 });
  const last = client.get("/last");
  await until(() => limit.state().queued === 4, "four calls queued");

  controller.abort();
  await rejectsWith(aborted, HttpClientException, /^Request was aborted: GET /);
  assert.equal(limit.state().queued, 3);
  other.close();
  await rejectsWith(closed, HttpClientException, /^Client was closed during the request: GET /);
  assert.equal(limit.state().queued, 2);
  await rejectsWith(
    timedOut,
    TimeoutException,
    /^Request timed out after 0\.2 s waiting in the concurrency queue: GET http:\/\/127\.0\.0\.1:\d+\/timed-out$/,
  );
  assert.deepEqual(limit.state().origins[target.url], { inFlight: 1, queued: 1 });

  target.open();
  await Promise.all([first, last]);
  // None of the three ended calls was sent; the last took the freed place.
  assert.deepEqual(target.paths, ["/first", "/last"]);
  assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
});

Deno.test("concurrency: an exchange that fails (connection refused) gives its place back", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const limit = concurrency({ max: 1 });
  await using client = clientWith(`http://127.0.0.1:${port}`, [limit]);
  await rejectsWith(client.get("/"), ConnectionException, /^Connection failed/);
  assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
});

Deno.test("concurrency: a streamed call holds its place until its body is read to its end or cancelled, or its client closes", async () => {
  await using target = server(() => new Response("a streamed body"));
  const limit = concurrency({ max: 1 });
  await using client = clientWith(target.url, [limit]);

  const streamed = await client.stream("GET", "/read");
  const queued = client.get("/after-read");
  await until(() => limit.state().queued === 1, "a call queued behind the stream");
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(target.paths, ["/read"], "sent while the body was unread");
  assert.equal(await new Response(streamed.body).text(), "a streamed body");
  assert.equal((await queued).text, "a streamed body");

  const cancelled = await client.stream("GET", "/cancel");
  const next = client.get("/after-cancel");
  await until(() => limit.state().queued === 1, "a call queued behind the stream");
  await cancelled.cancel();
  await next;

  // A client closed with its streamed body unread gives the place back too.
  const other = clientWith(target.url, [limit]);
  const unread = await other.stream("GET", "/unread");
  assert.equal(unread.statusCode, 200);
  const after = client.get("/after-close");
  await until(() => limit.state().queued === 1, "a call queued behind the stream");
  other.close();
  await settles(after);
  assert.deepEqual(target.paths, [
    "/read",
    "/after-read",
    "/cancel",
    "/after-cancel",
    "/unread",
    "/after-close",
  ]);
  assert.deepEqual(limit.state(), { inFlight: 0, queued: 0, origins: {} });
});

Deno.test("concurrency: a retry queues again, and no place is held during its wait", async () => {
  let failed = false;
  await using target = server((request) => {
    if (new URL(request.url).pathname === "/flaky" && !failed) {
      failed = true;
      return new Response("busy", { status: 503, headers: { "Retry-After": "1" } });
    }
    return new Response("ok");
  });
  const limit = concurrency({ max: 1 });
  await using client = clientWith(target.url, [limit], (b) => b.withRetry({ maxRetries: 1 }));
  const flaky = client.get("/flaky");
  await until(() => target.paths.length === 1, "the first attempt");
  // Sent during the retry's wait of 1 s: the place is free.
  await settles(client.get("/other"), 900);
  assert.equal((await flaky).text, "ok");
  assert.deepEqual(target.paths, ["/flaky", "/other", "/flaky"]);
});

Deno.test("concurrency() refuses bad options, naming the field", () => {
  const bad = { message: /^Invalid max: expected an integer of at least 1 or Infinity, got 0$/ };
  throwsAtOnce(() => concurrency({ max: 0 }), TypeError, bad.message);
  throwsAtOnce(
    () => concurrency({ max: 2, perOrigin: 1.5 }),
    TypeError,
    "Invalid perOrigin: expected an integer of at least 1 or Infinity, got 1.5",
  );
  throwsAtOnce(
    () => concurrency({ max: 2, maxQueue: -1 }),
    TypeError,
    "Invalid maxQueue: expected an integer of at least 0 or Infinity, got -1",
  );
  throwsAtOnce(
    () => concurrency({ max: "8" as unknown as number }),
    TypeError,
    /^Invalid max: expected an integer of at least 1 or Infinity, got/,
  );
  throwsAtOnce(() => concurrency({}), TypeError, /expected max or perOrigin/);
  throwsAtOnce(
    () => concurrency({ max: 1, limit: 2 } as never),
    TypeError,
    /limit/,
  );
});

Deno.test("dedupe(): 100 identical concurrent GETs make one request, each caller gets the body in bytes of its own", async () => {
  await using target = server(() => new Response("the report"));
  const shared = dedupe();
  await using client = clientWith(target.url, [shared]);
  target.hold = true;
  const calls = Array.from({ length: 100 }, () => client.get("/report", { params: { q: "1" } }));
  await until(() => shared.state().callers === 100, "100 callers waiting");
  assert.deepEqual(shared.state().origins, { [target.url]: { inFlight: 1, callers: 100 } });
  target.open();
  const responses = await Promise.all(calls);
  assert.equal(target.paths.length, 1);
  responses[0]!.content[0] = 0;
  for (const response of responses.slice(1)) assert.equal(response.text, "the report");
  assert.equal(new Set(responses.map((response) => response.content)).size, 100);
  assert.deepEqual(shared.state(), { inFlight: 0, callers: 0, origins: {} });
  // Over, it is not kept: the next call is sent.
  await client.get("/report", { params: { q: "1" } });
  assert.equal(target.paths.length, 2);
});

Deno.test("dedupe(): calls with other credentials, another method, a streamed call or another body are not shared", async () => {
  await using target = server(() => new Response("ok"));
  const shared = dedupe();
  await using client = clientWith(target.url, [shared]);
  target.hold = true;
  const calls = [
    client.get("/r", { headers: { Authorization: "Bearer alice-token" } }),
    client.get("/r", { headers: { Authorization: "Bearer alice-token" } }),
    client.get("/r", { headers: { Authorization: "Bearer bob-token" } }),
    client.get("/r", { auth: ["carol", "pw"] }),
    client.head("/r"),
    client.post("/r", { body: "x" }),
    client.post("/r", { body: "x" }),
    client.query("/r", { jsonData: { a: 1 } }),
    client.query("/r", { jsonData: { a: 1 } }),
    client.query("/r", { jsonData: { a: 2 } }),
  ];
  const streamed = client.stream("GET", "/r", { headers: { Authorization: "Bearer alice-token" } });
  await until(() => target.paths.length === 9, "nine requests at the server");
  const state = JSON.stringify(shared.state());
  assert.ok(!/token|carol|pw/.test(state), state);
  target.open();
  await Promise.all(calls);
  await (await streamed).cancel();
  const seen = target.headers.map((headers) => headers.get("authorization"));
  assert.equal(
    seen.filter((value) => value === "Bearer alice-token").length,
    2,
    "one + the stream",
  );
  assert.equal(seen.filter((value) => value === "Bearer bob-token").length, 1);
  assert.equal(target.paths.length, 9);
});

Deno.test("dedupe(): a caller that aborts or times out stops waiting alone; the others get the response", async () => {
  await using target = server(() => new Response("shared"));
  const shared = dedupe();
  await using client = clientWith(target.url, [shared]);
  target.hold = true;
  const controller = new AbortController();
  // The first caller starts the exchange, then aborts.
  const first = client.get("/r", { signal: controller.signal });
  const timedOut = client.get("/r", { timeout: 0.2 });
  const others = [client.get("/r"), client.get("/r")];
  await until(() => shared.state().callers === 4, "four callers waiting");
  controller.abort();
  await rejectsWith(first, HttpClientException, /^Request was aborted: GET /);
  await rejectsWith(timedOut, TimeoutException, /^Request timed out after 0\.2 s: GET /);
  assert.equal(shared.state().callers, 2);
  target.open();
  for (const response of await Promise.all(others)) assert.equal(response.text, "shared");
  assert.equal(target.paths.length, 1);
});

Deno.test("dedupe(): the caller that starts the exchange with a short timeout of its own times out alone; the others get the response", async () => {
  await using target = server(() => new Response("shared"));
  const shared = dedupe();
  await using client = clientWith(target.url, [shared]);
  target.hold = true;
  const impatient = client.get("/r", { timeout: 0.2 });
  const patient = Promise.allSettled([client.get("/r"), client.get("/r", { timeout: 5 })]);
  await until(() => shared.state().callers === 3, "three callers waiting");
  await rejectsWith(impatient, TimeoutException, /^Request timed out after 0\.2 s: GET /);
  await new Promise((resolve) => setTimeout(resolve, 100));
  target.open();
  for (const result of await patient) {
    assert.equal(
      result.status === "fulfilled" ? result.value.text : String(result.reason),
      "shared",
    );
  }
  assert.equal(target.paths.length, 1);
});
