import assert from "node:assert/strict";
import {
  ConnectionException,
  EventStreamException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  type ServerSentEvent,
  TimeoutException,
} from "../mod.ts";
import { eventSource } from "../sse.ts";
import { type FixtureServer, type RecordedRequest, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

const encoder = new TextEncoder();
const SSE = { "content-type": "text/event-stream" };

/**
 * Answers `path` with an event stream: `body(n, recorded)` gives the text
 * of the n-th connection (from 0), sent at once, then the body ends.
 */
function feed(
  server: FixtureServer,
  path: string,
  body: (n: number, recorded: RecordedRequest) => string,
): RecordedRequest[] {
  const seen: RecordedRequest[] = [];
  server.route(path, (_request, recorded) => {
    seen.push(recorded);
    return new Response(body(seen.length - 1, recorded), { headers: SSE });
  });
  return seen;
}

/** A body that sends `text` and then stays open until the client leaves; `cancelled` tells when it did. */
function heldBody(text: string) {
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => onCancel = resolve);
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(encoder.encode(text)),
    cancel: () => onCancel(),
  });
  return { stream, cancelled };
}

function sseClient(server: FixtureServer, configure = (b: HttpClientConfigBuilder) => b) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
    .withRetry({ maxRetries: 0 });
  return new HttpClient(configure(builder).build());
}

/** The first `count` events of `events`, then leaves the loop. */
async function take(events: AsyncIterable<ServerSentEvent>, count: number) {
  const taken: ServerSentEvent[] = [];
  if (count === 0) return taken;
  for await (const event of events) {
    if (taken.push(event) === count) break;
  }
  return taken;
}

Deno.test("eventSource() reconnects when the body ends, sending the last event ID, after the server's retry", async () => {
  await using server = startFixtureServer();
  const seen = feed(server, "/feed", (n) =>
    [
      "retry: 20\nid: 1\ndata: a\n\ndata: b\n\n", // b keeps the ID 1
      "data: c\n\nid: 2\n\n", // c too, across the reconnection; then an ID without data
      "id: 3\ndata: d\n\n",
    ][n] ?? "");
  await using client = sseClient(server);
  // A reconnection time of a minute: only the server's 20 ms lets the test end in time.
  await using feedReader = eventSource(client, "/feed", { retryDelay: 60 });
  const events = await settles(take(feedReader, 4));
  assert.deepEqual(events.map((e) => [e.data, e.id]), [["a", "1"], ["b", "1"], ["c", "1"], [
    "d",
    "3",
  ]]);
  assert.equal(feedReader.lastEventId, "3");
  assert.deepEqual(seen.map((r) => r.headers["last-event-id"]), [undefined, "1", "2"]);
  for (const recorded of seen) {
    assert.equal(recorded.method, "GET");
    assert.equal(recorded.headers.accept, "text/event-stream");
    assert.equal(recorded.headers["cache-control"], "no-cache");
  }
});

Deno.test("eventSource() resumes after the last event dispatched, not an id of a block the drop cut", async () => {
  await using server = startFixtureServer();
  const seen = feed(server, "/feed", (n) => n === 0 ? "id: 1\ndata: a\n\nid: 2\ndata: b\n" : "");
  await using client = sseClient(server);
  const reader = eventSource(client, "/feed", { retryDelay: 0.01, maxReconnects: 1 });
  await rejectsWith(settles(take(reader, 2)), ConnectionException, /maxReconnects/);
  assert.deepEqual(seen.map((r) => r.headers["last-event-id"]), [undefined, "1"]);
  assert.equal(reader.lastEventId, "1");
});

Deno.test("eventSource() sends lastEventId on the first connection, and no header for an empty one", async () => {
  await using server = startFixtureServer();
  const seen = feed(
    server,
    "/feed",
    (_n, r) => `data: ${r.headers["last-event-id"] ?? "none"}\n\n`,
  );
  await using client = sseClient(server);
  assert.equal((await take(eventSource(client, "/feed", { lastEventId: "41" }), 1))[0]!.data, "41");
  assert.equal((await take(eventSource(client, "/feed", { lastEventId: "" }), 1))[0]!.data, "none");
  assert.equal(seen.length, 2);
});

