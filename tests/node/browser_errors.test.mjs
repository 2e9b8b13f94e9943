// The npm build names a browser's fetch failure as Deno does: a bare
// TypeError that a refused port, an unreachable host and a CORS refusal
// all give. Node is no browser: a custom fetch throws each browser's error.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ConnectionException, HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";

test("a browser's fetch failure says it may be CORS, and is retried as a connection failure", async (t) => {
  for (
    const message of [
      "Failed to fetch",
      "NetworkError when attempting to fetch resource.",
      "Load failed",
    ]
  ) {
    let calls = 0;
    const config = new HttpClientConfigBuilder()
      .withBaseUrl("http://127.0.0.1:9")
      .withRetry({ backoff: 0 })
      .withFetch(() => {
        calls++;
        return Promise.reject(new TypeError(message));
      })
      .build();
    const client = new HttpClient(config);
    t.after(() => client.close());
    await assert.rejects(client.get("/api"), (error) => {
      assert.ok(error instanceof ConnectionException, `expected ConnectionException: ${error}`);
      assert.equal(
        error.message,
        `Connection failed: refused, unreachable or blocked by CORS (${message}): ` +
          "GET http://127.0.0.1:9/api",
      );
      return true;
    });
    assert.equal(calls, 3, "1 attempt and 2 retries");
  }
});
