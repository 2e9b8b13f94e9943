// MockTransport behaves as a fetch over a network does: a delayed reply
// meets the call's timeout, a streamed body its read timeout, the caller's
// signal and the client's close end both; a derived client sends through
// the same routes; a reply that cannot be made fails the call as the
// route's mistake, a handler's throw as a network failure.

import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "../mod.ts";
import { MockTransport } from "../testing.ts";
import { rejectsWith, settles } from "./helpers.ts";

function mockClient(mock: MockTransport, configure = (b: HttpClientConfigBuilder) => b) {
  return new HttpClient(
    configure(
      new HttpClientConfigBuilder().withBaseUrl("https://api.test").withFetch(mock.fetch)
        .withRetry({ maxRetries: 0 }),
    ).build(),
  );
}

/** A body that sends `first` and then nothing; `cancelled` resolves with the reason it is cancelled for. */
function stalledBody(first: string) {
  let cancelled!: (reason: unknown) => void;
  const reason = new Promise<unknown>((resolve) => cancelled = resolve);
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new TextEncoder().encode(first)),
    cancel: (why) => cancelled(why ?? "cancelled"),
  });
  return { body, cancelled: reason };
}

Deno.test("MockTransport: a reply's delay meets the call's timeout, its timer cleared", async () => {
  const mock = new MockTransport().route("GET", "/slow", { body: "late", delay: 30 })
    .route("GET", "/soon", { body: "soon", delay: 0.01 });
  await using client = mockClient(mock, (b) => b.withTimeout(0.05));
  await rejectsWith(
    settles(client.get("/slow")),
    TimeoutException,
    /^Request timed out after 0\.05 s: GET https:\/\/api\.test\/slow$/,
  );
  assert.equal((await client.get("/soon")).text, "soon");
});

Deno.test("MockTransport: the call's timeout ends an upload that never ends and a handler that never answers", async () => {
  const { body: upload, cancelled } = stalledBody("part");
  const mock = new MockTransport()
    .route("POST", "/upload", { status: 201 })
    .route("GET", "/hang", () => new Promise<never>(() => {}));
  await using client = mockClient(mock, (b) => b.withTimeout(0.05));
  await rejectsWith(
    settles(client.post("/upload", { body: upload })),
    TimeoutException,
    /timed out/,
  );
  assert.ok(await settles(cancelled), "the upload's source is cancelled");
  await rejectsWith(settles(client.get("/hang")), TimeoutException, /timed out/);
});

Deno.test("MockTransport: the caller's signal ends a delayed reply", async () => {
  const mock = new MockTransport().route("GET", "/slow", { delay: 30 });
  await using client = mockClient(mock);
  const controller = new AbortController();
  const pending = client.get("/slow", { signal: controller.signal });
  setTimeout(() => controller.abort(), 10);
  await rejectsWith(settles(pending), HttpClientException, /^Request was aborted: GET/);
});

Deno.test("MockTransport: a streamed body comes by chunks, meets the read timeout and is cancelled", async () => {
  const { body, cancelled } = stalledBody("first");
  const mock = new MockTransport().route("GET", "/events", () => ({ body }));
  await using client = mockClient(mock, (b) => b.withReadTimeout(0.05));
  await using response = await client.stream("GET", "/events");
  const reader = response.body.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "first");
  await rejectsWith(settles(reader.read()), TimeoutException, /readTimeout|timed out/);
  assert.ok(await settles(cancelled));
});

Deno.test("MockTransport: the client's close fails a delayed reply and a streamed body being read", async () => {
  const { body, cancelled } = stalledBody("head");
  const mock = new MockTransport()
    .route("GET", "/slow", { delay: 30 })
    .route("GET", "/stream", () => ({ body }));
  const client = mockClient(mock);
  const streamed = await client.stream("GET", "/stream");
  const reader = streamed.body.getReader();
  await reader.read();
  const slow = client.get("/slow");
  const read = reader.read();
  client.close();
  await rejectsWith(
    settles(slow),
    HttpClientException,
    /^Client was closed during the request: GET/,
  );
  await assert.rejects(settles(read), HttpClientException);
  assert.ok(await settles(cancelled));
});

Deno.test("MockTransport: without a timeout the client's close still ends a streamed body", async () => {
  const { body, cancelled } = stalledBody("head");
  const mock = new MockTransport().route("GET", "/stream", () => ({ body }));
  const client = mockClient(mock, (b) => b.withTimeout(null).withReadTimeout(null));
  const streamed = await client.stream("GET", "/stream");
  const reader = streamed.body.getReader();
  await reader.read();
  const read = reader.read();
  client.close();
  await assert.rejects(settles(read), HttpClientException);
  assert.ok(await settles(cancelled));
});

