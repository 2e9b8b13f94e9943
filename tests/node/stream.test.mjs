// Streamed responses on the npm build under Node (undici transport).

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  HttpClientException,
  ResponseNotReadException,
  TimeoutException,
  TokenAuthHook,
  TokenData,
  TokenManager,
} from "@fetchline/fetchline";
import { fixture } from "./server.mjs";
import { singleAttemptClient } from "./helpers.mjs";

const decoder = new TextDecoder();

/**
 * A route whose body the test writes: `res` once the head is sent, and
 * `closed` resolving once the server saw the client give the response up
 * (the connection closed before the body's end).
 */
function heldRoute(server, path, status = 200, headers = {}) {
  const held = {};
  let onClosed;
  held.closed = new Promise((resolve) => onClosed = resolve);
  held.ready = new Promise((resolve) => {
    server.route(path, (_req, res) => {
      res.writeHead(status, headers);
      res.flushHeaders();
      res.on("close", () => {
        if (!res.writableFinished) onClosed();
      });
      held.res = res;
      resolve();
    });
  });
  return held;
}

function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still waiting after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test("stream() resolves at the head and each chunk reaches the caller before the server writes the next", async (t) => {
  const server = await fixture(t);
  const held = heldRoute(server, "/chunks");
  const http = singleAttemptClient(t, server);
  const response = await http.stream("GET", "/chunks");
  t.after(() => response.cancel());
  assert.equal(response.isStreamed, true);
  await held.ready;
  const reader = response.body.getReader();
  held.res.write("first");
  assert.equal(decoder.decode((await reader.read()).value), "first");
  held.res.write("second");
  assert.equal(decoder.decode((await reader.read()).value), "second");
  held.res.end();
  assert.equal((await reader.read()).done, true);
});

test("lines() and events() give NDJSON and Server-Sent Events as they are written", async (t) => {
  const server = await fixture(t);
  const ndjson = heldRoute(server, "/ndjson");
  const sse = heldRoute(server, "/sse", 200, { "content-type": "text/event-stream" });
  const http = singleAttemptClient(t, server);
  {
    const response = await http.stream("GET", "/ndjson");
    t.after(() => response.cancel());
    await ndjson.ready;
    const lines = response.lines();
    ndjson.res.write('{"n": 1}\n{"n"');
    assert.deepEqual(JSON.parse((await lines.next()).value), { n: 1 });
    ndjson.res.end(": 2}\r\n");
    assert.deepEqual(JSON.parse((await lines.next()).value), { n: 2 });
    assert.equal((await lines.next()).done, true);
  }
  const response = await http.stream("GET", "/sse");
  t.after(() => response.cancel());
  await sse.ready;
  const events = response.events();
  sse.res.write("event: tick\ndata: 1\n\n");
  assert.deepEqual((await events.next()).value, {
    event: "tick",
    data: "1",
    id: "",
    retry: undefined,
  });
  sse.res.end("data: 2\n\n");
  assert.equal((await events.next()).value.data, "2");
  assert.equal((await events.next()).done, true);
});

test("content throws ResponseNotReadException until read(); read() holds maxResponseBytes", async (t) => {
  const server = await fixture(t);
  server.route("/json", (_req, res) => res.end('{"ok": true}'));
  server.route("/big", (_req, res) => res.end(Buffer.alloc(100)));
  const http = singleAttemptClient(t, server, (b) => b.withMaxResponseBytes(20));
  const response = await http.stream("GET", "/json");
  t.after(() => response.cancel());
  assert.throws(() => response.content, ResponseNotReadException);
  assert.throws(() => response.json(), /read\(\)/);
  assert.deepEqual((await response.read()).json(), { ok: true });
  const big = await http.stream("GET", "/big");
  t.after(() => big.cancel());
  await assert.rejects(big.read(), (error) => {
    assert.ok(error instanceof HttpClientException);
    assert.match(error.message, /maxResponseBytes \(20\)/);
    return true;
  });
});

test("await using on a streamed response cancels it: the server sees the connection closed", async (t) => {
  const server = await fixture(t);
  const held = heldRoute(server, "/endless");
  const http = singleAttemptClient(t, server);
  const response = await http.stream("GET", "/endless");
  await held.ready;
  held.res.write("some");
  assert.equal(response.statusCode, 200);
  // What `await using` calls at the end of its block.
  await response[Symbol.asyncDispose]();
  await within(held.closed, 5000, "the server to see the connection closed");
});

test("close() fails the reader of a streamed body with HttpClientException", async (t) => {
  const server = await fixture(t);
  const held = heldRoute(server, "/endless");
  const http = singleAttemptClient(t, server);
  const response = await http.stream("GET", "/endless");
  await held.ready;
  const reading = response.body.getReader().read();
  http.close();
  await assert.rejects(within(reading, 5000, "the read to fail"), (error) => {
    assert.equal(error.constructor, HttpClientException);
    assert.match(error.message, /Client was closed/);
    return true;
  });
  await within(held.closed, 5000, "the server to see the connection closed");
});