Deno.test("eventSource() sends an ID that is not ASCII as its UTF-8 bytes", async () => {
  await using server = startFixtureServer();
  const seen = feed(server, "/feed", (n) => n === 0 ? "id: é-1\ndata: a\n\n" : "data: b\n\n");
  await using client = sseClient(server);
  assert.equal(
    (await settles(take(eventSource(client, "/feed", { retryDelay: 0.01 }), 2))).length,
    2,
  );
  const sent = seen[1]!.headers["last-event-id"]!;
  assert.equal(new TextDecoder().decode(Uint8Array.from(sent, (c) => c.charCodeAt(0))), "é-1");
});

Deno.test("eventSource() ends on a 204 without an error and does not reconnect", async () => {
  await using server = startFixtureServer();
  server.route("/feed", () => new Response(null, { status: 204 }));
  await using client = sseClient(server);
  assert.deepEqual(
    await settles(Array.fromAsync(eventSource(client, "/feed", { retryDelay: 0.01 }))),
    [],
  );
  assert.equal(server.requests.length, 1);
});

Deno.test("eventSource() fails on a status other than 2xx with EventStreamException, masked, not reconnecting", async () => {
  await using server = startFixtureServer();
  server.route("/feed", () => new Response("down", { status: 500 }));
  using client = sseClient(server); // closed at the end even when a call is left in flight
  const reader = eventSource(client, "/feed", { params: { token: "s3cret" }, retryDelay: 0.01 });
  const error = await rejectsWith(
    settles(Array.fromAsync(reader)),
    EventStreamException,
    /^Event stream refused with status 500: GET .*\/feed\?token=\*\*\*$/,
  ) as EventStreamException;
  assert.equal(error.response.statusCode, 500);
  assert.ok(!JSON.stringify(error).includes("s3cret"));
  assert.equal(server.requests.length, 1);
  // The refused body was cancelled: no call is left in flight for the client to wait for.
  await settles(client[Symbol.asyncDispose]());
});

Deno.test("eventSource() fails on a Content-Type other than text/event-stream, or none", async () => {
  await using server = startFixtureServer();
  server.route(
    "/text",
    () => new Response("data: a\n\n", { headers: { "content-type": "text/plain" } }),
  );
  server.route("/none", () => new Response(new Blob([encoder.encode("data: a\n\n")])));
  server.route(
    "/params",
    () =>
      new Response("data: a\n\n", {
        headers: { "content-type": "Text/Event-Stream; charset=utf-8" },
      }),
  );
  using client = sseClient(server); // closed at the end even when a call is left in flight
  const options = { retryDelay: 0.01 };
  const text = await rejectsWith(
    settles(Array.fromAsync(eventSource(client, "/text", options))),
    EventStreamException,
    /^Event stream refused with Content-Type "text\/plain" \(expected text\/event-stream\): GET /,
  ) as EventStreamException;
  assert.equal(text.response.header("content-type"), "text/plain");
  await rejectsWith(
    settles(Array.fromAsync(eventSource(client, "/none", options))),
    EventStreamException,
    /Content-Type none/,
  );
  // The media type is compared without regard to case, its parameters ignored.
  assert.equal((await take(eventSource(client, "/params"), 1))[0]!.data, "a");
  assert.equal(server.requests.length, 3);
  await settles(client[Symbol.asyncDispose]());
});

Deno.test("eventSource() reconnects when a connection cannot be made, up to maxReconnects, with the last error as cause", async () => {
  await using server = startFixtureServer();
  const attempts: number[] = [];
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.dropUrl).withRetry({ maxRetries: 0 })
      .withRequestHook({ beforeRequest: (r) => (attempts.push(1), r) }).build(),
  );
  const error = await rejectsWith(
    settles(Array.fromAsync(eventSource(client, "/feed", { retryDelay: 0.01, maxReconnects: 2 }))),
    ConnectionException,
    /^Event stream gave up after 2 reconnections without an event \(maxReconnects\): GET \/feed$/,
  );
  assert.ok(error.cause instanceof ConnectionException, String(error.cause));
  assert.equal(attempts.length, 3);
});

Deno.test("eventSource() counts only reconnections in a row without an event", async () => {
  await using server = startFixtureServer();
  const seen = feed(server, "/feed", (n) => n < 5 ? `id: ${n}\ndata: ${n}\n\n` : ": nothing\n\n");
  await using client = sseClient(server);
  const reader = eventSource(client, "/feed", { retryDelay: 0.01, maxReconnects: 1 });
  const received: string[] = [];
  const error = await rejectsWith(
    settles((async () => {
      for await (const event of reader) received.push(event.data);
    })()),
    ConnectionException,
    /maxReconnects/,
  );
  assert.deepEqual(received, ["0", "1", "2", "3", "4"]);
  // Ended by the server each time: the last end is the cause.
  assert.match(String((error.cause as Error).message), /^Event stream was ended by the server: /);
  assert.equal(seen.length, 6);
  assert.equal(seen.at(-1)!.headers["last-event-id"], "4");
});

