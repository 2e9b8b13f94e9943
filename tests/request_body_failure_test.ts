// A request body whose own source fails (the caller's stream, an async
// iterable read through one, a file that cannot be read as it is sent) is
// the caller's failure, not the network's: the call fails with an
// HttpClientException that says so, the source's error as its cause (shown
// by its class only: its text may hold anything), and is never retried.

import assert from "node:assert/strict";
import { ConnectionException, HttpClientException } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { countingClient, rejectsWith } from "./helpers.ts";

const SECRET = "s3cr3t-token";

/** A stream that gives one chunk, then fails with `error`. */
function failingStream(error: unknown): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (sent) return controller.error(error);
      sent = true;
      controller.enqueue(new TextEncoder().encode("first chunk"));
    },
  });
}

/** Checks what the caller sees of `error`, whose cause is `cause`, and that it shows no secret. */
function assertBodyFailure(error: Error, cause: unknown) {
  assert.equal(error.constructor, HttpClientException);
  assert.ok(!(error instanceof ConnectionException));
  assert.equal(error.cause, cause);
  for (const view of [error.message, String(error), JSON.stringify(error), Deno.inspect(error)]) {
    assert.doesNotMatch(view, new RegExp(SECRET));
  }
}

for (const progress of [false, true]) {
  const method = progress ? "PUT" : "POST";
  const counted = progress ? " (upload progress counted)" : "";
  Deno.test(`a ${method} whose ReadableStream body fails, fails with its error as the cause, once${counted}`, async () => {
    await using server = startFixtureServer();
    const { client, attempts } = countingClient(server);
    using _ = client;
    const cause = new Error(`disk read failed: ${SECRET}`);
    const options = { body: failingStream(cause), ...(progress ? { onUploadProgress() {} } : {}) };
    const error = await rejectsWith(
      progress ? client.put("/upload", options) : client.post("/upload", options),
      HttpClientException,
      new RegExp(`^Request body failed \\(Error\\): ${method} http://127\\.0\\.0\\.1:\\d+/upload$`),
    );
    assertBodyFailure(error, cause);
    assert.deepEqual(attempts, [0]);
  });
}

Deno.test("a body read from an async iterable that throws fails with what it threw", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  using _ = client;
  const cause = new RangeError(`no more: ${SECRET}`);
  async function* chunks() {
    yield new TextEncoder().encode("first chunk");
    throw cause;
  }
  const error = await rejectsWith(
    client.put("/upload", { body: ReadableStream.from(chunks()) }),
    HttpClientException,
    /^Request body failed \(RangeError\): PUT http:\/\/127\.0\.0\.1:\d+\/upload$/,
  );
  assertBodyFailure(error, cause);
  assert.deepEqual(attempts, [0]);
});

Deno.test("a file that cannot be read as it is sent fails the call, not retried though a file is sent again", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  using _ = client;
  const path = await Deno.makeTempFile();
  await Deno.writeTextFile(path, "from disk");
  // Gone between its opening (stat) and its first read, as the body starts.
  let removed = false;
  const onUploadProgress = () => {
    if (!removed) Deno.removeSync(path);
    removed = true;
  };
  const error = await rejectsWith(
    client.put("/upload", { files: { doc: path }, onUploadProgress }),
    HttpClientException,
    /^Request body failed \(NotFound\): PUT http:\/\/127\.0\.0\.1:\d+\/upload$/,
  );
  assert.ok(error.cause instanceof Deno.errors.NotFound);
  assert.deepEqual(attempts, [0]);
});

Deno.test("a body source that fails because the call was aborted leaves the call's own failure", async () => {
  await using server = startFixtureServer();
  server.route("/up", async (request) => (await request.arrayBuffer(), new Response("late")));
  const { client } = countingClient(server);
  using _ = client;
  const tiedTo = (signal: AbortSignal) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
        signal.addEventListener("abort", () => controller.error(signal.reason));
      },
    });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  await rejectsWith(
    client.post("/up", { body: tiedTo(controller.signal), signal: controller.signal }),
    HttpClientException,
    /^Request was aborted: POST/,
  );
});
