// Large files uploaded by path on the npm build under Node: streamed from
// disk as the request is sent, never read whole, with the Content-Length of
// the whole multipart body. A 256 MiB sparse file with marks at uneven
// offsets arrives byte for byte at a server that hashes the body as it
// streams, and the memory of the client (a process of its own) grows far
// less than the file's size: the chunks sent are garbage collected only
// after some MiB of them (a file read whole costs its size at least).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";

const MiB = 2 ** 20;
const SIZE = 256 * MiB;
// Measured: 16–27 MiB on Node 20, 18–19 on Node 22; a file read through
// Node's own Blob (fs.openAsBlob) instead grew it by 32–37 and 33–35 MiB.
const BOUND = 32 * MiB;
const MARKS = [0, 1, 4095, 65_537, 7 * MiB + 3, 133 * MiB, SIZE - 11];

async function largeFile(dir, name) {
  const path = join(dir, name);
  const file = await open(path, "w");
  try {
    await file.truncate(SIZE);
    for (const offset of MARKS) {
      const mark = Buffer.from(`mark@${offset}`).subarray(0, SIZE - offset);
      await file.write(mark, 0, mark.length, offset);
    }
  } finally {
    await file.close();
  }
  return path;
}

async function expectedHash(parts) {
  const hash = createHash("sha256");
  for (const part of parts) {
    if (typeof part === "string") hash.update(part);
    else for await (const chunk of createReadStream(part.path)) hash.update(chunk);
  }
  return hash.digest("hex");
}

/** A server that answers each request with its body's SHA-256, hashed as it streams. */
async function hashingServer() {
  const received = [];
  const server = createServer(async (req, res) => {
    const hash = createHash("sha256");
    let length = 0;
    for await (const chunk of req) {
      hash.update(chunk);
      length += chunk.length;
    }
    received.push({ headers: req.headers, length });
    res.end(hash.digest("hex"));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, received, url: `http://127.0.0.1:${server.address().port}` };
}

/** Uploads `path` to `url` from a client process of its own: its `{ growth, text }`. */
async function uploadFromChild(url, path) {
  const client = fileURLToPath(new URL("./upload_client.mjs", import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [client, url, path], {
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

test("a 256 MiB file path is streamed from disk with its Content-Length, byte for byte", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "fetchline-upload-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { server, received, url } = await hashingServer();
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const path = await largeFile(dir, 'big "one".bin');
  const { growth, text } = await uploadFromChild(url, path);
  assert.ok(growth < BOUND, `RSS grew by ${(growth / MiB).toFixed(1)} MiB`);
  const { headers, length } = received[1];
  const boundary = /boundary=(.+)$/.exec(headers["content-type"] ?? "")?.[1];
  assert.ok(boundary !== undefined, headers["content-type"]);
  assert.equal(headers["content-length"], String(length));
  assert.equal(headers["transfer-encoding"], undefined);
  const expected = await expectedHash([
    `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\na\r\nb\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="big %22one%22.bin"\r\n`,
    "Content-Type: application/octet-stream\r\n\r\n",
    { path },
    `\r\n--${boundary}--\r\n`,
  ]);
  assert.equal(text, expected);
});
