// Small helpers shared by the Node suite's files.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";

/** `promise`, or a failure once `ms` pass first: an unbounded wait fails the test instead of hanging it. */
export async function settles(promise, ms = 5000) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`The call did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asserts that `promise` rejects with exactly `type` and a message matching `message`; returns the error. */
export async function rejectsWith(promise, type, message) {
  let caught;
  await assert.rejects(promise, (error) => {
    caught = error;
    assert.equal(error.constructor, type, String(error));
    assert.match(error.message, message);
    return true;
  });
  return caught;
}

/** The error `promise` rejects with; a failure if it fulfils. */
export async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

/** Runs `fn`, sampling the process's RSS every `everyMs`: the peak growth over before, in bytes. */
export async function rssGrowth(fn, everyMs = 1) {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sample = () => peak = Math.max(peak, process.memoryUsage.rss());
  const id = setInterval(sample, everyMs);
  try {
    const result = await fn();
    sample();
    return { result, growth: peak - before };
  } finally {
    clearInterval(id);
  }
}

/** A client on `server` with a 5 s timeout and no retries, closed when the test `t` ends. */
export function singleAttemptClient(t, server, configure = (builder) => builder) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
    .withRetry({ maxRetries: 0 });
  const created = new HttpClient(configure(builder).build());
  t.after(() => created.close());
  return created;
}
