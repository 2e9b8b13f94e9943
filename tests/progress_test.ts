import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, type Progress } from "../mod.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";

const SIZE = 200_000;
const BODY = new Uint8Array(SIZE).map((_, i) => i % 251);

function client(server: FixtureServer): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5).build(),
  );
}

/** A body of `BODY` in pieces of `piece` bytes, as a stream. */
function pieces(piece = 40_000): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= SIZE) return controller.close();
      controller.enqueue(BODY.slice(offset, offset += piece));
    },
  });
}

async function gzipped(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function routes(server: FixtureServer, compressed: Uint8Array<ArrayBuffer>): void {
  server.route("/sized", () => new Response(BODY));
  server.route("/unsized", () => new Response(pieces()));
  server.route(
    "/gzip",
    () => new Response(compressed, { headers: { "content-encoding": "gzip" } }),
  );
  server.route("/upload", async (request) => {
    const bytes = await request.bytes();
    return new Response(String(bytes.byteLength));
  });
}

/** Checks the calls: 0 first, `total` last with percent 1, monotonic, `known` totals before the end. */
function assertProgress(calls: Progress[], total: number, known: number | undefined): void {
  assert.ok(calls.length >= 2, `expected at least a start and an end, got ${calls.length}`);
  assert.deepEqual(
    calls[0],
    known === undefined
      ? { transferredBytes: 0 }
      : { transferredBytes: 0, totalBytes: known, percent: known === 0 ? 1 : 0 },
  );
  assert.deepEqual(calls.at(-1), { transferredBytes: total, totalBytes: total, percent: 1 });
  for (let i = 1; i < calls.length; i++) {
    assert.ok(calls[i]!.transferredBytes >= calls[i - 1]!.transferredBytes, "monotonic");
    if (i < calls.length - 1) assert.equal(calls[i]!.totalBytes, known);
  }
}

Deno.test("onDownloadProgress reports a buffered body from 0 to its total, with and without Content-Length, and a gzip body's total only at the end", async () => {
  await using server = startFixtureServer();
  routes(server, await gzipped(BODY));
  await using http = client(server);
  for (const [path, known] of [["/sized", SIZE], ["/unsized", undefined], ["/gzip", undefined]]) {
    const calls: Progress[] = [];
    const response = await http.get(path as string, {
      onDownloadProgress: (progress) => void calls.push(progress),
    });
    assert.equal(response.content.byteLength, SIZE, String(path));
    assertProgress(calls, SIZE, known as number | undefined);
    if (path === "/unsized") assert.ok(calls.length >= 3, "a call per chunk");
  }
});

Deno.test("onDownloadProgress reports a streamed body as the reader pulls it, and read() too", async () => {
  await using server = startFixtureServer();
  routes(server, await gzipped(BODY));
  await using http = client(server);
  const calls: Progress[] = [];
  await using response = await http.stream("GET", "/unsized", {
    onDownloadProgress: (progress) => void calls.push(progress),
  });
  assert.equal(calls.length, 0, "nothing before the first read");
  let read = 0;
  for await (const chunk of response.body) {
    read += chunk.byteLength;
    assert.equal(calls.at(-1)!.transferredBytes, read, "told as each chunk is pulled");
  }
  assertProgress(calls, SIZE, undefined);
  const sized: Progress[] = [];
  await using whole = await http.stream("GET", "/sized", {
    onDownloadProgress: (progress) => void sized.push(progress),
  });
  assert.equal((await whole.read()).content.byteLength, SIZE);
  assertProgress(sized, SIZE, SIZE);
});

Deno.test("onUploadProgress reports a string, bytes, a file path and a stream from 0 to the total", async () => {
  await using server = startFixtureServer();
  routes(server, new Uint8Array());
  await using http = client(server);
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, BODY);
    const text = "é".repeat(1000);
    const cases = [
      ["string", { body: text }, 2000, 2000],
      ["bytes", { body: BODY }, SIZE, SIZE],
      ["stream", { body: pieces() }, SIZE, undefined],
    ] as const;
    for (const [name, options, total, known] of cases) {
      const calls: Progress[] = [];
      const response = await http.post("/upload", {
        ...options,
        onUploadProgress: (progress) => void calls.push(progress),
      });
      assert.equal(response.text, String(total), name);
      assertProgress(calls, total, known);
      if (name === "stream") assert.ok(calls.length >= 6, "a call per chunk");
    }
    const calls: Progress[] = [];
    const response = await http.post("/upload", {
      files: { file: path },
      onUploadProgress: (progress) => void calls.push(progress),
    });
    const size = Number(response.text);
    assert.ok(size > SIZE);
    // The multipart body's length is known from the parts' sizes before it is read.
    assertProgress(calls, size, size);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("A progress callback that throws fails the call with its own error, not retried", async () => {
  await using server = startFixtureServer();
  routes(server, new Uint8Array());
  await using http = client(server);
  const failure = new Error("stop here");
  const stop = (progress: Progress) => {
    if (progress.transferredBytes > 0) throw failure;
  };
  const download = http.get("/unsized", { onDownloadProgress: stop });
  await assert.rejects(download, (error) => error === failure);
  const upload = http.post("/upload", { body: pieces(), onUploadProgress: stop });
  await assert.rejects(upload, (error) => error === failure);
  const whole = http.post("/upload", { body: BODY, onUploadProgress: stop });
  await assert.rejects(whole, (error) => error === failure);
  await using streamed = await http.stream("GET", "/unsized", { onDownloadProgress: stop });
  await assert.rejects(streamed.read(), (error) => error === failure);
  // Four calls, none retried (a stream upload cut short is not recorded at all).
  assert.ok(server.requests.length <= 4, `${server.requests.length} requests`);
});

Deno.test("A progress option that is not a function is refused with a TypeError naming it", async () => {
  await using server = startFixtureServer();
  await using http = client(server);
  await assert.rejects(
    // @ts-expect-error: a JavaScript caller's mistake
    http.get("/sized", { onDownloadProgress: 1 }),
    new TypeError("Invalid onDownloadProgress: expected a function"),
  );
});
