// Large files uploaded by path: streamed from disk as the request is sent,
// never read whole. A 256 MiB sparse file (with marks at uneven offsets, so
// a shifted or dropped chunk changes the hash) arrives byte for byte at a
// server that hashes the body as it streams, and the process's memory grows
// far less than the file's size. The bound is not tighter because the chunks
// sent and received (client and server share this process) are garbage that
// V8 collects only after a few hundred of them, whatever the file's size
// (the client's own part of it stays under 32 MiB for a 1 GiB file); a file
// read whole costs its size at least. Slow: kept out of the body tests.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { rssGrowth } from "./helpers.ts";

const MiB = 2 ** 20;
const SIZE = 256 * MiB;
/**
 * What streaming costs here (client and server, 44–64 MiB measured on a
 * loaded machine) with a margin, and under a third of the file's size.
 */
const BOUND = 80 * MiB;
const MARKS = [0, 1, 4095, 65_537, 7 * MiB + 3, 33 * MiB, SIZE - 11];

/** A sparse file of SIZE bytes with a few marks written at uneven offsets. */
async function largeFile(dir: string, name: string): Promise<string> {
  const path = `${dir}/${name}`;
  using file = await Deno.open(path, { write: true, create: true });
  await file.truncate(SIZE);
  for (const offset of MARKS) {
    await file.seek(offset, Deno.SeekMode.Start);
    await file.write(new TextEncoder().encode(`mark@${offset}`).slice(0, SIZE - offset));
  }
  return path;
}

/** The SHA-256 of `parts` in order, a path read as a stream. */
async function expectedHash(parts: (string | { path: string })[]): Promise<string> {
  const hash = createHash("sha256");
  for (const part of parts) {
    if (typeof part === "string") hash.update(part);
    else for await (const chunk of (await Deno.open(part.path)).readable) hash.update(chunk);
  }
  return hash.digest("hex");
}

/** A server that answers each request with its body's SHA-256, hashed as it streams. */
function hashingServer() {
  const received: { type: string; length: string | null }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const hash = createHash("sha256");
    for await (const chunk of request.body ?? []) hash.update(chunk);
    received.push({
      type: request.headers.get("content-type") ?? "",
      length: request.headers.get("content-length"),
    });
    return new Response(hash.digest("hex"));
  });
  return { server, received, url: `http://127.0.0.1:${server.addr.port}` };
}

Deno.test("HttpClient streams a 256 MiB file path from disk: byte for byte, memory far under its size", async () => {
  const dir = await Deno.makeTempDir();
  const { server, received, url } = hashingServer();
  const client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(60).build(),
  );
  try {
    const path = await largeFile(dir, 'big "one".bin');
    // Warm up the connection and the code paths, so that the growth measured is the upload's.
    await client.post("/", { files: { small: new Blob(["warm"]) } });
    const { result, growth } = await rssGrowth(
      () => client.post("/", { data: { note: "a\nb" }, files: { upload: path } }),
      2,
    );
    assert.ok(growth < BOUND, `RSS grew by ${(growth / MiB).toFixed(1)} MiB`);
    const boundary = /boundary=(.+)$/.exec(received[1]?.type ?? "")?.[1];
    assert.ok(boundary !== undefined, received[1]?.type);
    const expected = await expectedHash([
      `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\na\r\nb\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="big %22one%22.bin"\r\n`,
      "Content-Type: application/octet-stream\r\n\r\n",
      { path },
      `\r\n--${boundary}--\r\n`,
    ]);
    assert.equal(result.text, expected);
  } finally {
    client.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
