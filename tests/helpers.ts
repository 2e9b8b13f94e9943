// Small helpers shared by the tests.

import assert from "node:assert/strict";
import type { Logger, Middleware } from "../interfaces.ts";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import type { FixtureServer } from "./fixture_server.ts";

/** A logger that keeps every line with its level. */
export function recordingLogger(): { logger: Logger; lines: [level: string, message: string][] } {
  const lines: [string, string][] = [];
  const at = (level: string) => (message: string) => void lines.push([level, message]);
  return {
    lines,
    logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
  };
}

/** Asserts that `promise` rejects with exactly `type` and a message matching `message`. */
export async function rejectsWith(
  promise: Promise<unknown>,
  type: new (...args: never[]) => Error,
  message: RegExp,
): Promise<Error> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof type, `expected ${type.name}, got ${caught}`);
  assert.equal((caught as Error).constructor, type);
  assert.match((caught as Error).message, message);
  return caught as Error;
}

/** A retry `sleep` that records the waits instead of sleeping. */
export function recordedWaits(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: (ms) => (waits.push(ms), Promise.resolve()) };
}

/** Asserts that `fn` throws exactly `type` at once, with a message matching (or equal to) `message`. */
export function throwsAtOnce(
  fn: () => unknown,
  type: new (...args: never[]) => Error,
  message: RegExp | string,
): Error {
  let caught: unknown;
  assert.throws(fn, (error: unknown) => (caught = error, true));
  assert.equal((caught as Error).constructor, type, `expected ${type.name}, got ${caught}`);
  if (typeof message === "string") assert.equal((caught as Error).message, message);
  else assert.match((caught as Error).message, message);
  return caught as Error;
}

/** A client on the fixture with the default retries (waits of a millisecond) that notes each attempt's number. */
export function countingClient(server: FixtureServer): { client: HttpClient; attempts: number[] } {
  const attempts: number[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRetry({ backoff: 0.001 })
    .withRequestHook({ beforeRequest: (r, context) => (attempts.push(context.attempt), r) })
    .build();
  return { client: new HttpClient(config), attempts };
}

/**
 * A client that makes one attempt per call: these tests are about a single
 * exchange; retries have their own tests in retry_test.ts.
 */
export function singleAttemptClient(baseUrl?: string): HttpClient {
  const builder = new HttpClientConfigBuilder().withRetry({ maxRetries: 0 });
  if (baseUrl !== undefined) builder.withBaseUrl(baseUrl);
  return new HttpClient(builder.build());
}

/** `promise`, or a failure once `ms` pass first: an unbounded wait fails the test instead of hanging it. */
export async function settles<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`The call did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fn`, sampling the process's RSS every `everyMs`: the peak growth over before, in bytes. */
export async function rssGrowth<T>(
  fn: () => Promise<T>,
  everyMs = 1,
): Promise<{ result: T; growth: number }> {
  const before = Deno.memoryUsage().rss;
  let peak = before;
  const sample = () => peak = Math.max(peak, Deno.memoryUsage().rss);
  const id = setInterval(sample, everyMs);
  try {
    const result = await fn();
    sample();
    return { result, growth: peak - before };
  } finally {
    clearInterval(id);
  }
}

/**
 * Waits up to `ms` for `child` to exit, killing it when it has not; whether
 * it ended by itself, and its stdout and stderr together (both piped).
 */
export async function exitWithin(
  child: Deno.ChildProcess,
  ms: number,
): Promise<{ ended: boolean; text: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ended = await Promise.race([
    child.status.then(() => true),
    new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms)),
  ]);
  clearTimeout(timer);
  if (!ended) child.kill();
  const { stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return { ended, text: decoder.decode(stdout) + decoder.decode(stderr) };
}

/** A client on `url` with `middleware` and no retries, unless `configure` says otherwise. */
export function clientWith(
  url: string,
  middleware: Middleware,
  configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder = (b) => b,
): HttpClient {
  const builder = new HttpClientConfigBuilder().withBaseUrl(url).withRetry({ maxRetries: 0 })
    .withMiddleware(middleware);
  return new HttpClient(configure(builder).build());
}

/** A server that answers 503 to everything, counting what it gets. */
export function stormServer(): {
  counts: { requests: number };
  origin: string;
  [Symbol.asyncDispose](): Promise<void>;
} {
  const counts = { requests: 0 };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => (counts.requests++, new Response("down", { status: 503 })),
  );
  return {
    counts,
    origin: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
