// Resumed bodies (API.md "Adaptive controls", `withRetry({ resume })`)
// against a real server on loopback that cuts a body after K bytes (a TCP
// reset) and answers byte ranges: byte-exact bodies, buffered and
// streamed, one body for the progress callbacks and the middleware, and
// the refusals (a changed resource, a wrong Content-Range, a weak ETag).

import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { Buffer } from "node:buffer";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import type { MiddlewareFunction } from "../interfaces.ts";

interface CutOptions {
  /** The body's size. */
  size: number;
  /** Where each of the first answers breaks off (bytes of the body sent), in turn. */
  cuts: number[];
  /** The validator headers of each answer. */
  validator?: string;
  /** How a range is answered: rightly, with a 200 (changed), or a Content-Range at 0. */
  ranges?: "right" | "changed" | "wrong";
  /** How many requests are first answered 503 (before the answers `cuts` counts). */
  unavailable?: number;
}

/** The body: a byte pattern that a splice at a wrong offset would break. */
function content(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

/** A raw HTTP/1.1 server over node:net (a reset mid-body is its resetAndDestroy()). */
async function cuttingServer(options: CutOptions) {
  const body = Buffer.from(content(options.size));
  const seen: { range: string | undefined; ifRange: string | undefined }[] = [];
  const sockets = new Set<Socket>();
  let answer = 0;
  let unavailable = options.unavailable ?? 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (data) => {
      head += data.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const lines = head.split("\r\n");
      head = "";
      const field = (name: string) =>
        lines.find((line) => line.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1)
          .trim();
      const range = field("range");
      seen.push({ range, ifRange: field("if-range") });
      if (unavailable-- > 0) {
        socket.end(
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        return;
      }
      const cut = options.cuts[answer++];
      const validator = options.validator ?? 'ETag: "v1"';
      let status = "200 OK";
      let from = 0;
      const extra: string[] = [];
      if (range !== undefined && options.ranges !== "changed") {
        from = Number(/bytes=(\d+)-/.exec(range)![1]);
        status = "206 Partial Content";
        const start = options.ranges === "wrong" ? 0 : from;
        extra.push(`Content-Range: bytes ${start}-${body.length - 1}/${body.length}`);
        from = start;
      }
      const part = body.subarray(from);
      socket.write(
        [
          `HTTP/1.1 ${status}`,
          `Content-Length: ${part.length}`,
          "Accept-Ranges: bytes",
          validator,
          ...extra,
          "",
          "",
        ].join("\r\n"),
      );
      if (cut === undefined) socket.write(part);
      else {socket.write(part.subarray(0, cut), () =>
          setTimeout(() =>
            socket.resetAndDestroy(), 20));}
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/file`,
    seen,
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function client(configure = (builder: HttpClientConfigBuilder) => builder) {
  return new HttpClient(
    configure(new HttpClientConfigBuilder().withRetry({ maxRetries: 3, backoff: 0.001 }))
      .build(),
  );
}

Deno.test("resume: a buffered body cut three times is read whole, byte-exact, with Range and If-Range", async () => {
  const size = 256 * 1024;
  await using server = await cuttingServer({ size, cuts: [50_000, 30_000, 100_000] });
  const seenByMiddleware: number[] = [];
  const watch: MiddlewareFunction = async (request, next) => {
    const response = await next(request);
    seenByMiddleware.push(response.content.byteLength);
    return response;
  };
  await using http = client((b) => b.withMiddleware(watch));
  const progress: number[] = [];
  const response = await http.get(server.url, {
    onDownloadProgress: ({ transferredBytes }) => void progress.push(transferredBytes),
  });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.content, content(size));
  assert.deepEqual(server.seen.map(({ range }) => range), [
    undefined,
    "bytes=50000-",
    "bytes=80000-",
    "bytes=180000-",
  ]);
  assert.ok(server.seen.slice(1).every(({ ifRange }) => ifRange === '"v1"'));
  // One exchange for the middleware, one body for the progress.
  assert.deepEqual(seenByMiddleware, [size]);
  assert.equal(progress.at(-1), size);
  assert.ok(
    progress.every((at, i) => i === 0 || at >= progress[i - 1]!),
    "progress never goes back",
  );
});

Deno.test("resume: a streamed body cut after its head is read whole, byte-exact", async () => {
  const size = 300_000;
  await using server = await cuttingServer({ size, cuts: [70_000] });
  await using http = client();
  const response = await http.stream("GET", server.url);
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  const whole = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) whole.set(chunk, at), at += chunk.byteLength;
  assert.deepEqual(whole, content(size));
  assert.equal(server.seen.length, 2);
});

Deno.test("resume: a 200 in answer (the resource changed) fails the read, naming why", async () => {
  await using server = await cuttingServer({ size: 100_000, cuts: [10_000], ranges: "changed" });
  await using http = client((b) => b.withRetry({ maxRetries: 1 }));
  await assert.rejects(
    http.get(server.url),
    (error) =>
      error instanceof HttpClientException && /changed/.test(error.message) &&
      /byte 10000/.test(error.message),
  );
});

Deno.test("resume: a Content-Range that does not start where the body broke fails the read", async () => {
  await using server = await cuttingServer({ size: 100_000, cuts: [10_000], ranges: "wrong" });
  await using http = client((b) => b.withRetry({ maxRetries: 1 }));
  await assert.rejects(
    http.get(server.url),
    (error) =>
      error instanceof HttpClientException && /does not start at 10000/.test(error.message),
  );
  // Never retried from the start: the refusal is no connection failure.
  assert.equal(server.seen.length, 2);
});

Deno.test("resume: no resume with a weak ETag or resume: false: the call is retried from the start", async () => {
  for (
    const [validator, configure] of [
      ['ETag: W/"v1"', (b: HttpClientConfigBuilder) => b],
      ['ETag: "v1"', (b: HttpClientConfigBuilder) => b.withRetry({ resume: false })],
    ] as const
  ) {
    await using server = await cuttingServer({ size: 100_000, cuts: [10_000], validator });
    await using http = client(configure);
    const response = await http.get(server.url);
    assert.deepEqual(response.content, content(100_000));
    assert.deepEqual(server.seen.map(({ range }) => range), [undefined, undefined]);
  }
});

Deno.test("resume: each resume takes one of the call's maxRetries: a third break with maxRetries 2 fails the read", async () => {
  await using server = await cuttingServer({ size: 100_000, cuts: [1_000, 2_000, 3_000] });
  await using http = client((b) => b.withRetry({ maxRetries: 2, backoff: 0.001 }));
  // Two resumes (at 1000 and 3000) spend the call's two retries: the third break ends it.
  await assert.rejects(http.get(server.url), HttpClientException);
  assert.deepEqual(server.seen.map(({ range }) => range), [
    undefined,
    "bytes=1000-",
    "bytes=3000-",
  ]);
});

Deno.test("resume: a resume spends a retry: the break of the resume is not retried from the start", async () => {
  await using server = await cuttingServer({ size: 100_000, cuts: [1_000, 2_000] });
  await using http = client((b) => b.withRetry({ maxRetries: 1, backoff: 0.001 }));
  await assert.rejects(http.get(server.url), HttpClientException);
  assert.deepEqual(server.seen.map(({ range }) => range), [
    undefined,
    "bytes=1000-",
  ]);
});

Deno.test("resume: a retry after a 503 and the resumes share the call's maxRetries", async () => {
  {
    // The 503's retry and one resume: two retries of two.
    await using server = await cuttingServer({ size: 100_000, cuts: [1_000], unavailable: 1 });
    await using http = client((b) => b.withRetry({ maxRetries: 2, backoff: 0.001 }));
    const response = await http.get(server.url);
    assert.deepEqual(response.content, content(100_000));
    assert.deepEqual(server.seen.map(({ range }) => range), [undefined, undefined, "bytes=1000-"]);
  }
  {
    // The 503's retry spent the one retry: the break is not resumed.
    await using server = await cuttingServer({ size: 100_000, cuts: [1_000], unavailable: 1 });
    await using http = client((b) => b.withRetry({ maxRetries: 1, backoff: 0.001 }));
    await assert.rejects(http.get(server.url), HttpClientException);
    assert.deepEqual(server.seen.map(({ range }) => range), [undefined, undefined]);
  }
});

Deno.test("withRetry({ resume }) refuses what is not a boolean", () => {
  assert.throws(
    () => new HttpClientConfigBuilder().withRetry({ resume: "yes" as never }),
    /Invalid resume/,
  );
});
