// The npm build maps Firefox's decoder failure as Deno does: a body read
// failing with the TypeError "Decoding failed." is a DecodingException, not
// retried, while Firefox's words for a body cut short stay a connection
// failure. Node is no browser: a custom fetch fails the body's read so.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ConnectionException,
  DecodingException,
  HttpClient,
  HttpClientConfigBuilder,
} from "@fetchline/fetchline";

/** A client whose fetch answers a gzip 200 whose body read fails with `message`. */
function bodyFailingWith(t, message) {
  let calls = 0;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("http://127.0.0.1:9")
    .withRetry({ backoff: 0 })
    .withFetch(() => {
      calls++;
      const body = new ReadableStream({
        pull: (controller) => controller.error(new TypeError(message)),
      });
      return Promise.resolve(new Response(body, { headers: { "content-encoding": "gzip" } }));
    })
    .build();
  const client = new HttpClient(config);
  t.after(() => client.close());
  return { client, calls: () => calls };
}

test('Firefox\'s decoder failure ("Decoding failed.") is a DecodingException, not retried', async (t) => {
  const { client, calls } = bodyFailingWith(t, "Decoding failed.");
  await assert.rejects(client.get("/api"), (error) => {
    assert.equal(error?.constructor, DecodingException, `expected DecodingException: ${error}`);
    assert.equal(
      error.message,
      "Response body could not be decoded (gzip): GET http://127.0.0.1:9/api",
    );
    assert.ok(error.cause instanceof TypeError, "the fetch's error is the cause");
    return true;
  });
  assert.equal(calls(), 1, "the same bytes would come again");
});

test("Firefox's error for a body cut short stays a connection failure, retried", async (t) => {
  const cut = "Content-Length header of network response exceeds response Body.";
  for (const message of [cut, "Decoding failed for the token"]) {
    const { client, calls } = bodyFailingWith(t, message);
    await assert.rejects(client.get("/api"), ConnectionException);
    assert.equal(calls(), 3, `1 attempt and 2 retries: ${message}`);
  }
});
