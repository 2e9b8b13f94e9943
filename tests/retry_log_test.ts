import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  type HttpResponse,
  LoggingResponseHook,
  type RequestContext,
  type RetryInfo,
  TimeoutException,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { recordingLogger, throwsAtOnce } from "./helpers.ts";

const ID = "[0-9a-f]{8}";

/** A retry policy whose waits are recorded, not slept: jitter 0.5, so waits of 0.25 s, 0.5 s… */
function noWaits(waits: number[], maxRetries = 2) {
  return {
    maxRetries,
    random: () => 0.5,
    sleep: (ms: number) => (waits.push(ms), Promise.resolve()),
  };
}

Deno.test("withLogging() logs each retry of a response at warn before the wait", async () => {
  await using server = startFixtureServer();
  const { logger, lines } = recordingLogger();
  const waits: number[] = [];
  const logsAtWait: number[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRetry({
      ...noWaits(waits),
      sleep: (ms) => (waits.push(ms), logsAtWait.push(lines.length), Promise.resolve()),
    })
    .withLogging({ logger })
    .build();
  await using client = new HttpClient(config);
  const response = await client.get("/status/503");
  assert.equal(response.statusCode, 503);
  assert.deepEqual(waits, [250, 500]);
  const shapes = lines.map(([level, message]) => [level, message.replace(/^\[[0-9a-f]{8}\] /, "")]);
  assert.deepEqual(shapes.map(([level]) => level), [
    "info",
    "warn",
    "warn",
    "info",
    "warn",
    "warn",
    "info",
    "warn",
  ]);
  assert.equal(shapes[2]![1], "Retrying in 0.25 s (attempt 2/3): status 503");
  assert.equal(shapes[5]![1], "Retrying in 0.50 s (attempt 3/3): status 503");
  const id = lines[0]![1].slice(1, 9);
  assert.match(id, new RegExp(`^${ID}$`));
  assert.ok(lines.every(([, message]) => message.startsWith(`[${id}] `)), "one ID per call");
  assert.deepEqual(logsAtWait, [3, 6], "the retry line is written before each wait");
});

Deno.test("The retry line gives the Retry-After wait in seconds", async () => {
  await using server = startFixtureServer();
  let calls = 0;
  server.route(
    "/busy",
    () =>
      ++calls === 1
        ? new Response(null, { status: 429, headers: { "retry-after": "2" } })
        : new Response("ok"),
  );
  const { logger, lines } = recordingLogger();
  const waits: number[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRetry(noWaits(waits))
    .withResponseHook(new LoggingResponseHook({ logger }))
    .build();
  await using client = new HttpClient(config);
  assert.equal((await client.get("/busy")).statusCode, 200);
  assert.deepEqual(waits, [2000]);
  assert.deepEqual(lines.map(([level]) => level), ["warn", "warn", "info"]);
  assert.match(lines[0]![1], /^\[unknown\] Response: 429 \(/);
  assert.equal(lines[1]![1], "[unknown] Retrying in 2.00 s (attempt 2/3): status 429");
});

Deno.test("withLogging() logs each retry of an exception with its masked message", async () => {
  await using server = startFixtureServer();
  const { logger, lines } = recordingLogger();
  const waits: number[] = [];
  const config = new HttpClientConfigBuilder()
    .withRetry(noWaits(waits, 1))
    .withLogging({ logger, sensitiveKeys: ["tenant"] })
    .build();
  await using client = new HttpClient(config);
  await assert.rejects(
    client.get(`${server.dropUrl}/items?token=t0ken&tenant=acme&page=2`),
    ConnectionException,
  );
  const retry = lines.filter(([, message]) => message.includes("Retrying"));
  assert.equal(retry.length, 1);
  assert.equal(retry[0]![0], "warn");
  assert.match(
    retry[0]![1],
    new RegExp(
      `^\\[${ID}\\] Retrying in 0\\.25 s \\(attempt 2/2\\): ConnectionException: .*GET ${
        server.dropUrl.replaceAll(".", "\\.")
      }/items\\?token=\\*\\*\\*&tenant=\\*\\*\\*&page=2`,
    ),
  );
  assert.ok(lines.every(([, message]) => !message.includes("t0ken") && !message.includes("acme")));
  assert.deepEqual(lines.map(([level]) => level), ["info", "error", "warn", "info", "error"]);
});

Deno.test("onRetry goes to the response hooks for a response and to the error hooks for an exception", async () => {
  await using server = startFixtureServer();
  const told: string[] = [];
  const note = (kind: string) => (context: RequestContext, info: RetryInfo) =>
    void told.push(
      `${kind} attempt=${context.attempt} delay=${info.delayMs} ${
        info.response?.statusCode ?? (info.error as Error).name
      }`,
    );
  const config = new HttpClientConfigBuilder()
    .withRetry(noWaits([], 1))
    .withResponseHook({ afterResponse: (r: HttpResponse) => r, onRetry: note("response") })
    .withErrorHook({ onError() {}, onRetry: note("error") })
    .build();
  await using client = new HttpClient(config);
  await client.get(`${server.url}/status/502`);
  await assert.rejects(client.get(server.dropUrl), ConnectionException);
  assert.deepEqual(told, [
    "response attempt=0 delay=250 502",
    "error attempt=0 delay=250 ConnectionException",
  ]);
});

Deno.test("An onRetry that throws or is async does not stop the retry; it is awaited before the wait", async () => {
  await using server = startFixtureServer();
  const events: string[] = [];
  const config = new HttpClientConfigBuilder()
    .withRetry({ ...noWaits([], 1), sleep: () => (events.push("wait"), Promise.resolve()) })
    .withResponseHook({
      afterResponse: (r: HttpResponse) => r,
      onRetry() {
        throw new Error("observer failed");
      },
    })
    .withResponseHook({
      afterResponse: (r: HttpResponse) => r,
      async onRetry() {
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push("told");
      },
    })
    .build();
  await using client = new HttpClient(config);
  const response = await client.get(`${server.url}/status/500`);
  assert.equal(response.statusCode, 500);
  assert.equal(server.requests.length, 2);
  assert.deepEqual(events, ["told", "wait"]);
});

Deno.test("No retry line is logged for a wait that would pass the total timeout", async () => {
  await using server = startFixtureServer();
  server.route(
    "/later",
    () => new Response(null, { status: 503, headers: { "retry-after": "30" } }),
  );
  const { logger, lines } = recordingLogger();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRetry(noWaits([]))
    .withTotalTimeout(5)
    .withLogging({ logger })
    .build();
  await using client = new HttpClient(config);
  await assert.rejects(client.get("/later"), TimeoutException);
  assert.ok(lines.every(([, message]) => !message.includes("Retrying")), String(lines));
});

Deno.test("A response or error hook whose onRetry is not a function is a TypeError at once", () => {
  const builder = new HttpClientConfigBuilder();
  const bad = { afterResponse: (r: HttpResponse) => r, onRetry: "log" } as unknown as {
    afterResponse: (r: HttpResponse) => HttpResponse;
  };
  throwsAtOnce(
    () => builder.withResponseHook(bad),
    TypeError,
    "Invalid response hook: onRetry must be a function, got string",
  );
  throwsAtOnce(
    () => builder.withErrorHook({ onError() {}, onRetry: 1 } as unknown as { onError(): void }),
    TypeError,
    "Invalid error hook: onRetry must be a function, got number",
  );
});
