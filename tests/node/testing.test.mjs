// @fetchline/fetchline/testing on the npm build under Node: MockTransport
// through withFetch answers a small API client from its routes, records
// each request with its body, fails a request no route matches at once
// (not retried, nothing sent to a listening server), and behaves as a
// network fetch with a delayed reply, a streamed body, close() and a
// client derived with extend().

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "@fetchline/fetchline";
import { MockCall, MockTransport, UnmatchedRequestException } from "@fetchline/fetchline/testing";
import { fixture } from "./server.mjs";
import { rejectsWith, settles } from "./helpers.mjs";

function mockClient(t, mock, configure = (b) => b, baseUrl = "https://api.test") {
  const client = new HttpClient(
    configure(new HttpClientConfigBuilder().withBaseUrl(baseUrl).withFetch(mock.fetch)).build(),
  );
  t.after(() => client.close());
  return client;
}

/** A body that sends `first` and then nothing; `cancelled` resolves once it is cancelled. */
function stalledBody(first) {
  let cancelled;
  const done = new Promise((resolve) => cancelled = resolve);
  const body = new ReadableStream({
    start: (controller) => controller.enqueue(new TextEncoder().encode(first)),
    cancel: () => cancelled(true),
  });
  return { body, cancelled: done };
}

/** The code under test: a client of a users API. */
class UsersApi {
  constructor(http) {
    this.http = http;
  }
  async get(id) {
    const response = await this.http.get(`/users/${id}`);
    return response.statusCode === 404 ? undefined : response.json();
  }
  async create(name) {
    return (await this.http.post("/users", { jsonData: { name } })).json().id;
  }
}

test("MockTransport answers a small API client and records its requests", async (t) => {
  // URLPattern is global from Node 23.8; a RegExp does the same elsewhere.
  const item = globalThis.URLPattern === undefined
    ? /\/users\/\d+$/
    : new globalThis.URLPattern({ pathname: "/users/:id" });
  const mock = new MockTransport()
    .route("GET", "/users/1", { json: { id: 1, name: "Ada" } })
    .route("GET", item, { status: 404 })
    .route(
      "POST",
      "/users",
      (call) => Promise.resolve({ status: 201, json: { id: 2, ...call.json() } }),
    );
  const users = new UsersApi(
    mockClient(t, mock, (b) => b.withHeaders({ Authorization: "Bearer t0ken" })),
  );
  assert.deepEqual(await users.get(1), { id: 1, name: "Ada" });
  assert.equal(await users.get(7), undefined);
  assert.equal(await users.create("Grace"), 2);
  const created = mock.calls[2];
  assert.ok(created instanceof MockCall);
  assert.equal(created.url, "https://api.test/users");
  assert.equal(created.headers.get("content-type"), "application/json");
  assert.deepEqual(created.json(), { name: "Grace" });
  assert.equal(created.headers.get("authorization"), "Bearer t0ken");
  const shown = inspect(created) + JSON.stringify(created);
  assert.ok(!shown.includes("t0ken"), shown);
});

test("MockTransport fails an unmatched request at once, not retried, nothing sent to the server", async (t) => {
  const server = await fixture(t);
  const mock = new MockTransport().route("GET", "/known", { body: "mocked" });
  const client = mockClient(
    t,
    mock,
    (b) => b.withRetry({ maxRetries: 3, backoff: 0.001 }),
    server.url,
  );
  assert.equal((await client.get("/known")).text, "mocked");
  const error = await rejectsWith(
    client.get("/unknown"),
    UnmatchedRequestException,
    /^No mock route matches GET http:\/\/127\.0\.0\.1:\d+\/unknown: routes GET \/known$/,
  );
  assert.ok(error instanceof HttpClientException);
  assert.equal(mock.calls.length, 2);
  assert.equal(server.requests.length, 0);
});

test("MockTransport: a delayed reply meets the timeout; a handler's throw is a ConnectionException", async (t) => {
  const mock = new MockTransport()
    .route("GET", "/slow", { delay: 30 })
    .route("GET", "/reset", () => {
      throw new TypeError("connection reset by peer");
    });
  const client = mockClient(t, mock, (b) => b.withTimeout(0.05).withRetry({ maxRetries: 0 }));
  await rejectsWith(
    settles(client.get("/slow")),
    TimeoutException,
    /^Request timed out after 0\.05 s: GET/,
  );
  await rejectsWith(client.get("/reset"), ConnectionException, /connection reset/);
});

test("MockTransport: a streamed body by chunks; close() fails its read and cancels it", async (t) => {
  const { body, cancelled } = stalledBody("first");
  const mock = new MockTransport().route("GET", "/events", () => ({ body }));
  const client = mockClient(t, mock);
  const response = await client.stream("GET", "/events");
  const reader = response.body.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "first");
  const read = reader.read();
  client.close();
  await assert.rejects(settles(read), HttpClientException);
  assert.equal(await settles(cancelled), true);
});

test("MockTransport: a client derived with extend() sends through the same routes", async (t) => {
  const mock = new MockTransport()
    .route("GET", "https://api.test/me", { body: "parent" })
    .route("GET", "https://admin.test/me", { body: "derived" })
    .route("GET", "https://admin.test/slow", { delay: 30 });
  const parent = mockClient(t, mock);
  const admin = parent.extend((b) =>
    b.withBaseUrl("https://admin.test").withHeaders({ "X-Role": "admin" })
  );
  assert.equal((await parent.get("/me")).text, "parent");
  assert.equal((await admin.get("/me")).text, "derived");
  assert.deepEqual(mock.calls.map((call) => call.headers.get("x-role")), [null, "admin"]);
  const slow = admin.get("/slow");
  parent.close();
  await rejectsWith(settles(slow), HttpClientException, /^Client was closed during the request/);
});
