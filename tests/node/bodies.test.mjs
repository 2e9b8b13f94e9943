// Raw request bodies on the npm build under Node (undici dispatch()): each
// kind arrives byte for byte with its Content-Type; a replayable body is
// resent on a 307, a retry and a 401 refresh, a stream never; unknown keys
// and bad bodies are a TypeError naming them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  TokenData,
  TokenManager,
} from "@fetchline/fetchline";
import { toCurl } from "@fetchline/fetchline/utils";
import { fixture } from "./server.mjs";

const TEXT = "line 1\nline 2 — ünïcode";
const BYTES = new TextEncoder().encode(TEXT);
const BINARY = Uint8Array.from({ length: 256 }, (_, i) => i);

function client(t, server, configure = (builder) => builder) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5);
  const created = new HttpClient(configure(builder).build());
  t.after(() => created.close());
  return created;
}

/** A web ReadableStream of `bytes` in two chunks. */
function streamOf(bytes) {
  const chunks = [bytes.slice(0, 5), bytes.slice(5)];
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** Every replayable kind of body, each holding TEXT. */
const replayable = () => [TEXT, BYTES.slice(), BYTES.slice().buffer, new Blob([BYTES])];

test("every kind of raw body arrives byte for byte with its Content-Type", async (t) => {
  const server = await fixture(t);
  const http = client(t, server, (b) => b.withRetry({ maxRetries: 0 }));
  const cases = [
    ["string", "héllo ✓", new TextEncoder().encode("héllo ✓"), "text/plain;charset=UTF-8"],
    ["bytes", BINARY, BINARY, "application/octet-stream"],
    ["Buffer", Buffer.from(BINARY), BINARY, "application/octet-stream"],
    ["ArrayBuffer", BINARY.slice(16, 32).buffer, BINARY.slice(16, 32), "application/octet-stream"],
    ["typed Blob", new Blob([BINARY], { type: "image/png" }), BINARY, "image/png"],
    ["Blob", new Blob([BINARY]), BINARY, "application/octet-stream"],
    ["stream", streamOf(BINARY), BINARY, "application/octet-stream"],
    ["empty", "", new Uint8Array(), "text/plain;charset=UTF-8"],
  ];
  for (const [name, body, bytes, type] of cases) {
    const response = await http.put("/echo", { body });
    assert.equal(response.statusCode, 200, name);
    const recorded = server.requests.at(-1);
    assert.deepEqual(new Uint8Array(recorded.body), bytes, name);
    assert.equal(recorded.headers["content-type"], type, name);
    if (name === "typed Blob" || name === "Blob") {
      // Sent with its size, as fetch sends a Blob, not chunked.
      assert.equal(recorded.headers["content-length"], String(bytes.byteLength), name);
    }
  }
});

test("a stream body goes through a spec fetch (withFetch), which needs duplex: half", async (t) => {
  const server = await fixture(t);
  const http = client(t, server, (b) => b.withFetch(globalThis.fetch).withRetry({ maxRetries: 0 }));
  assert.equal((await http.put("/echo", { body: streamOf(BYTES) })).statusCode, 200);
  assert.equal(server.requests[0].body.toString(), TEXT);
  assert.equal(server.requests[0].headers["content-type"], "application/octet-stream");
});

test("bytes are copied when the request is built: later changes are not sent", async (t) => {
  const server = await fixture(t);
  const http = client(t, server);
  const bytes = new Uint8Array([1, 2, 3]);
  const request = new HttpRequest("POST", `${server.url}/echo`, { body: bytes });
  bytes[0] = 99;
  await http.request(request);
  assert.deepEqual(new Uint8Array(server.requests[0].body), new Uint8Array([1, 2, 3]));
});

for (const status of [307, 308]) {
  test(`a ${status} resends a replayable body and is returned for a stream`, async (t) => {
    const server = await fixture(t);
    server.route("/moved", (_req, res) => {
      res.writeHead(status, { location: "/target" });
      res.end();
    });
    const http = client(t, server, (b) => b.withRetry({ maxRetries: 0 }));
    for (const body of replayable()) {
      assert.equal((await http.put("/moved", { body })).statusCode, 200);
      const [first, second] = server.requests.splice(0);
      assert.deepEqual([first.path, second.path, second.method], ["/moved", "/target", "PUT"]);
      assert.equal(second.body.toString(), TEXT);
    }
    const response = await http.put("/moved", { body: streamOf(BYTES) });
    assert.equal(response.statusCode, status);
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].body.toString(), TEXT);
  });
}

