// File paths uploaded on the npm build under Node: the file is read through
// a file handle only as the body is sent, and the handle is closed whatever
// ends the upload (its end, the server cutting it short, the caller's
// abort). Open handles are counted in /proc/self/fd, so these run on Linux.

import assert from "node:assert/strict";
import { mkdtemp, open, readdir, readlink, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConnectionException, HttpClientException } from "@fetchline/fetchline";
import { fixture } from "./server.mjs";
import { settles, singleAttemptClient } from "./helpers.mjs";

const linuxOnly = { skip: process.platform !== "linux" && "counts handles in /proc/self/fd" };
const MiB = 2 ** 20;

/** A sparse file of `size` bytes in a temporary folder removed after the test. */
async function sparseFile(t, size) {
  const dir = await mkdtemp(join(tmpdir(), "fetchline-upload-files-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, "body.bin");
  const file = await open(path, "w");
  await file.truncate(size);
  await file.close();
  return path;
}

/** How many of this process's file descriptors are open on `path`. */
async function handlesOn(path) {
  let count = 0;
  for (const fd of await readdir("/proc/self/fd")) {
    if (await readlink(`/proc/self/fd/${fd}`).catch(() => "") === path) count++;
  }
  return count;
}

// A handle left open is closed by the garbage collector, with a warning
// (once per process): waiting for the handle to close must not hide that.
const closedByCollector = [];
process.on("warning", (warning) => {
  if (warning.code === "DEP0137") closedByCollector.push(warning);
});

/**
 * Waits (at most 2 s) until no handle is open on `path`, then asserts there
 * is none and that none was closed by the garbage collector.
 */
async function assertClosed(path) {
  for (let i = 0; i < 100 && await handlesOn(path) > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(await handlesOn(path), 0, `a handle is still open on ${path}`);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(closedByCollector, [], "a handle was left for the garbage collector to close");
}

/** A server that reads a little of each request body, then `cut`s it. */
async function cuttingServer(t, cut) {
  const server = createServer((req, res) => {
    let read = 0;
    req.on("data", (chunk) => {
      read += chunk.length;
      if (read > MiB) cut(req, res);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  return { url: `http://127.0.0.1:${server.address().port}` };
}

test("a file path's handle is closed once its body is sent", linuxOnly, async (t) => {
  const server = await fixture(t);
  const path = await sparseFile(t, 3 * MiB + 5);
  const response = await singleAttemptClient(t, server).post("/", { files: { doc: path } });
  assert.equal(response.statusCode, 200);
  assert.ok(server.requests[0].body.length > 3 * MiB + 5);
  await assertClosed(path);
});

test(
  "a file path's handle is closed when the server cuts the upload short",
  linuxOnly,
  async (t) => {
    const server = await cuttingServer(t, (req) => req.socket.destroy());
    const path = await sparseFile(t, 64 * MiB);
    const http = singleAttemptClient(t, server);
    await assert.rejects(settles(http.post("/", { files: { doc: path } })), ConnectionException);
    await assertClosed(path);
  },
);

test("a file path's handle is closed when the caller aborts the upload", linuxOnly, async (t) => {
  const controller = new AbortController();
  // The server stops reading: the upload stalls until the caller gives up.
  const server = await cuttingServer(t, (req) => (req.pause(), controller.abort()));
  const path = await sparseFile(t, 64 * MiB);
  const http = singleAttemptClient(t, server);
  const call = http.post("/", { files: { doc: path }, signal: controller.signal });
  await assert.rejects(settles(call), HttpClientException);
  await assertClosed(path);
});