Deno.test("MockTransport: a client derived with extend() sends through the same routes and calls", async () => {
  const mock = new MockTransport()
    .route("GET", "https://api.test/me", { body: "parent" })
    .route("GET", "https://admin.test/me", { body: "derived" })
    .route("GET", "https://admin.test/slow", { delay: 30 });
  await using parent = mockClient(mock);
  const admin = parent.extend((b) =>
    b.withBaseUrl("https://admin.test").withHeaders({ "X-Role": "admin" })
  );
  assert.equal((await parent.get("/me")).text, "parent");
  assert.equal((await admin.get("/me")).text, "derived");
  assert.deepEqual(mock.calls.map((call) => [call.url, call.headers.get("x-role")]), [
    ["https://api.test/me", null],
    ["https://admin.test/me", "admin"],
  ]);
  // The parent's close ends the derived client's calls, as over a pool.
  const slow = admin.get("/slow");
  await parent.close();
  await rejectsWith(settles(slow), HttpClientException, /^Client was closed during the request/);
});

Deno.test("MockTransport: a reply that cannot be made fails the call as it is, not retried", async () => {
  const once = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const mock = new MockTransport()
    .route("GET", "/bad", () => ({ status: 204, body: "x" }))
    .route("GET", "/typo", () => ({ staus: 200 }) as never)
    .route("GET", "/once", { body: once });
  await using client = mockClient(mock, (b) => b.withRetry({ maxRetries: 2, backoff: 0.001 }));
  await rejectsWith(
    client.get("/bad"),
    HttpClientException,
    /^Invalid mock reply: status 204 has no body: GET https:\/\/api\.test\/bad$/,
  );
  await rejectsWith(
    client.get("/typo"),
    HttpClientException,
    /^Invalid mock reply: unknown key "staus" \(known: [^)]*\): GET/,
  );
  assert.equal((await client.get("/once")).statusCode, 200);
  await rejectsWith(
    client.get("/once"),
    HttpClientException,
    /^Invalid mock reply: .*: GET https:\/\/api\.test\/once$/,
  );
  assert.equal(mock.calls.length, 4);
});

Deno.test("MockTransport: a handler's throw and Response.error() fail as the network does", async () => {
  const mock = new MockTransport()
    .route("GET", "/reset", () => {
      throw new TypeError("connection reset by peer");
    })
    .route("GET", "/error", Response.error());
  await using client = mockClient(mock, (b) => b.withRetry({ maxRetries: 1, backoff: 0.001 }));
  await rejectsWith(
    client.get("/reset"),
    ConnectionException,
    /^Connection failed: connection reset \(connection reset by peer\): GET/,
  );
  await rejectsWith(client.get("/error"), ConnectionException, /Response\.error\(\)/);
  assert.equal(mock.calls.length, 4, "each retried once, as a network failure is");
});

Deno.test("MockTransport.route() refuses a bad method, pattern or reply, naming it", () => {
  const mock = new MockTransport();
  assert.throws(() => mock.route("GE T", "/", {}), {
    name: "TypeError",
    message: /^Invalid route method: .*"GE T"$/,
  });
  assert.throws(() => mock.route("GET", "users", {}), {
    name: "TypeError",
    message: /^Invalid route pattern: /,
  });
  assert.throws(() => mock.route("GET", 42 as never, {}), {
    name: "TypeError",
    message: /^Invalid route pattern: /,
  });
  assert.throws(() => mock.route("GET", "/", { status: 700 }), {
    name: "RangeError",
    message: /status: .*700$/,
  });
  assert.throws(() => mock.route("GET", "/", { delay: -1 }), {
    name: "RangeError",
    message: /delay: .*-1$/,
  });
  assert.throws(() => mock.route("GET", "/", { body: "a", json: 1 }), {
    name: "TypeError",
    message: /body and json/,
  });
  assert.throws(() => mock.route("GET", "/", { bdy: "a" } as never), {
    name: "TypeError",
    message: /unknown key "bdy" \(known: status, headers, body, json, delay\)$/,
  });
  assert.throws(() => mock.route("GET", "/", null as never), {
    name: "TypeError",
    message: /^Invalid mock reply: /,
  });
});