test("a PUT with a replayable body is retried after a 503 and resent whole; one with a stream is not", async (t) => {
  const server = await fixture(t);
  let calls = 0;
  server.route("/flaky", (_req, res) => {
    calls++;
    res.writeHead(calls % 2 === 1 ? 503 : 200, { "retry-after": "0" });
    res.end();
  });
  const http = client(t, server, (b) => b.withRetry({ backoff: 0.001 }));
  for (const body of replayable()) {
    assert.equal((await http.put("/flaky", { body })).statusCode, 200);
  }
  assert.deepEqual(server.requests.map((r) => r.body.toString()), Array(8).fill(TEXT));
  calls = 0;
  assert.equal((await http.put("/flaky", { body: streamOf(BYTES) })).statusCode, 503);
  assert.equal(calls, 1);
});

test("a 401 with a TokenAuthHook resends a replayable body and is returned for a stream", async (t) => {
  const server = await fixture(t);
  let issued = 0;
  const valid = new Set();
  const manager = new TokenManager([{
    name: "rotating",
    fetch: () => {
      const token = `tok-${++issued}`;
      valid.add(token);
      return Promise.resolve(new TokenData({ accessToken: token }));
    },
  }]);
  server.route("/upload", (req, res) => {
    const ok = valid.has(String(req.headers.authorization).replace(/^Bearer /, ""));
    res.writeHead(ok ? 200 : 401);
    res.end();
  });
  const http = client(
    t,
    server,
    (b) => b.withRetry({ maxRetries: 0 }).withTokenAuth({ tokenManager: manager }),
  );
  for (const body of replayable()) {
    await manager.getToken();
    valid.clear();
    assert.equal((await http.post("/upload", { body })).statusCode, 200);
  }
  assert.deepEqual(server.requests.map((r) => r.body.toString()), Array(8).fill(TEXT));
  await manager.getToken();
  valid.clear();
  server.requests.length = 0;
  assert.equal((await http.post("/upload", { body: streamOf(BYTES) })).statusCode, 401);
  assert.equal(server.requests.length, 1);
  assert.equal(issued, 5, "no refresh for a body that cannot be resent");
});

test("a stream body is not sent twice", async (t) => {
  const server = await fixture(t);
  const http = client(t, server);
  const request = new HttpRequest("POST", `${server.url}/echo`, { body: streamOf(BYTES) });
  await http.request(request);
  await assert.rejects(http.request(request), (error) => {
    assert.equal(error.constructor, HttpClientException);
    assert.match(error.message, /^Cannot send a ReadableStream body twice/);
    return true;
  });
  assert.equal(server.requests.length, 1);
});

test("an unknown init or option key and a bad body are a TypeError naming them", async (t) => {
  const server = await fixture(t);
  const http = client(t, server);
  assert.throws(() => new HttpRequest("POST", "/x", { bdy: "x" }), {
    name: "TypeError",
    message: /^Invalid init: unknown key "bdy"/,
  });
  await assert.rejects(http.post("/x", { json: {} }), {
    name: "TypeError",
    message: /^Invalid options: unknown key "json"/,
  });
  await assert.rejects(http.request(new HttpRequest("GET", "/x"), { sigal: null }), {
    name: "TypeError",
    message:
      /^Invalid options: unknown key "sigal" \(known: signal, readTimeout, totalTimeout, stream, onUploadProgress, onDownloadProgress\)$/,
  });
  for (const body of [42, {}, new DataView(new ArrayBuffer(1))]) {
    assert.throws(() => new HttpRequest("POST", "/x", { body }), {
      name: "TypeError",
      message: /^Invalid body: expected a string, Uint8Array, ArrayBuffer, Blob or ReadableStream/,
    });
  }
  assert.throws(() => new HttpRequest("POST", "/x", { body: "x", jsonData: 1 }), {
    name: "TypeError",
    message: "Invalid body: give either body or jsonData, not both",
  });
  assert.equal(server.requests.length, 0);
});

test("console.log() and JSON.stringify() show a body by its kind and size, never its content", () => {
  const secret = "password=hunter2";
  for (
    const [body, shown] of [
      [secret, "string(16)"],
      // The request keeps a copy of bytes: a Buffer's is a plain Uint8Array.
      [Buffer.from(secret), "Uint8Array(16)"],
      [new Blob([secret]), "Blob(16)"],
      [streamOf(BYTES), "ReadableStream"],
    ]
  ) {
    const request = new HttpRequest("PUT", "/x", { body });
    const inspected = inspect(request, { depth: 10 });
    assert.match(inspected, new RegExp(`body: '${shown.replace(/[()]/g, "\\$&")}'`));
    assert.doesNotMatch(inspected, /hunter2|68 75/);
    assert.equal(JSON.parse(JSON.stringify(request)).body, shown);
  }
});

test("toCurl() writes a text body with --data-raw and reads binary from stdin", () => {
  const text = toCurl(new HttpRequest("POST", "https://h.test/", { body: "@file" }));
  assert.match(text, /-H 'Content-Type: text\/plain;charset=UTF-8'/);
  assert.match(text, /--data-raw '@file'/);
  const binary = toCurl(new HttpRequest("POST", "https://h.test/", { body: BINARY }));
  assert.match(binary, /--data-binary @-/);
});
