// An onRetry that never settles: the call still ends with its total
// timeout, its signal or the client's close, as during the wait it precedes.

import assert from "node:assert/strict";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles } from "./helpers.ts";

/** A client retrying a 503 at once, whose response hook's onRetry never settles. */
function hangingClient(baseUrl: string, totalTimeout: number | null) {
  const told: number[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(baseUrl)
    .withTotalTimeout(totalTimeout)
    .withRetry({ maxRetries: 2, backoff: 0.01, sleep: () => Promise.resolve() })
    .withResponseHook({
      afterResponse: (response) => response,
      onRetry: (_context, info) => (told.push(info.delayMs), new Promise<void>(() => {})),
    })
    .build();
  return { client: new HttpClient(config), told };
}

Deno.test("An onRetry that never settles ends with the call's totalTimeout", async () => {
  await using server = startFixtureServer();
  const { client, told } = hangingClient(server.url, 0.3);
  try {
    await rejectsWith(
      settles(client.get("/status/503")),
      TimeoutException,
      /^Request timed out after 0\.3 s \(totalTimeout\): GET http:\/\/127\.0\.0\.1:\d+\/status\/503$/,
    );
    assert.equal(told.length, 1);
    assert.equal(server.requests.length, 1);
  } finally {
    // Not `await using`: it waits for the calls in flight, which a hung one would hang.
    client.close();
  }
});

Deno.test("An onRetry that never settles ends with the caller's signal and with close()", async () => {
  await using server = startFixtureServer();
  const { client, told } = hangingClient(server.url, null);
  const controller = new AbortController();
  const aborted = client.get("/status/503", { signal: controller.signal });
  const closed = client.get("/status/503");
  while (told.length < 2) await settles(new Promise((resolve) => setTimeout(resolve, 5)));
  controller.abort();
  await rejectsWith(settles(aborted), HttpClientException, /^Request was aborted: GET /);
  client.close();
  await rejectsWith(
    settles(closed),
    HttpClientException,
    /^Client was closed during the request: GET /,
  );
});
