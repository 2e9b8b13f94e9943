/**
 * Uploads that never hold the whole body in memory: a file given by its
 * path in `files` is streamed from disk into a `multipart/form-data` body,
 * and a `ReadableStream` given as `body` is sent as it is produced. The
 * server reads each upload chunk by chunk and answers with the bytes it got.
 *
 * Run it with `deno task example:upload` (it writes a 20 MB file in a
 * temporary folder and removes it).
 *
 * @module
 */

import { createClient } from "@fetchline/fetchline";

const MB = 1024 * 1024;

/** `POST /upload` counts the bytes of whatever body it is sent, without keeping them. */
function startServer() {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    let bytes = 0;
    for await (const chunk of request.body ?? []) bytes += chunk.byteLength;
    const type = request.headers.get("content-type")?.split(";")[0];
    return Response.json({ bytes, type });
  });
}

/** A stream producing `megabytes` of generated data, one 1 MB chunk each time it is pulled. */
function generated(megabytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === megabytes) return controller.close();
      sent++;
      controller.enqueue(new Uint8Array(MB).fill(sent));
    },
  }, { highWaterMark: 0 });
}

/**
 * Uploads a file from disk, then a generated stream, and prints what the server received.
 *
 * @param log Where the lines go: `console.log` by default.
 * @returns The byte counts the server answered with: the multipart body's, the stream's.
 */
export async function main(log: (line: string) => void = console.log): Promise<number[]> {
  await using server = startServer();
  await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
  const folder = await Deno.makeTempDir({ prefix: "fetchline-upload-" });
  try {
    // A 20 MB file to send, written from a stream too.
    const path = `${folder}/report.bin`;
    await generated(20).pipeTo((await Deno.open(path, { write: true, createNew: true })).writable);

    // 1. A path in `files`: the client reads the file from disk as it sends
    // it, inside a multipart body (the part's filename is the path's base name).
    const multipart = await client.post("/upload", {
      data: { title: "Quarterly report" },
      files: { document: path },
    });
    const sent = multipart.json<{ bytes: number; type: string }>();
    log(`file ${path} (20 MB) → the server got ${sent.bytes} bytes of ${sent.type}`);

    // 2. A ReadableStream as the raw body: sent chunked as it is produced.
    // A stream can be read only once, so such a request is never retried.
    const raw = await client.put("/upload", {
      body: generated(30),
      headers: { "Content-Type": "application/octet-stream" },
      timeout: null, // no timeout for this upload, however long it takes
    });
    const streamed = raw.json<{ bytes: number; type: string }>();
    log(`stream (30 MB) → the server got ${streamed.bytes} bytes of ${streamed.type}`);
    return [sent.bytes, streamed.bytes];
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

if (import.meta.main) await main();
