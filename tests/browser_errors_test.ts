// A browser's fetch fails a refused port, an unreachable host and a response
// or preflight its CORS check refused alike, with a bare TypeError, and the
// page is never told which. Deno's fetch is no browser's: a custom fetch
// throws each browser's error as it is.

import assert from "node:assert/strict";
import {
  ConnectionException,
  DecodingException,
  HttpClient,
  HttpClientConfigBuilder,
} from "../mod.ts";

/** A client whose fetch fails every call with `message`, counting the calls. */
function failingWith(message: string): { client: HttpClient; calls: () => number } {
  let calls = 0;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("http://127.0.0.1:9")
    .withRetry({ backoff: 0 })
    .withFetch(() => {
      calls++;
      return Promise.reject(new TypeError(message));
    })
    .build();
  return { client: new HttpClient(config), calls: () => calls };
}

Deno.test("a browser's fetch failure says it may be CORS, and is retried as a connection failure", async () => {
  for (
    const message of [
      "Failed to fetch",
      "NetworkError when attempting to fetch resource.",
      "Load failed",
    ]
  ) {
    const { client, calls } = failingWith(message);
    await using _ = client;
    await assert.rejects(client.get("/api"), (error: unknown) => {
      assert.ok(error instanceof ConnectionException, `expected ConnectionException: ${error}`);
      assert.equal(
        error.message,
        `Connection failed: refused, unreachable or blocked by CORS (${message}): ` +
          "GET http://127.0.0.1:9/api",
      );
      assert.ok(error.cause instanceof TypeError);
      return true;
    });
    assert.equal(calls(), 3, "1 attempt and 2 retries");
  }
});

Deno.test("a message that only contains a browser's words is not named as one", async () => {
  const { client } = failingWith("Failed to fetch the token: quota exceeded");
  await using _ = client;
  await assert.rejects(
    client.get("/api"),
    /^ConnectionException: Connection failed \(Failed to fetch the token: quota exceeded\): GET /,
  );
});

/**
 * A client whose fetch answers every call with a gzip-encoded 200 whose body
 * read fails with a TypeError saying `message`, counting the calls.
 */
function bodyFailingWith(
  message: string,
  headers: HeadersInit = { "content-encoding": "gzip" },
): { client: HttpClient; calls: () => number } {
  let calls = 0;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("http://127.0.0.1:9")
    .withRetry({ backoff: 0 })
    .withFetch(() => {
      calls++;
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => controller.error(new TypeError(message)),
      });
      return Promise.resolve(new Response(body, { headers }));
    })
    .build();
  return { client: new HttpClient(config), calls: () => calls };
}

/** A call whose body read fails with Firefox's decoder failure: `message` once, never retried. */
async function assertDecodingFailure(headers: HeadersInit | undefined, message: string) {
  const { client, calls } = bodyFailingWith("Decoding failed.", headers);
  await using _ = client;
  await assert.rejects(client.get("/api"), (error: unknown) => {
    assert.equal(error?.constructor, DecodingException, `expected DecodingException: ${error}`);
    assert.equal((error as Error).message, message);
    assert.ok((error as Error).cause instanceof TypeError, "the fetch's error is the cause");
    return true;
  });
  assert.equal(calls(), 1, "the same bytes would come again");
}

Deno.test('Firefox\'s decoder failure ("Decoding failed.") is a DecodingException, not retried', async () => {
  await assertDecodingFailure(
    undefined,
    "Response body could not be decoded (gzip): GET http://127.0.0.1:9/api",
  );
});

Deno.test("Firefox's error for a body cut short stays a connection failure, retried", async () => {
  const cut = "Content-Length header of network response exceeds response Body.";
  for (const message of [cut, "Decoding failed for the token"]) {
    const { client, calls } = bodyFailingWith(message);
    await using _ = client;
    await assert.rejects(client.get("/api"), ConnectionException);
    assert.equal(calls(), 3, `1 attempt and 2 retries: ${message}`);
  }
});

Deno.test("Firefox's decoder failure is a DecodingException where a page cannot see the body's coding", async () => {
  // A server that does not expose Content-Encoding to CORS: the page's
  // response has none, and the client reads the body as the browser hands it.
  await assertDecodingFailure({}, "Response body could not be decoded: GET http://127.0.0.1:9/api");
});
