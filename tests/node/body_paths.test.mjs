// How the npm build reads response bodies: whole through the transport's
// body stream under the limit, refused before reading when the head already
// tells the body is too large, discarded, and not at all when the response
// has none. Each way, bodies that arrive before the read and bodies that
// trickle in after it.

import assert from "node:assert/strict";
import { test } from "node:test";
import zlib from "node:zlib";
import { ConnectionException, HttpClientException } from "@fetchline/fetchline";
import { fixture, json } from "./server.mjs";
import { singleAttemptClient } from "./helpers.mjs";

// A body that never settles fails its test instead of hanging the suite.

/** Sends `pieces` 20 ms apart, after the head. */
function trickle(res, pieces) {
  let next = 0;
  const id = setInterval(() => {
    if (next < pieces.length) res.write(pieces[next++]);
    else {
      clearInterval(id);
      res.end();
    }
  }, 20);
  res.on("close", () => clearInterval(id));
}

test(
  "a HEAD answer announcing a body past maxResponseBytes reads as empty",
  { timeout: 10_000 },
  async (t) => {
    const server = await fixture(t);
    server.route("/big", (_req, res) => {
      res.writeHead(200, { "content-length": String(10 * 2 ** 20) });
      res.end();
    });
    server.route("/small", (_req, res) => {
      res.writeHead(200, { "content-length": "500" });
      res.end();
    });
    const http = singleAttemptClient(t, server, (b) => b.withMaxResponseBytes(1000));
    for (const path of ["/big", "/small", "/big"]) {
      const response = await http.head(path);
      assert.equal(response.statusCode, 200);
      assert.equal(response.content.byteLength, 0);
    }
  },
);

test("a Content-Length past maxResponseBytes fails before any byte of the body", {
  timeout: 10_000,
}, async (t) => {
  const server = await fixture(t);
  server.route("/stalled", (_req, res) => {
    res.writeHead(200, { "content-length": String(2 ** 20) });
    res.flushHeaders();
  });
  const http = singleAttemptClient(t, server, (b) => b.withMaxResponseBytes(1000).withTimeout(3));
  const started = Date.now();
  await assert.rejects(http.get("/stalled"), (error) => {
    assert.equal(error.constructor, HttpClientException);
    assert.match(error.message, /exceeds maxResponseBytes \(1000\)/);
    return true;
  });
  assert.ok(Date.now() - started < 2500, "failed at the head, not at the timeout");
});

test("bodies that trickle in after the read began arrive whole", { timeout: 10_000 }, async (t) => {
  const server = await fixture(t);
  const pieces = ["first ", "second ", "third"];
  const text = pieces.join("");
  server.route("/sized", (_req, res) => {
    res.writeHead(200, { "content-length": String(text.length) });
    trickle(res, pieces);
  });
  server.route("/chunked", (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    trickle(res, pieces);
  });
  const gzipped = zlib.gzipSync(text.repeat(1000));
  server.route("/gzip", (_req, res) => {
    res.writeHead(200, { "content-encoding": "gzip" });
    const third = Math.ceil(gzipped.length / 3);
    trickle(res, [0, 1, 2].map((i) => gzipped.subarray(i * third, (i + 1) * third)));
  });
  const http = singleAttemptClient(t, server, (b) => b.withMaxResponseBytes(text.length * 1000));
  assert.equal((await http.get("/sized")).text, text);
  assert.equal((await http.get("/chunked")).text, text);
  assert.equal((await http.get("/gzip")).text, text.repeat(1000));
});

test(
  "a body cut short by the connection fails with ConnectionException",
  { timeout: 10_000 },
  async (t) => {
    const server = await fixture(t);
    server.route("/cut", (_req, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("only part of it");
      setTimeout(() => res.socket.destroy(), 20);
    });
    const http = singleAttemptClient(t, server);
    await assert.rejects(http.get("/cut"), (error) => error instanceof ConnectionException);
  },
);

test(
  "a gzip redirect body is discarded and the final response is read",
  { timeout: 10_000 },
  async (t) => {
    const server = await fixture(t);
    server.route("/from", (_req, res) => {
      res.writeHead(302, { location: "/to", "content-encoding": "gzip" });
      res.end(zlib.gzipSync("moved ".repeat(10_000)));
    });
    server.route("/to", (_req, res) => json(res, 200, { arrived: true }));
    const http = singleAttemptClient(t, server);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual((await http.get("/from")).json(), {
        arrived: true,
      });
    }
  },
);
