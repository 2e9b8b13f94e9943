// Upload and download progress on the npm build under Node (undici
// dispatch()): buffered and streamed downloads with and without a
// Content-Length, a gzip body, uploads of a string, bytes, a file path and
// a stream; 0 first, the total last, monotonic; a throwing callback fails
// the call with its own error.

import assert from "node:assert/strict";
import { test } from "node:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { createServer } from "node:http";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { fixture } from "./server.mjs";

const SIZE = 200_000;
const BODY = Uint8Array.from({ length: SIZE }, (_, i) => i % 251);

function client(t, server) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5);
  const created = new HttpClient(builder.build());
  t.after(() => created.close());
  return created;
}

/** `BODY` as a web stream in pieces of 40 000 bytes. */
function pieces() {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= SIZE) return controller.close();
      controller.enqueue(BODY.slice(offset, offset += 40_000));
    },
  });
}

async function routes(t) {
  const server = await fixture(t);
  server.route("/sized", (_req, res) => {
    res.writeHead(200, { "content-length": String(SIZE) });
    res.end(BODY);
  });
  server.route("/unsized", async (_req, res) => {
    res.writeHead(200);
    for (let offset = 0; offset < SIZE; offset += 40_000) {
      res.write(BODY.slice(offset, offset + 40_000));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  const compressed = gzipSync(BODY);
  server.route("/gzip", (_req, res) => {
    res.writeHead(200, { "content-encoding": "gzip", "content-length": compressed.length });
    res.end(compressed);
  });
  server.route("/upload", (_req, res, recorded) => res.end(String(recorded.body.length)));
  return server;
}

function assertProgress(calls, total, known) {
  assert.ok(calls.length >= 2, `expected a start and an end, got ${calls.length}`);
  assert.deepEqual(
    calls[0],
    known === undefined
      ? { transferredBytes: 0 }
      : { transferredBytes: 0, totalBytes: known, percent: known === 0 ? 1 : 0 },
  );
  assert.deepEqual(calls.at(-1), { transferredBytes: total, totalBytes: total, percent: 1 });
  for (let i = 1; i < calls.length; i++) {
    assert.ok(calls[i].transferredBytes >= calls[i - 1].transferredBytes, "monotonic");
    if (i < calls.length - 1) assert.equal(calls[i].totalBytes, known);
  }
}

test("onDownloadProgress: buffered with and without Content-Length, gzip, streamed", async (t) => {
  const http = client(t, await routes(t));
  for (const [path, known] of [["/sized", SIZE], ["/unsized", undefined], ["/gzip", undefined]]) {
    const calls = [];
    const response = await http.get(path, { onDownloadProgress: (p) => void calls.push(p) });
    assert.equal(response.content.byteLength, SIZE, path);
    assertProgress(calls, SIZE, known);
  }
  const calls = [];
  const response = await http.stream("GET", "/unsized", {
    onDownloadProgress: (p) => void calls.push(p),
  });
  let read = 0;
  for await (const chunk of response.body) {
    read += chunk.byteLength;
    assert.equal(calls.at(-1).transferredBytes, read);
  }
  assertProgress(calls, SIZE, undefined);
});

test("onUploadProgress: a string, bytes, a file path and a stream", async (t) => {
  const http = client(t, await routes(t));
  const dir = await mkdtemp(join(tmpdir(), "fetchline-progress-"));
  t.after(() => rm(dir, { recursive: true }));
  const path = join(dir, "body.bin");
  await writeFile(path, BODY);
  const cases = [
    ["string", { body: "é".repeat(1000) }, 2000, 2000],
    ["bytes", { body: BODY }, SIZE, SIZE],
    ["stream", { body: pieces() }, SIZE, undefined],
  ];
  for (const [name, options, total, known] of cases) {
    const calls = [];
    const response = await http.post("/upload", {
      ...options,
      onUploadProgress: (p) => void calls.push(p),
    });
    assert.equal(response.text, String(total), name);
    assertProgress(calls, total, known);
  }
  const calls = [];
  const response = await http.post("/upload", {
    files: { file: path },
    onUploadProgress: (p) => void calls.push(p),
  });
  const size = Number(response.text);
  assert.ok(size > SIZE);
  // The multipart body's length is known from the parts' sizes before it is read.
  assertProgress(calls, size, size);
});

test("a progress callback that throws fails the call with its own error", async (t) => {
  const http = client(t, await routes(t));
  const failure = new Error("stop here");
  const stop = (progress) => {
    if (progress.transferredBytes > 0) throw failure;
  };
  await assert.rejects(http.get("/unsized", { onDownloadProgress: stop }), (e) => e === failure);
  // An upload cut short is seen by a server of its own, which expects the reset.
  const resets = [];
  const uploads = createServer((req, res) => {
    req.on("error", (error) => resets.push(error.code));
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  await new Promise((resolve) => uploads.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => (uploads.closeAllConnections(), uploads.close(resolve))));
  const target = `http://127.0.0.1:${uploads.address().port}/upload`;
  await assert.rejects(
    http.post(target, { body: pieces(), onUploadProgress: stop }),
    (e) => e === failure,
  );
  await assert.rejects(
    http.post(target, { body: BODY, onUploadProgress: stop }),
    (e) => e === failure,
  );
  const streamed = await http.stream("GET", "/unsized", { onDownloadProgress: stop });
  await assert.rejects(streamed.read(), (e) => e === failure);
});
