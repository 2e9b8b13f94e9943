// response.timings (API.md "Timings and telemetry"): on every response,
// buffered or streamed, frozen, in milliseconds; a phase the runtime cannot
// tell is undefined. Against delayed servers: the order of the phases and
// generous bounds, never exact milliseconds.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpRequest, HttpResponse } from "../mod.ts";
import { concurrency } from "../traffic.ts";
import { HarRecorder } from "../har.ts";
import { startFixtureServer } from "./fixture_server.ts";

const PHASES = [
  "queueMs",
  "dnsMs",
  "connectMs",
  "tlsMs",
  "sendMs",
  "waitMs",
  "downloadMs",
  "totalMs",
] as const;

/** Every phase either undefined or a finite number >= 0: never NaN. */
function assertWellFormed(timings: HttpResponse["timings"]): void {
  assert.ok(Object.isFrozen(timings));
  for (const phase of PHASES) {
    const value = timings[phase];
    if (value === undefined) continue;
    assert.ok(Number.isFinite(value) && value >= 0, `${phase} is ${value}`);
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server whose head comes after 150 ms and whose body's second half 150 ms later. */
function slowServer() {
  const server = startFixtureServer();
  server.route("/slow", async () => {
    await delay(150);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("first "));
        timer = setTimeout(() => {
          controller.enqueue(new TextEncoder().encode("second"));
          controller.close();
        }, 150);
      },
      cancel: () => clearTimeout(timer),
    });
    return new Response(body);
  });
  return server;
}

function clientOf(url: string, configure = (b: HttpClientConfigBuilder) => b): HttpClient {
  return new HttpClient(configure(new HttpClientConfigBuilder().withBaseUrl(url)).build());
}

Deno.test("a buffered response's timings tell the wait for the head and the body's download", async () => {
  await using server = slowServer();
  await using client = clientOf(server.url);
  const response = await client.get("/slow");
  assert.equal(response.text, "first second");
  const { timings } = response;
  assertWellFormed(timings);
  assert.ok(timings.waitMs >= 120 && timings.waitMs < 5000, `waitMs ${timings.waitMs}`);
  assert.ok(timings.downloadMs! >= 50 && timings.downloadMs! < 5000, `${timings.downloadMs}`);
  assert.ok(timings.totalMs >= timings.waitMs + timings.downloadMs!);
  assert.equal(timings.queueMs, undefined);
});

Deno.test("a streamed response's downloadMs and totalMs come once its body ended", async () => {
  await using server = slowServer();
  await using client = clientOf(server.url);
  const response = await client.stream("GET", "/slow");
  const atHead = response.timings;
  assertWellFormed(atHead);
  assert.ok(atHead.waitMs >= 120, `waitMs ${atHead.waitMs}`);
  assert.equal(atHead.downloadMs, undefined);
  assert.ok(atHead.totalMs >= atHead.waitMs);
  const read = await response.read();
  assert.equal(read.text, "first second");
  for (const timings of [response.timings, read.timings]) {
    assertWellFormed(timings);
    assert.ok(timings.downloadMs! >= 50 && timings.downloadMs! < 5000, `${timings.downloadMs}`);
    assert.ok(timings.totalMs >= atHead.totalMs + timings.downloadMs! - 1);
  }
  assert.equal(atHead.downloadMs, undefined, "the view read at the head stays as it was");
});

Deno.test("a response's timings are frozen and tell no phase Deno's fetch cannot tell", async () => {
  await using server = startFixtureServer();
  await using client = clientOf(server.url);
  const { timings } = await client.get("/echo");
  assert.ok(Object.isFrozen(timings));
  assert.throws(() => ((timings as { waitMs: number }).waitMs = 1), TypeError);
  for (const phase of ["dnsMs", "connectMs", "tlsMs", "sendMs", "queueMs"] as const) {
    assert.equal(timings[phase], undefined, phase);
    assert.ok(!(phase in timings), phase);
  }
  assert.equal(timings.reused, undefined);
  assertWellFormed(timings);
});

Deno.test("queueMs is the time an exchange waited in the concurrency queue", async () => {
  await using server = slowServer();
  const limit = concurrency({ max: 1 });
  await using client = clientOf(server.url, (b) => b.withMiddleware(limit));
  const [first, second] = await Promise.all([client.get("/slow"), client.get("/slow")]);
  assert.equal(first.timings.queueMs, undefined);
  assert.ok(second.timings.queueMs! >= 250, `queueMs ${second.timings.queueMs}`);
  assert.ok(second.timings.totalMs >= second.timings.queueMs! + second.timings.waitMs);
  assertWellFormed(second.timings);
});