Deno.test("eventSource() reconnects when the body fails mid-stream or stalls past readTimeout", async () => {
  await using server = startFixtureServer();
  let n = 0;
  server.route("/feed", () => {
    const text = encoder.encode(`id: ${++n}\ndata: ${n}\n\n`);
    const stalls = n === 2;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(text);
        // The first connection fails mid-body; the second stalls until the client leaves.
        if (!stalls) setTimeout(() => controller.error(new Error("dropped")), 20);
      },
    });
    return new Response(body, { headers: SSE });
  });
  await using client = sseClient(server);
  const reader = eventSource(client, "/feed", { retryDelay: 0.01, readTimeout: 0.2 });
  const events = await settles(take(reader, 3));
  assert.deepEqual(events.map((e) => e.data), ["1", "2", "3"]);
  assert.deepEqual(server.requests.map((r) => r.headers["last-event-id"]), [undefined, "1", "2"]);
});

Deno.test("eventSource(): break cancels the current connection and sends nothing more", async () => {
  await using server = startFixtureServer();
  const body = heldBody("data: a\n\n");
  server.route("/feed", () => new Response(body.stream, { headers: SSE }));
  await using client = sseClient(server);
  assert.equal((await take(eventSource(client, "/feed"), 1)).length, 1);
  await settles(body.cancelled);
  assert.equal(server.requests.length, 1);
});

Deno.test("EventStream.close() ends the wait between connections at once, without an error", async () => {
  await using server = startFixtureServer();
  feed(server, "/feed", () => "data: a\n\n");
  await using client = sseClient(server);
  const reader = eventSource(client, "/feed", { retryDelay: 60 });
  const iterator = reader[Symbol.asyncIterator]();
  assert.equal((await iterator.next()).value?.data, "a");
  const next = iterator.next(); // the body ends: the reader waits a minute to reconnect
  await new Promise((resolve) => setTimeout(resolve, 50));
  await settles(reader.close());
  assert.deepEqual(await settles(next), { done: true, value: undefined });
  assert.equal(server.requests.length, 1);
  await reader.close(); // again: nothing
});

Deno.test("EventStream.close() while a connection is open cancels it and ends the loop", async () => {
  await using server = startFixtureServer();
  const body = heldBody("data: a\n\n");
  server.route("/feed", () => new Response(body.stream, { headers: SSE }));
  await using client = sseClient(server);
  const reader = eventSource(client, "/feed");
  const iterator = reader[Symbol.asyncIterator]();
  assert.equal((await iterator.next()).value?.data, "a");
  const next = iterator.next(); // waits for an event that never comes
  await settles(reader.close());
  assert.equal((await settles(next)).done, true);
  await settles(body.cancelled);
});

Deno.test("eventSource() stops with HttpClientException when the client closes, even in a wait", async () => {
  await using server = startFixtureServer();
  feed(server, "/feed", () => "data: a\n\n");
  const client = sseClient(server);
  const iterator = eventSource(client, "/feed", { retryDelay: 60 })[Symbol.asyncIterator]();
  assert.equal((await iterator.next()).value?.data, "a");
  const next = iterator.next();
  await new Promise((resolve) => setTimeout(resolve, 50));
  client.close();
  await rejectsWith(settles(next), HttpClientException, /^Client was closed during the request: /);
  // A reader of a closed client sends nothing.
  await rejectsWith(
    Array.fromAsync(eventSource(client, "/feed")),
    HttpClientException,
    /^Client is closed: GET \/feed$/,
  );
  assert.equal(server.requests.length, 1);
});

Deno.test("eventSource() stops with HttpClientException on the caller's signal, its reason as cause", async () => {
  await using server = startFixtureServer();
  const body = heldBody("data: a\n\n");
  server.route("/feed", () => new Response(body.stream, { headers: SSE }));
  await using client = sseClient(server);
  const controller = new AbortController();
  const reader = eventSource(client, "/feed", { signal: controller.signal });
  const received: string[] = [];
  const reason = new Error("enough");
  const error = await rejectsWith(
    settles((async () => {
      for await (const event of reader) {
        received.push(event.data);
        controller.abort(reason);
      }
    })()),
    HttpClientException,
    /^Request was aborted: GET \/feed$/,
  );
  assert.equal(error.cause, reason);
  assert.deepEqual(received, ["a"]);
  await settles(body.cancelled);
  // An aborted signal stops it before anything is sent.
  await rejectsWith(
    Array.fromAsync(eventSource(client, "/feed", { signal: controller.signal })),
    HttpClientException,
    /aborted/,
  );
  assert.equal(server.requests.length, 1);
});

