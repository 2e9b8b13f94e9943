// A retry wait longer than one timer counts (2^31 - 1 ms, about 24.8 days):
// a runtime's setTimeout given more fires at once, so a 30-day Retry-After
// that shouldRetry or maxRetryAfter lets through would resend at once, every
// retry. The wait is the wait asked for: it ends at the call's total timeout
// (at once, as any wait past it), its signal or the client's close.

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  TimeoutException,
} from "../mod.ts";
import type { RetryOptions } from "../config.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles } from "./helpers.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const THIRTY_DAYS_MS = 30 * DAY_MS;

/** The three ways a server asks for a 30-day wait, each as the status and headers that say it. */
function thirtyDayAnswers(): [name: string, status: number, headers: Record<string, string>][] {
  const later = Date.now() + THIRTY_DAYS_MS;
  return [
    ["Retry-After: 2592000", 503, { "retry-after": "2592000" }],
    ["Retry-After as an HTTP-date", 503, { "retry-after": new Date(later).toUTCString() }],
    ["X-RateLimit-Reset", 429, { "x-ratelimit-reset": String(Math.ceil(later / 1000)) }],
  ];
}

/** A fixture answering `/busy` with `status` and `headers`. */
function busyServer(status: number, headers: Record<string, string>) {
  const server = startFixtureServer();
  server.route("/busy", () => new Response("busy", { status, headers }));
  return server;
}

/** A client of `url` that retries three times, as `retry` says. */
function retryingClient(url: string, retry: RetryOptions, totalTimeout: number | null = null) {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(url).withRetry({ maxRetries: 3, ...retry })
      .withTotalTimeout(totalTimeout).build(),
  );
}

const LET_THROUGH: [string, RetryOptions][] = [
  ["shouldRetry → true", { shouldRetry: () => true }],
  ['maxRetryAfter: "2800h"', { maxRetryAfter: "2800h" }],
];

for (const [name, status, headers] of thirtyDayAnswers()) {
  for (const [how, retry] of LET_THROUGH) {
    Deno.test(`a 30-day wait (${name}, ${how}) with no deadline waits until the caller's signal ends it: one request`, async () => {
      await using server = busyServer(status, headers);
      await using client = retryingClient(server.url, retry);
      const stop = new AbortController();
      const call = client.get("/busy", { signal: stop.signal });
      // Long enough for an overflowed timer to have resent several times.
      await new Promise((resolve) => setTimeout(resolve, 300));
      stop.abort();
      await settles(rejectsWith(call, HttpClientException, /^Request was aborted: GET /));
      assert.equal(server.requests.length, 1);
    });
  }

  Deno.test(`a 30-day wait (${name}, shouldRetry → true) ends at close(): one request`, async () => {
    await using server = busyServer(status, headers);
    const client = retryingClient(server.url, { shouldRetry: () => true });
    const call = client.get("/busy");
    await new Promise((resolve) => setTimeout(resolve, 300));
    client.close();
    await settles(rejectsWith(call, HttpClientException, /^Client was closed during the request/));
    assert.equal(server.requests.length, 1);
  });

  Deno.test(`a 30-day wait (${name}, shouldRetry → true) past the totalTimeout fails at once: one request`, async () => {
    await using server = busyServer(status, headers);
    await using client = retryingClient(server.url, { shouldRetry: () => true }, 5);
    const started = performance.now();
    await rejectsWith(client.get("/busy"), TimeoutException, /would pass the totalTimeout of 5 s/);
    assert.ok(performance.now() - started < 4000, "it does not wait for the total timeout");
    assert.equal(server.requests.length, 1);
  });
}

Deno.test("a 30-day retry wait runs its whole length on a fake clock, and leaves no timer when aborted", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    let sent = 0;
    const fetch = () => {
      sent++;
      return Promise.resolve(
        new Response("busy", { status: 503, headers: { "retry-after": "2592000" } }),
      );
    };
    const client = (maxRetries: number) =>
      new HttpClient(
        new HttpClientConfigBuilder().withBaseUrl("http://127.0.0.1:9/").withFetch(fetch)
          .withTimeout(null).withRetry({ maxRetries, shouldRetry: () => true }).build(),
      );
    // The whole wait: nothing is resent a tick before it ends, once at its end.
    using once = client(1);
    const call = once.get("/");
    await clock.tickAsync(0);
    assert.equal(sent, 1);
    await clock.tickAsync(2 ** 31);
    assert.equal(sent, 1, "resent when one timer's range ran out");
    assert.equal(clock.countTimers(), 1, "the wait goes on under one timer");
    await clock.tickAsync(THIRTY_DAYS_MS - 2 ** 31 - 1);
    assert.equal(sent, 1, "resent before the wait ended");
    await clock.tickAsync(1);
    assert.equal((await call).statusCode, 503);
    assert.equal(sent, 2);
    assert.equal(clock.countTimers(), 0);
    // Aborted in its second stretch: no timer is left.
    sent = 0;
    using stopped = client(3);
    const stop = new AbortController();
    const aborted = stopped.get("/", { signal: stop.signal });
    await clock.tickAsync(2 ** 31 + DAY_MS);
    assert.equal(sent, 1);
    stop.abort();
    await rejectsWith(aborted, HttpClientException, /^Request was aborted/);
    assert.equal(clock.countTimers(), 0);
  } finally {
    clock.uninstall();
  }
});
