// eventSource() (@fetchline/fetchline/sse), the reconnecting Server-Sent Events reader, on the npm
// build under Node (undici transport).

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import {
  ConnectionException,
  EventStreamException,
  HttpClientException,
} from "@fetchline/fetchline";
import { eventSource } from "@fetchline/fetchline/sse";
import { fixture } from "./server.mjs";
import { settles, singleAttemptClient } from "./helpers.mjs";

const SSE = { "content-type": "text/event-stream" };

/** Answers `path` with the event stream `body(n, req)` of the n-th connection (from 0), then ends it. */
function feed(server, path, body) {
  const seen = [];
  server.route(path, (req, res) => {
    seen.push(req.headers);
    res.writeHead(200, SSE);
    res.end(body(seen.length - 1, req));
  });
  return seen;
}

/** Every event of `events` (Node 20 has no `Array.fromAsync`). */
async function all(events) {
  const taken = [];
  for await (const event of events) taken.push(event);
  return taken;
}

/** The first `count` events of `events`, then leaves the loop. */
async function take(events, count) {
  const taken = [];
  for await (const event of events) {
    if (taken.push(event) === count) break;
  }
  return taken;
}

test("eventSource() reconnects when the body ends, sending the last event ID, after the server's retry", async (t) => {
  const server = await fixture(t);
  const seen = feed(
    server,
    "/feed",
    (n) =>
      [
        "retry: 20\nid: 1\ndata: a\n\ndata: b\n\n",
        "data: c\n\nid: 2\n\n",
        "id: é\ndata: d\n\n",
      ][n] ??
        "",
  );
  const http = singleAttemptClient(t, server);
  // A reconnection time of a minute: only the server's 20 ms lets the test end in time.
  const reader = eventSource(http, "/feed", { retryDelay: 60 });
  const events = await settles(take(reader, 4));
  assert.deepEqual(events.map((e) => [e.data, e.id]), [["a", "1"], ["b", "1"], ["c", "1"], [
    "d",
    "é",
  ]]);
  assert.equal(reader.lastEventId, "é");
  assert.deepEqual(seen.map((h) => h["last-event-id"]), [undefined, "1", "2"]);
  for (const headers of seen) {
    assert.equal(headers.accept, "text/event-stream");
    assert.equal(headers["cache-control"], "no-cache");
  }
});

test("eventSource() reconnects when the connection is destroyed mid-body, and sends non-ASCII IDs as UTF-8", async (t) => {
  const server = await fixture(t);
  const seen = [];
  server.route("/feed", (req, res) => {
    seen.push(req.headers["last-event-id"]);
    res.writeHead(200, SSE);
    res.write(`id: é${seen.length}\ndata: ${seen.length}\n\n`);
    setTimeout(() => res.destroy(), 20);
  });
  const http = singleAttemptClient(t, server);
  const events = await settles(take(eventSource(http, "/feed", { retryDelay: 0.01 }), 3));
  assert.deepEqual(events.map((e) => e.data), ["1", "2", "3"]);
  // node:http reads header bytes as latin1: the UTF-8 bytes of the ID, one character each.
  const latin1 = (text) => Buffer.from(text, "utf8").toString("latin1");
  assert.deepEqual(seen, [undefined, latin1("é1"), latin1("é2")]);
});

test("eventSource() ends on a 204, and fails on a 500 or a text/plain answer without reconnecting", async (t) => {
  const server = await fixture(t);
  let requests = 0;
  server.route("/none", (_req, res) => (requests++, res.writeHead(204), res.end()));
  server.route("/down", (_req, res) => (requests++, res.writeHead(500), res.end("down")));
  server.route("/text", (_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("data: a\n\n");
  });
  const http = singleAttemptClient(t, server);
  const options = { retryDelay: 0.01 };
  assert.deepEqual(await settles(all(eventSource(http, "/none", options))), []);
  await assert.rejects(settles(all(eventSource(http, "/down", options))), (error) => {
    assert.equal(error.constructor, EventStreamException);
    assert.match(error.message, /^Event stream refused with status 500: GET http:/);
    assert.equal(error.response.statusCode, 500);
    return true;
  });
  await assert.rejects(settles(all(eventSource(http, "/text", options))), (error) => {
    assert.equal(error.constructor, EventStreamException);
    assert.match(error.message, /Content-Type "text\/plain"/);
    return true;
  });
  assert.equal(requests, 3);
});

test("eventSource() reconnects when the connection is refused, up to maxReconnects", async (t) => {
  // A port nothing listens on: taken, then freed.
  const listener = createServer();
  await new Promise((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address();
  await new Promise((resolve) => listener.close(resolve));
  const http = singleAttemptClient(t, { url: `http://127.0.0.1:${port}` });
  const reader = eventSource(http, "/feed", { retryDelay: 0.01, maxReconnects: 2 });
  await assert.rejects(settles(all(reader)), (error) => {
    assert.equal(error.constructor, ConnectionException);
    assert.match(error.message, /^Event stream gave up after 2 reconnections .*\(maxReconnects\)/);
    assert.ok(error.cause instanceof ConnectionException);
    return true;
  });
});

test("eventSource(): break cancels the connection; close() ends a wait at once; the client's close stops it", async (t) => {
  const server = await fixture(t);
  let closed;
  const seen = new Promise((resolve) => closed = resolve);
  server.route("/held", (_req, res) => {
    res.writeHead(200, SSE);
    res.write("data: a\n\n");
    res.on("close", () => closed());
  });
  feed(server, "/ends", () => "data: a\n\n");
  const http = singleAttemptClient(t, server);
  assert.equal((await settles(take(eventSource(http, "/held"), 1))).length, 1);
  await settles(seen);

  const reader = eventSource(http, "/ends", { retryDelay: 60 });
  const iterator = reader[Symbol.asyncIterator]();
  assert.equal((await iterator.next()).value.data, "a");
  const next = iterator.next(); // the body ended: a minute's wait
  await new Promise((resolve) => setTimeout(resolve, 50));
  await settles(reader.close());
  assert.deepEqual(await settles(next), { done: true, value: undefined });

  const waiting = eventSource(http, "/ends", { retryDelay: 60 })[Symbol.asyncIterator]();
  await waiting.next();
  const stopped = waiting.next();
  await new Promise((resolve) => setTimeout(resolve, 50));
  http.close();
  await assert.rejects(settles(stopped), (error) => {
    assert.equal(error.constructor, HttpClientException);
    assert.match(error.message, /^Client was closed during the request/);
    return true;
  });
});