Deno.test("a redirect's response tells the timings of its last hop", async () => {
  await using server = slowServer();
  server.route("/hop", async () => {
    await delay(200);
    return new Response(null, { status: 302, headers: { location: "/echo" } });
  });
  await using client = clientOf(server.url);
  const response = await client.get("/hop");
  assert.equal(response.statusCode, 200);
  assert.ok(response.timings.totalMs < response.elapsedMs - 100, "the hop's wait is not in it");
});

Deno.test("a response made with new HttpResponse has its elapsedMs as waitMs and totalMs, or the timings given", () => {
  const request = new HttpRequest("GET", "http://127.0.0.1/");
  const init = {
    statusCode: 200,
    headers: {},
    content: new Uint8Array(),
    url: request.url,
    request,
  };
  const made = new HttpResponse({ ...init, elapsedMs: 4 });
  assert.deepEqual({ ...made.timings }, { waitMs: 4, totalMs: 4 });
  const given = new HttpResponse({ ...init, elapsedMs: 4, timings: { waitMs: 1, totalMs: 3 } });
  assert.deepEqual({ ...given.timings }, { waitMs: 1, totalMs: 3 });
  assert.throws(
    () => new HttpResponse({ ...init, elapsedMs: 4, timings: { waitMs: NaN, totalMs: 3 } }),
    (error) => error instanceof RangeError && /timings\.waitMs/.test(error.message),
  );
  assert.throws(
    () => new HttpResponse({ ...init, elapsedMs: 4, timings: { bogus: 1 } as never }),
    (error) => error instanceof TypeError && /bogus/.test(error.message),
  );
});

Deno.test("the HAR recorder's timings are the response's: the queue's wait as blocked", async () => {
  await using server = slowServer();
  const recorder = new HarRecorder();
  const limit = concurrency({ max: 1 });
  await using client = clientOf(server.url, (b) => b.withMiddleware(recorder, limit));
  const [, second] = await Promise.all([client.get("/slow"), client.get("/slow")]);
  const entries = recorder.toHar().log.entries;
  assert.equal(entries.length, 2);
  const queued = entries.find((entry) => entry.timings.blocked !== -1)!;
  assert.equal(queued.timings.blocked, second.timings.queueMs);
  assert.equal(queued.timings.wait, second.timings.waitMs);
  assert.equal(queued.timings.receive, second.timings.downloadMs);
  assert.ok(queued.timings.receive >= 50, `receive ${queued.timings.receive}`);
  assert.ok(queued.time >= queued.timings.blocked! + queued.timings.wait);
  assert.equal(entries.filter((entry) => entry.timings.blocked === -1).length, 1);
});

Deno.test("on Deno a network policy's pool tells its relay's lookup and connection, only to the request that had the target to itself", async () => {
  await using server = slowServer();
  const resolve = async () => (await delay(60), ["127.0.0.1"]);
  await using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withNetworkPolicy({ allow: ["fetchline-test.invalid"], resolve })
      .build(),
  );
  const url = `http://fetchline-test.invalid:${new URL(server.url).port}`;
  const { timings } = await client.get(`${url}/echo`);
  assertWellFormed(timings);
  assert.ok(timings.dnsMs! >= 50, `dnsMs ${timings.dnsMs}: the policy's lookup`);
  assert.ok(timings.connectMs !== undefined && timings.connectMs < timings.totalMs);
  assert.equal(timings.reused, false);
  assert.equal(timings.tlsMs, undefined);
  // Two at once: each connection's phases could be the other's, so neither tells any.
  const both = await Promise.all([client.get(`${url}/slow`), client.get(`${url}/slow`)]);
  for (const { timings } of both) {
    assert.equal(timings.dnsMs, undefined);
    assert.equal(timings.connectMs, undefined);
    assert.ok(timings.waitMs >= 100, `waitMs ${timings.waitMs}`);
  }
});

Deno.test("a body that could be resumed keeps the phases its transport told", async () => {
  await using server = startFixtureServer();
  server.route(
    "/file",
    () => new Response("whole", { headers: { etag: '"v1"', "accept-ranges": "bytes" } }),
  );
  await using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withNetworkPolicy({ allow: ["127.0.0.1/32"] })
      .build(),
  );
  const response = await client.get(`${server.url}/file`);
  assert.equal(response.text, "whole");
  assert.ok(response.timings.connectMs !== undefined, "the relay's connection phase");
  assert.equal(response.timings.reused, false);
});