for (const length of [true, false]) {
  test(
    `close() fails the waiting read of a large streamed body ${
      length ? "with" : "without"
    } a Content-Length on a client with every deadline off`,
    async (t) => {
      const server = await fixture(t);
      const held = heldRoute(server, "/big", 200, length ? { "content-length": "300000" } : {});
      const http = singleAttemptClient(t, server, (b) => b.withTimeout(null).withReadTimeout(null));
      const response = await http.stream("GET", "/big");
      await held.ready;
      held.res.write("x".repeat(100_000));
      const reader = response.body.getReader();
      for (let got = 0; got < 100_000;) got += (await reader.read()).value.length;
      const reading = reader.read();
      http.close();
      await assert.rejects(within(reading, 5000, "the read to fail"), (error) => {
        assert.equal(error.constructor, HttpClientException);
        assert.match(error.message, /Client was closed/);
        return true;
      });
      await within(held.closed, 5000, "the server to see the connection closed");
    },
  );
}

test("readTimeout fails a stall with TimeoutException; readTimeout: null and the call's timeout do not", async (t) => {
  const server = await fixture(t);
  const stalled = heldRoute(server, "/stall");
  const http = singleAttemptClient(t, server, (b) => b.withTimeout(0.2).withReadTimeout(0.2));
  {
    const response = await http.stream("GET", "/stall");
    t.after(() => response.cancel());
    await assert.rejects(within(response.read(), 5000, "the read to time out"), (error) => {
      assert.ok(error instanceof TimeoutException);
      assert.match(error.message, /readTimeout/);
      return true;
    });
    await within(stalled.closed, 5000, "the server to see the connection closed");
  }
  const late = heldRoute(server, "/late");
  const response = await http.stream("GET", "/late", { readTimeout: null });
  t.after(() => response.cancel());
  const reading = response.read();
  await late.ready;
  await new Promise((resolve) => setTimeout(resolve, 500));
  late.res.end("late");
  assert.equal((await reading).text, "late");
});

test("stream() retries a 503 and refreshes a token on a 401 on their heads, cancelling their bodies", async (t) => {
  const server = await fixture(t);
  const unavailable = heldRoute(server, "/flaky", 503);
  let flaky = 0;
  const retrying = singleAttemptClient(
    t,
    server,
    (b) => b.withRetry({ maxRetries: 2, backoff: 0.001 }),
  );
  const pending = retrying.stream("GET", "/flaky");
  await unavailable.ready;
  server.route("/flaky", (_req, res) => (flaky++, res.end("fine")));
  const response = await pending;
  t.after(() => response.cancel());
  assert.equal((await response.read()).text, "fine");
  assert.equal(flaky, 1);
  await within(unavailable.closed, 5000, "the 503's connection to be closed");

  const refused = heldRoute(server, "/api", 401);
  let issued = 0;
  const manager = new TokenManager([{
    name: "api",
    fetch: () =>
      Promise.resolve(new TokenData({ accessToken: `tok-${++issued}`, expiresIn: 3600 })),
  }]);
  const authed = singleAttemptClient(t, server, (b) => b.withAuthHook(new TokenAuthHook(manager)));
  const refreshing = authed.stream("GET", "/api");
  await refused.ready;
  server.route("/api", (req, res) => res.end(req.headers.authorization));
  const api = await refreshing;
  t.after(() => api.cancel());
  assert.equal((await api.read()).text, "Bearer tok-2");
  await within(refused.closed, 5000, "the 401's connection to be closed");
});

test("stream() follows redirects, and response hooks see it unread", async (t) => {
  const server = await fixture(t);
  server.route("/from", (_req, res) => (res.writeHead(302, { location: "/to" }), res.end()));
  server.route("/to", (_req, res) => res.end("arrived"));
  const seen = [];
  const http = singleAttemptClient(t, server, (b) =>
    b.withResponseHook({
      afterResponse(response) {
        seen.push(response.isStreamed);
        assert.throws(() => response.content, ResponseNotReadException);
        return response;
      },
    }));
  const response = await http.stream("GET", "/from");
  t.after(() => response.cancel());
  assert.equal(response.url, `${server.url}/to`);
  assert.deepEqual(seen, [true]);
  assert.equal((await response.read()).text, "arrived");
});

test("a middleware that throws after next() on a streamed call leaves the dropped body cancelled: the server sees the connection closed", async (t) => {
  const server = await fixture(t);
  const held = heldRoute(server, "/endless");
  const boom = new Error("middleware boom");
  const http = singleAttemptClient(
    t,
    server,
    (builder) =>
      builder.withMiddleware(async (request, next) => {
        await next(request);
        throw boom;
      }),
  );
  await assert.rejects(http.stream("GET", "/endless"), (error) => error === boom);
  await held.ready;
  await within(held.closed, 5000, "the server to see the connection closed");
});

test("a middleware that calls next() twice and returns the second response leaves the first cancelled", async (t) => {
  const server = await fixture(t);
  const first = heldRoute(server, "/first");
  const second = heldRoute(server, "/second");
  const http = singleAttemptClient(
    t,
    server,
    (builder) =>
      builder.withMiddleware(async (request, next) => {
        await next(request);
        return await next(request.with({ url: request.url.replace("/first", "/second") }));
      }),
  );
  const response = await http.stream("GET", "/first");
  t.after(() => response.cancel());
  await first.ready;
  await second.ready;
  await within(first.closed, 5000, "the server to see the first connection closed");
  await response.cancel();
  await within(second.closed, 5000, "the server to see the second connection closed");
});
