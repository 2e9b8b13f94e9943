// Multipart uploads on the npm build under Node (undici dispatch()): the
// body carries its Content-Length, a file path is opened anew on every
// attempt, a directory path fails the call naming the field, and a body
// whose source fails (a stream, a file read) fails the call once.

import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "@fetchline/fetchline";
import { fixture } from "./server.mjs";
import { rejectsWith } from "./helpers.mjs";

function client(t, server, retry = { maxRetries: 0 }) {
  const built = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5).withRetry(retry).build(),
  );
  t.after(() => built.close());
  return built;
}

async function tempDir(t) {
  const dir = await mkdtemp(join(tmpdir(), "fetchline-uploads-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The content of the single file part of a recorded multipart body. */
function filePart(recorded) {
  const boundary = /boundary=(.+)$/.exec(recorded.headers["content-type"])?.[1];
  assert.ok(boundary !== undefined, recorded.headers["content-type"]);
  const body = recorded.body.toString("latin1");
  return body.slice(body.lastIndexOf("\r\n\r\n") + 4, body.indexOf(`\r\n--${boundary}--\r\n`));
}

test("a multipart body with a file path carries its Content-Length", async (t) => {
  const server = await fixture(t);
  const path = join(await tempDir(t), 'r"e\nport.txt');
  await writeFile(path, "from disk");
  await client(t, server).post("/upload", { data: { note: "n" }, files: { doc: path } });
  const [recorded] = server.requests;
  assert.equal(recorded.headers["content-length"], String(recorded.body.length));
  assert.equal(recorded.headers["transfer-encoding"], undefined);
  assert.match(recorded.body.toString(), /name="doc"; filename="r%22e%0Aport\.txt"\r\n/);
  assert.equal(filePart(recorded), "from disk");
});

test("a file path is opened anew on every attempt: a retry sends the file as it is then", async (t) => {
  const server = await fixture(t);
  const path = join(await tempDir(t), "doc.txt");
  await writeFile(path, "first");
  server.route("/upload", async (_req, res) => {
    if (server.requests.length > 1) return res.end("ok");
    await writeFile(path, "second, longer");
    res.writeHead(503).end();
  });
  const http = client(t, server, { backoff: 0.001 });
  const response = await http.put("/upload", { files: { doc: path } });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(server.requests.map(filePart), ["first", "second, longer"]);
});

test("a file path that is a directory fails with HttpClientException naming the field", async (t) => {
  const server = await fixture(t);
  const dir = await tempDir(t);
  await assert.rejects(
    client(t, server).post("/upload", { files: { doc: dir } }),
    (error) =>
      error instanceof HttpClientException && /^Cannot read files\.doc from /.test(error.message),
  );
  assert.equal(server.requests.length, 0);
});

// A body whose own source fails is the caller's failure, not the network's:
// the caller's error is the cause, shown by its class only, never retried.
const SECRET = "s3cr3t-token";

/** A client that retries with waits of a millisecond and notes each attempt. */
function countingClient(t, server) {
  const attempts = [];
  const built = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
      .withRetry({ backoff: 0.001 })
      .withRequestHook({ beforeRequest: (r, context) => (attempts.push(context.attempt), r) })
      .build(),
  );
  t.after(() => built.close());
  return { http: built, attempts };
}

test("a ReadableStream body that fails fails the call with its error as the cause, once", async (t) => {
  const server = await fixture(t);
  const { http, attempts } = countingClient(t, server);
  const cause = new Error(`disk read failed: ${SECRET}`);
  let sent = false;
  const body = new ReadableStream({
    pull(controller) {
      if (sent) return controller.error(cause);
      sent = true;
      controller.enqueue(new TextEncoder().encode("first chunk"));
    },
  });
  const error = await rejectsWith(
    http.put("/upload", { body }),
    HttpClientException,
    /^Request body failed \(Error\): PUT http:\/\/127\.0\.0\.1:\d+\/upload$/,
  );
  assert.equal(error.cause, cause);
  assert.doesNotMatch(JSON.stringify(error), new RegExp(SECRET));
  assert.deepEqual(attempts, [0]);
});

test("a file that cannot be read as it is sent fails the call, not retried though a file is sent again", async (t) => {
  const server = await fixture(t);
  const { http, attempts } = countingClient(t, server);
  const path = join(await tempDir(t), "doc.txt");
  await writeFile(path, "from disk");
  // Gone between its opening (stat) and its first read, as the body starts.
  let removed = false;
  const onUploadProgress = () => {
    if (!removed) rmSync(path);
    removed = true;
  };
  const error = await rejectsWith(
    http.put("/upload", { files: { doc: path }, onUploadProgress }),
    HttpClientException,
    /^Request body failed \(Error\): PUT http:\/\/127\.0\.0\.1:\d+\/upload$/,
  );
  assert.equal(error.cause.code, "ENOENT");
  assert.deepEqual(attempts, [0]);
});
