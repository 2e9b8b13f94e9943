// client.extend() on Node, where a pool is an undici Agent: a derived client
// with the parent's pool settings sends over the parent's connections, one
// with other settings over its own; the server's sockets show which, and
// show a pool released (its sockets closed) or kept open.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { inspect } from "node:util";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "@fetchline/fetchline";
import { rejectsWith, settles } from "./helpers.mjs";

/** A server that answers with the client's port and the headers it saw, and tracks its open sockets. */
async function portServer(t) {
  const open = new Set();
  const server = createServer((req, res) => {
    const delay = Number(new URL(req.url, "http://127.0.0.1").searchParams.get("delay") ?? 0);
    const timer = setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ port: req.socket.remotePort, path: req.url, headers: req.headers }));
    }, delay);
    req.socket.once("close", () => clearTimeout(timer));
  });
  server.on("connection", (socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  return { url: `http://127.0.0.1:${server.address().port}`, open };
}

/** Resolves once the server holds no open socket from port `port` (or none at all). */
async function socketClosed(server, port) {
  const held = () => [...server.open].some((s) => port === undefined || s.remotePort === port);
  for (let i = 0; i < 200 && held(); i++) await new Promise((r) => setTimeout(r, 10));
  return !held();
}

/**
 * A client whose Agent keeps one connection per origin (undici otherwise
 * opens a second one when a call starts before the last one's socket is
 * free again), so its port names its pool.
 */
function parentClient(t, server) {
  const client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withRetry({ maxRetries: 0 })
      .withPool({ connections: 1 }).build(),
  );
  t.after(() => client.close());
  return client;
}

test("extend() applies the derived base URL, headers and timeout; the parent is unchanged", async (t) => {
  const server = await portServer(t);
  const parent = parentClient(t, server);
  const derived = parent.extend((builder) =>
    builder.withBaseUrl(`${server.url}/v2/`).withHeaders({ "X-Tenant": "a" }).withTimeout(0.2)
  );
  const seen = (await derived.get("items")).json();
  assert.equal(seen.path, "/v2/items");
  assert.equal(seen.headers["x-tenant"], "a");
  assert.equal((await parent.get("/items")).json().headers["x-tenant"], undefined);
  await rejectsWith(derived.get(`${server.url}/slow?delay=2000`), TimeoutException, /0\.2 s/);
  assert.equal(parent.config.timeout, 30);
  assert.equal(parent.config.baseUrl, server.url);
});

test("extend() shares the parent's undici Agent unless the pool settings change", async (t) => {
  const server = await portServer(t);
  const parent = parentClient(t, server);
  const same = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
  const own = parent.extend((builder) => builder.withPool({ connections: 1 }));
  const first = (await parent.get("/a")).json().port;
  assert.equal((await same.get("/b")).json().port, first, "the parent's connection");
  assert.notEqual((await own.get("/c")).json().port, first, "a pool of its own");
});

test("closing a derived client that shares the Agent leaves the parent's connections open", async (t) => {
  const server = await portServer(t);
  const parent = parentClient(t, server);
  const derived = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
  const port = (await derived.get("/a")).json().port;
  derived.close();
  await rejectsWith(derived.get("/after"), HttpClientException, /^Client is closed: GET \/after$/);
  assert.equal((await parent.get("/b")).json().port, port);
  assert.ok(!parent.closed);
  parent.close();
  assert.ok(await socketClosed(server, port), "the parent's close released the Agent");
});

test("closing the parent closes its derived clients: calls in flight fail, own Agents released", async (t) => {
  const server = await portServer(t);
  const parent = parentClient(t, server);
  const shared = parent.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }));
  const own = parent.extend((builder) => builder.withPool({ connections: 1 }));
  const pending = [shared, own].map((client) => client.get("/slow?delay=3000"));
  for (let i = 0; i < 200 && server.open.size < 2; i++) await new Promise((r) => setTimeout(r, 5));
  parent.close();
  for (const call of pending) {
    await rejectsWith(settles(call), HttpClientException, /Client was closed during the request/);
  }
  for (const client of [shared, own]) {
    assert.ok(client.closed);
    await rejectsWith(client.get("/later"), HttpClientException, /^Client is closed: GET \/later$/);
  }
  assert.throws(() => parent.extend((b) => b), /^HttpClientException: Client is closed/);
  assert.ok(await socketClosed(server), "every Agent was released");
});

test("a derived client's console.log() and JSON.stringify() mask its secrets", (t) => {
  const parent = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl("http://ada:b4se-s3cret@127.0.0.1:1/").build(),
  );
  t.after(() => parent.close());
  const derived = parent.extend((builder) =>
    builder.withHeaders({ Authorization: "Bearer h3ader-s3cret" })
      .withProxy("http://ada:pr0xy-s3cret@127.0.0.1:3128")
  );
  const views = [JSON.stringify(derived), inspect(derived, { depth: 10 }), inspect(derived.config)];
  for (const view of views) {
    for (const secret of ["b4se-s3cret", "h3ader-s3cret", "pr0xy-s3cret"]) {
      assert.ok(!view.includes(secret), `${secret} in ${view}`);
    }
  }
  assert.match(views[1], /ada:\*\*\*@127\.0\.0\.1:1/);
});