Deno.test("eventSource() stops with TimeoutException at totalTimeout, the reader's whole life", async () => {
  await using server = startFixtureServer();
  const seen = feed(server, "/feed", (n) => `retry: 10\ndata: ${n}\n\n`);
  await using client = sseClient(server);
  const reader = eventSource(client, "/feed", { totalTimeout: 0.3, maxReconnects: Infinity });
  const received: string[] = [];
  await rejectsWith(
    settles((async () => {
      for await (const event of reader) received.push(event.data);
    })()),
    TimeoutException,
    /^Event stream timed out after 0.3 s \(totalTimeout\): GET \/feed$/,
  );
  // Several connections, each under the one limit, each one's event read
  // once and in order; the last may be cut by the limit after the server
  // counted it and before its event came.
  assert.ok(seen.length >= 2, `${seen.length} connections`);
  assert.ok(seen.length - received.length <= 1, `${received.length} events of ${seen.length}`);
  assert.deepEqual(received, received.map((_, n) => String(n)));
});

Deno.test("eventSource() checks its options when called, naming the option", () => {
  const client = new HttpClient();
  const events = (options: Record<string, unknown>) => () =>
    eventSource(client, "http://127.0.0.1/", options);
  throwsAtOnce(
    events({ retryDelays: 1 }),
    TypeError,
    /^Invalid options: unknown key "retryDelays"/,
  );
  throwsAtOnce(events({ jsonData: {} }), TypeError, /unknown key "jsonData"/);
  throwsAtOnce(events({ stream: true }), TypeError, /unknown key "stream"/);
  throwsAtOnce(events({ retryDelay: -1 }), RangeError, /^Invalid retryDelay: /);
  throwsAtOnce(events({ retryDelay: Infinity }), RangeError, /^Invalid retryDelay: /);
  throwsAtOnce(events({ maxReconnects: 1.5 }), RangeError, /^Invalid maxReconnects: /);
  throwsAtOnce(events({ maxReconnects: -1 }), RangeError, /^Invalid maxReconnects: /);
  throwsAtOnce(events({ lastEventId: "a\nb" }), TypeError, /^Invalid lastEventId: /);
  throwsAtOnce(events({ lastEventId: 7 }), TypeError, /^Invalid lastEventId: /);
  throwsAtOnce(events({ readTimeout: 0 }), TypeError, /^Invalid readTimeout: /);
  throwsAtOnce(events({ totalTimeout: "1" }), TypeError, /^Invalid totalTimeout: /);
  throwsAtOnce(events({ signal: {} }), TypeError, /^Invalid signal: /);
  throwsAtOnce(events({ headers: { "last-event-id": "s3cret" } }), TypeError, /lastEventId option/);
  throwsAtOnce(events({ headers: { "X-A": "a\nb" } }), TypeError, /X-A/);
  eventSource(client, "http://127.0.0.1/", {
    maxReconnects: Infinity,
    retryDelay: 0,
    totalTimeout: null,
  });
});

Deno.test("eventSource() refuses a client that is not an HttpClient, naming it", () => {
  const notClient = { request: () => Promise.reject(new Error("sent")), closed: false };
  for (const client of [notClient, null, undefined, "http://127.0.0.1/"]) {
    throwsAtOnce(
      () => eventSource(client as never, "http://127.0.0.1/"),
      TypeError,
      /^Invalid client: expected an HttpClient$/,
    );
  }
});

Deno.test("EventStream is read by one loop: a second one is a TypeError", async () => {
  await using server = startFixtureServer();
  feed(server, "/feed", () => "data: a\n\n");
  await using client = sseClient(server);
  await using reader = eventSource(client, "/feed");
  const first = reader[Symbol.asyncIterator]();
  throwsAtOnce(
    () => reader[Symbol.asyncIterator](),
    TypeError,
    /^Event stream is already being read: GET \/feed$/,
  );
  assert.equal((await first.next()).value?.data, "a");
});
