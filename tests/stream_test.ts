import assert from "node:assert/strict";
import {
  EventStreamException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  HttpResponse,
  ResponseNotReadException,
  TimeoutException,
  TokenAuthHook,
  TokenData,
  TokenManager,
} from "../mod.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A body the test writes piece by piece: `write()` sends a piece now,
 * `end()` ends it, and `cancelled` resolves once the server saw the client
 * give the body up (its stream cancelled).
 */
function serverBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => onCancel = resolve);
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => onCancel(),
  });
  return {
    stream,
    cancelled,
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
  };
}

/** Resolves with `promise`, or fails the test after `ms` (a wait that must end). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still waiting after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function streamClient(
  server: FixtureServer,
  configure = (b: HttpClientConfigBuilder) => b,
): HttpClient {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
    .withRetry({ maxRetries: 0 });
  return new HttpClient(configure(builder).build());
}

Deno.test("stream() resolves at the head and each chunk reaches the caller before the server writes the next", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/chunks", () => new Response(body.stream));
  await using client = streamClient(server);
  await using response = await client.stream("GET", "/chunks");
  assert.equal(response.statusCode, 200);
  assert.equal(response.isStreamed, true);
  const reader = response.body.getReader();
  body.write("first");
  assert.equal(decoder.decode((await reader.read()).value), "first");
  body.write("second");
  assert.equal(decoder.decode((await reader.read()).value), "second");
  body.end();
  assert.equal((await reader.read()).done, true);
});

Deno.test("request(request, { stream: true }) streams as stream() does; the body is readable once", async () => {
  await using server = startFixtureServer();
  server.route("/text", () => new Response("whole"));
  await using client = streamClient(server);
  await using response = await client.request(new HttpRequest("GET", `${server.url}/text`), {
    stream: true,
  });
  assert.equal(response.isStreamed, true);
  assert.equal(decoder.decode(await new Response(response.body).bytes()), "whole");
  throwsAtOnce(() => response.body, HttpClientException, /already read/);
});

Deno.test("stream() gives NDJSON lines with lines() as they are written", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/ndjson", () => new Response(body.stream));
  await using client = streamClient(server);
  await using response = await client.stream("GET", "/ndjson");
  const lines = response.lines();
  body.write('{"n": 1}\n{"n"');
  assert.deepEqual(JSON.parse((await lines.next()).value!), { n: 1 });
  body.write(": 2}\r\n");
  assert.deepEqual(JSON.parse((await lines.next()).value!), { n: 2 });
  body.end();
  assert.equal((await lines.next()).done, true);
});

Deno.test("stream() gives Server-Sent Events with events() as they are written", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route(
    "/sse",
    () => new Response(body.stream, { headers: { "content-type": "text/event-stream" } }),
  );
  await using client = streamClient(server);
  await using response = await client.stream("GET", "/sse");
  const events = response.events();
  body.write("event: tick\ndata: 1\nid: a\n\n");
  assert.deepEqual((await events.next()).value, {
    event: "tick",
    data: "1",
    id: "a",
    retry: undefined,
  });
  body.write("data: 2\n\n");
  assert.deepEqual((await events.next()).value, {
    event: "message",
    data: "2",
    id: "a",
    retry: undefined,
  });
  body.end();
  assert.equal((await events.next()).done, true);
});

Deno.test("content, text and json() of a streamed response throw ResponseNotReadException until read()", async () => {
  await using server = startFixtureServer();
  server.route("/json", () => Response.json({ ok: true }));
  await using client = streamClient(server);
  await using response = await client.stream("GET", "/json");
  // Each also fails to compile (tests/types/stream_types_test.ts): the runtime check is for JavaScript.
  // @ts-expect-error: a streamed response's type has no content
  throwsAtOnce(() => response.content, ResponseNotReadException, /read\(\)/);
  // @ts-expect-error: nor text
  throwsAtOnce(() => response.text, ResponseNotReadException, /read\(\)/);
  // @ts-expect-error: nor json()
  throwsAtOnce(() => response.json(), ResponseNotReadException, /read\(\)/);
  const buffered = await response.read();
  assert.equal(await response.read(), buffered);
  assert.equal(buffered.isStreamed, false);
  assert.deepEqual(buffered.json(), { ok: true });
  assert.equal(buffered.statusCode, 200);
});

Deno.test("read() of a streamed response holds maxResponseBytes", async () => {
  await using server = startFixtureServer();
  server.route("/big", () => new Response(new Uint8Array(100)));
  await using client = streamClient(server, (b) => b.withMaxResponseBytes(10));
  await using response = await client.stream("GET", "/big");
  await rejectsWith(response.read(), HttpClientException, /maxResponseBytes \(10\)/);
});

Deno.test("await using on a streamed response cancels its unread body: the server sees it given up", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/endless", () => new Response(body.stream));
  // Closed without waiting: a body left unread must not hang the test.
  using client = streamClient(server);
  {
    await using response = await client.stream("GET", "/endless");
    body.write("some");
    assert.equal(response.statusCode, 200);
  }
  await within(body.cancelled, 5000, "the server to see the body cancelled");
});

Deno.test("close() fails the reader of a streamed body with HttpClientException", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/endless", () => new Response(body.stream));
  const client = streamClient(server);
  await using response = await client.stream("GET", "/endless");
  const reader = response.body.getReader();
  const reading = reader.read();
  client.close();
  await rejectsWith(
    within(reading, 5000, "the read to fail"),
    HttpClientException,
    /Client was closed/,
  );
  await within(body.cancelled, 5000, "the server to see the body cancelled");
});

for (const length of [true, false]) {
  Deno.test(
    `close() fails the waiting read of a large streamed body ${
      length ? "with" : "without"
    } a Content-Length on a client with every deadline off`,
    async () => {
      await using server = startFixtureServer();
      const body = serverBody();
      server.route(
        "/big",
        () => new Response(body.stream, { headers: length ? { "content-length": "300000" } : {} }),
      );
      // No timeout, no read timeout, no signal: only the client's close can
      // end the read.
      const client = streamClient(server, (b) => b.withTimeout(null).withReadTimeout(null));
      body.write("x".repeat(100_000));
      await using response = await client.stream("GET", "/big");
      const reader = response.body.getReader();
      for (let got = 0; got < 100_000;) got += (await reader.read()).value!.length;
      const reading = reader.read();
      client.close();
      await rejectsWith(
        within(reading, 5000, "the read to fail"),
        HttpClientException,
        /Client was closed/,
      );
      await within(body.cancelled, 5000, "the server to see the body cancelled");
    },
  );
}

Deno.test("await using a client waits for a streamed body to be read", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/slow", () => new Response(body.stream));
  const client = streamClient(server);
  await using response = await client.stream("GET", "/slow");
  let disposed = false;
  const disposing = client[Symbol.asyncDispose]().then(() => disposed = true);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(disposed, false);
  body.write("rest");
  body.end();
  assert.equal((await response.read()).text, "rest");
  await within(disposing, 5000, "the client to close");
  assert.equal(client.closed, true);
});

Deno.test("readTimeout fails a stalled streamed body with TimeoutException naming it", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/stall", () => new Response(body.stream));
  await using client = streamClient(server, (b) => b.withReadTimeout(0.2));
  await using response = await client.stream("GET", "/stall");
  const reader = response.body.getReader();
  body.write("one");
  assert.equal(decoder.decode((await reader.read()).value), "one");
  await rejectsWith(
    within(reader.read(), 5000, "the read to time out"),
    TimeoutException,
    /readTimeout/,
  );
  await within(body.cancelled, 5000, "the server to see the body cancelled");
});

Deno.test("readTimeout: null lets a streamed body stall; the call's timeout and totalTimeout end at the head", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/stall", () => new Response(body.stream));
  await using client = streamClient(
    server,
    (b) => b.withTimeout(0.2).withTotalTimeout(0.3).withReadTimeout(0.2),
  );
  await using response = await client.stream("GET", "/stall", { readTimeout: null });
  const reading = response.read();
  await new Promise((resolve) => setTimeout(resolve, 500));
  body.write("late");
  body.end();
  assert.equal((await reading).text, "late");
});

Deno.test("stream() retries a 503 on its head and cancels the 503's body", async () => {
  await using server = startFixtureServer();
  const unavailable = serverBody();
  let calls = 0;
  server.route(
    "/flaky",
    () => ++calls === 1 ? new Response(unavailable.stream, { status: 503 }) : new Response("fine"),
  );
  await using client = streamClient(server, (b) => b.withRetry({ maxRetries: 2, backoff: 0.001 }));
  await using response = await client.stream("GET", "/flaky");
  assert.equal(response.statusCode, 200);
  assert.equal((await response.read()).text, "fine");
  await within(unavailable.cancelled, 5000, "the 503's body to be cancelled");
});

Deno.test("stream() refreshes a token on a 401's head and cancels the 401's body", async () => {
  await using server = startFixtureServer();
  let issued = 0;
  const refused = serverBody();
  server.route(
    "/api",
    (request) =>
      request.headers.get("authorization") === "Bearer tok-2"
        ? new Response("data")
        : new Response(refused.stream, { status: 401 }),
  );
  const manager = new TokenManager([{
    name: "api",
    fetch: () =>
      Promise.resolve(new TokenData({ accessToken: `tok-${++issued}`, expiresIn: 3600 })),
  }]);
  await using client = streamClient(server, (b) => b.withAuthHook(new TokenAuthHook(manager)));
  await using response = await client.stream("GET", "/api");
  assert.equal(response.statusCode, 200);
  assert.equal((await response.read()).text, "data");
  await within(refused.cancelled, 5000, "the 401's body to be cancelled");
});

Deno.test("stream() follows redirects on their heads", async () => {
  await using server = startFixtureServer();
  server.route("/from", () => new Response("moved", { status: 302, headers: { location: "/to" } }));
  server.route("/to", () => new Response("arrived"));
  await using client = streamClient(server);
  await using response = await client.stream("GET", "/from");
  assert.equal(response.url, `${server.url}/to`);
  assert.equal((await response.read()).text, "arrived");
});

Deno.test("response hooks see a streamed response unread, and one may return it read", async () => {
  await using server = startFixtureServer();
  server.route("/hooked", () => new Response("hooked body", { status: 500 }));
  const seen: boolean[] = [];
  await using client = streamClient(
    server,
    (b) =>
      b.withLogging({ logBody: true, logger: { debug() {}, info() {}, warn() {}, error() {} } })
        .withResponseHook({
          async afterResponse(response: HttpResponse) {
            seen.push(response.isStreamed);
            throwsAtOnce(() => response.content, ResponseNotReadException, /read\(\)/);
            return await response.read();
          },
        }),
  );
  await using response = await client.stream("GET", "/hooked");
  assert.deepEqual(seen, [true]);
  assert.equal(response.isStreamed, false);
  assert.ok(response instanceof HttpResponse);
  assert.equal(response.text, "hooked body");
});

Deno.test("the caller's signal aborts a streamed body after its head", async () => {
  await using server = startFixtureServer();
  const body = serverBody();
  server.route("/endless", () => new Response(body.stream));
  await using client = streamClient(server);
  const controller = new AbortController();
  await using response = await client.stream("GET", "/endless", { signal: controller.signal });
  const reading = response.body.getReader().read();
  controller.abort();
  await rejectsWith(within(reading, 5000, "the read to fail"), HttpClientException, /aborted/);
  await within(body.cancelled, 5000, "the server to see the body cancelled");
});

Deno.test("response.events() and lines() refuse at the call as eventSource() does: masked, the body left unread", async () => {
  await using server = startFixtureServer();
  server.route("/down", () => new Response("the reason", { status: 503 }));
  server.route("/text", () => new Response("data: a\n\n"));
  server.route("/none", () => new Response(null, { status: 204 }));
  await using client = streamClient(server);
  for (const read of ["events", "lines"] as const) {
    await using response = await client.stream("GET", "/down", { params: { token: "s3cret" } });
    const error = throwsAtOnce(
      () => response[read](),
      EventStreamException,
      new RegExp(
        `^${read === "events" ? "Event" : "Line"} stream refused with status 503: ` +
          "GET http://127\\.0\\.0\\.1:\\d+/down\\?token=\\*\\*\\*$",
      ),
    ) as EventStreamException;
    assert.equal(error.response, response);
    // The body was not taken: it is read once, as the caller likes.
    assert.equal(
      new TextDecoder().decode(await new Response(response.body).arrayBuffer()),
      "the reason",
    );
    assert.throws(() => response.body, HttpClientException);
  }
  await using text = await client.stream("GET", "/text");
  throwsAtOnce(
    () => text.events(),
    EventStreamException,
    /^Event stream refused with Content-Type "text\/plain;charset=UTF-8" \(expected text\/event-stream\): GET /,
  );
  assert.equal((await text.read()).text, "data: a\n\n");
  // A 204 has no body: no events, no error (eventSource() ends there too).
  await using none = await client.stream("GET", "/none");
  assert.deepEqual(await Array.fromAsync(none.events()), []);
});

Deno.test("a buffered response's events() and lines() follow the same rule", () => {
  const request = new HttpRequest("GET", "http://127.0.0.1/feed");
  const content = new TextEncoder().encode("data: a\n\n");
  const response = (statusCode: number, type?: string) =>
    new HttpResponse({
      statusCode,
      headers: type === undefined ? {} : { "Content-Type": type },
      content,
      elapsedMs: 1,
      url: request.url,
      request,
    });
  throwsAtOnce(
    () => response(404, "text/event-stream").events(),
    EventStreamException,
    /status 404/,
  );
  throwsAtOnce(() => response(302).lines(), EventStreamException, /status 302/);
  throwsAtOnce(() => response(200).events(), EventStreamException, /Content-Type none/);
  assert.equal(response(404).text, "data: a\n\n");
});

Deno.test("a streamed body of known small length reaches the caller chunk by chunk, not whole at its end", async () => {
  await using server = startFixtureServer();
  // 1000 bytes, one every 50 ms: whole only after 50 s.
  const url = await server.faultUrl("trickle");
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withReadTimeout(null).build(),
  );
  const response = await client.stream("GET", url);
  const reader = response.body.getReader();
  const first = await settles(reader.read(), 2000);
  assert.equal(first.done, false);
  assert.ok(first.value.byteLength >= 1 && first.value.byteLength < 1000);
  await reader.cancel();
  assert.ok(await server.rawConnectionsClosed(), "the connection was given back");
});
