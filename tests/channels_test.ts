// The tracing channels (API.md "Timings and telemetry"): `fetchline:request`
// around each call and `fetchline:exchange` around each exchange, published
// with no telemetry() at all, their messages masked views only.

import assert from "node:assert/strict";
import diagnostics from "node:diagnostics_channel";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";

const SECRET = "s3cret-channel-token";
const KEY = "q-secret-key-9";

interface Seen {
  readonly channel: string;
  readonly event: string;
  readonly message: Record<string, unknown>;
}

/** Subscribes to both channels for the test's length. */
function listen(): { seen: Seen[]; [Symbol.dispose](): void } {
  const seen: Seen[] = [];
  const off: (() => void)[] = [];
  for (const name of ["fetchline:request", "fetchline:exchange"]) {
    const channel = diagnostics.tracingChannel(name);
    const handlers = Object.fromEntries(
      ["start", "end", "asyncStart", "asyncEnd", "error"].map((event) => [
        event,
        (message: unknown) =>
          seen.push({ channel: name, event, message: message as Record<string, unknown> }),
      ]),
    );
    // deno-lint-ignore no-explicit-any
    channel.subscribe(handlers as any);
    // deno-lint-ignore no-explicit-any
    off.push(() => channel.unsubscribe(handlers as any));
  }
  return { seen, [Symbol.dispose]: () => off.forEach((stop) => stop()) };
}

Deno.test("a call with a retry and a redirect publishes one request and an exchange for each send", async () => {
  await using server = startFixtureServer();
  let calls = 0;
  server.route(
    "/flaky",
    () =>
      ++calls === 1
        ? new Response("busy", { status: 503 })
        : new Response(null, { status: 302, headers: { location: "/echo" } }),
  );
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url)
      .withRetry({ maxRetries: 2, backoff: 0.01 }).build(),
  );
  using listening = listen();
  const response = await client.get(`/flaky?api_key=${KEY}`, {
    headers: { Authorization: `Bearer ${SECRET}` },
  });
  assert.equal(response.statusCode, 200);
  const { seen } = listening;
  const calls_ = seen.filter((s) => s.channel === "fetchline:request").map((s) => s.event);
  assert.deepEqual(calls_, ["start", "end", "asyncStart", "asyncEnd"]);
  const exchanges = seen.filter((s) => s.channel === "fetchline:exchange" && s.event === "start");
  assert.deepEqual(
    exchanges.map((s) => [s.message.attempt, s.message.reason]),
    [[1, "first"], [2, "retry"], [3, "redirect"]],
  );
  const statuses = seen.filter((s) => s.channel === "fetchline:exchange" && s.event === "asyncEnd")
    .map((s) => s.message.statusCode);
  assert.deepEqual(statuses, [503, 302, 200]);
  const end = seen.find((s) => s.channel === "fetchline:request" && s.event === "asyncEnd")!;
  assert.equal(end.message.statusCode, 200);
  assert.ok((end.message.timings as { totalMs: number }).totalMs >= 0);
  const text = JSON.stringify(seen.map((s) => s.message));
  assert.ok(!text.includes(SECRET), "no credential header value");
  assert.ok(!text.includes(KEY), "no credential query value");
  assert.ok(text.includes("/flaky"));
});

Deno.test("a failed call publishes error on both channels, with the library's exception", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.dropUrl).withRetry({ maxRetries: 0 }).build(),
  );
  using listening = listen();
  await assert.rejects(client.get("/x"));
  const errors = listening.seen.filter((s) => s.event === "error");
  assert.deepEqual(errors.map((s) => s.channel), ["fetchline:exchange", "fetchline:request"]);
  for (const { message } of errors) {
    assert.equal((message.error as Error).name, "ConnectionException");
  }
});

Deno.test("with no subscriber nothing is published and the call is as before", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).build(),
  );
  assert.equal(diagnostics.tracingChannel("fetchline:request").hasSubscribers, false);
  assert.equal((await client.get("/echo")).statusCode, 200);
});
