// A streamed response the call does not return is always given up: after a
// hook throws on its head, after a response hook returns another response;
// and a 401 returned because no refresh came is returned unread.

import assert from "node:assert/strict";
import {
  BasicAuthHook,
  HttpClient,
  HttpClientConfigBuilder,
  HttpResponse,
  TokenAuthHook,
  TokenData,
  TokenManager,
} from "../mod.ts";
import type { MiddlewareFunction } from "../interfaces.ts";
import { type FixtureServer, type RecordedRequest, startFixtureServer } from "./fixture_server.ts";
import { startRawServer } from "./raw_server.ts";

/** An endless body: `cancelled` resolves once the client gives it up. */
function endlessBody() {
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => onCancel = resolve);
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(new TextEncoder().encode("data: tick\n\n")),
    cancel: () => onCancel(),
  });
  return { stream, cancelled };
}

/** Resolves with `promise`, or fails the test after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still waiting after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function client(
  server: FixtureServer,
  configure: (b: HttpClientConfigBuilder) => HttpClientConfigBuilder,
) {
  return new HttpClient(
    configure(
      new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
        .withRetry({ maxRetries: 0 }),
    ).build(),
  );
}

Deno.test("An auth hook that throws on a streamed 401's head leaves its body given up", async () => {
  await using server = startFixtureServer();
  const body = endlessBody();
  server.route("/api", () => new Response(body.stream, { status: 401 }));
  const hook = new BasicAuthHook("ada", "pw");
  hook.isAuthError = () => {
    throw new Error("hook boom");
  };
  await using api = client(server, (b) => b.withAuthHook(hook));
  await assert.rejects(api.stream("GET", "/api"), /hook boom/);
  await within(body.cancelled, 5000, "the 401's body to be cancelled");
});

Deno.test("A streamed 401 returned because the refresh declined is returned unread", async () => {
  await using server = startFixtureServer();
  server.route("/api", () => new Response("denied", { status: 401 }));
  let refreshes = 0;
  const manager = new TokenManager([
    { name: "api", fetch: () => Promise.resolve(new TokenData({ accessToken: "t" })) },
  ]);
  const hook = new TokenAuthHook(manager);
  hook.refreshAuth = () => (refreshes++, Promise.resolve(false));
  await using api = client(server, (b) => b.withAuthHook(hook));
  await using response = await api.stream("GET", "/api");
  assert.equal(response.statusCode, 401);
  assert.equal(refreshes, 1);
  assert.equal((await response.read()).text, "denied");
});

Deno.test("A response hook that returns another response leaves the streamed one given up", async () => {
  await using server = startFixtureServer();
  const body = endlessBody();
  server.route("/events", () => new Response(body.stream));
  await using api = client(server, (b) =>
    b.withResponseHook({
      afterResponse: (response) =>
        new HttpResponse({
          statusCode: 204,
          headers: {},
          content: new Uint8Array(),
          elapsedMs: 0,
          url: response.url,
          request: response.request,
        }),
    }));
  const response = await api.stream("GET", "/events");
  assert.equal(response.statusCode, 204);
  await within(body.cancelled, 5000, "the streamed body to be cancelled");
});

Deno.test("An upload callback that throws at the start gives the caller's stream body up", async () => {
  await using server = startFixtureServer();
  let onCancel!: (reason: unknown) => void;
  const cancelled = new Promise<unknown>((resolve) => onCancel = resolve);
  const body = new ReadableStream<Uint8Array>({ cancel: (reason) => onCancel(reason) });
  const boom = new Error("callback boom");
  await using api = client(server, (b) => b);
  await assert.rejects(
    api.post("/echo", {
      body,
      onUploadProgress: () => {
        throw boom;
      },
    }),
    (error) => error === boom,
  );
  assert.equal(await within(cancelled, 5000, "the body to be cancelled"), boom);
  assert.equal(server.requests.length, 0);
});

/** A raw listener trickling a 1000-byte body (a byte every 50 ms), and the client's requests. */
async function trickleServer() {
  const requests: RecordedRequest[] = [];
  const raw = await startRawServer("trickle", requests);
  /** True once at most `open` connections are left, false if more are still open after `ms`. */
  const openAtMost = async (open: number, ms = 5000) => {
    for (const end = Date.now() + ms; raw.openConnections > open && Date.now() < end;) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return raw.openConnections <= open;
  };
  return { raw, requests, openAtMost, [Symbol.asyncDispose]: () => raw.close() };
}

function streamingClient(url: string, middleware: MiddlewareFunction) {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(url).withTimeout(5).withRetry({ maxRetries: 0 })
      .withMiddleware(middleware).build(),
  );
}

Deno.test("A middleware that throws after next() on a streamed call leaves the body it dropped cancelled", async () => {
  await using server = await trickleServer();
  const boom = new Error("middleware boom");
  await using api = streamingClient(server.raw.url, async (request, next) => {
    await next(request);
    throw boom;
  });
  await assert.rejects(api.stream("GET", "/feed"), (error) => error === boom);
  assert.equal(server.requests.length, 1);
  assert.ok(await server.openAtMost(0), "the dropped body's connection is still open");
});

Deno.test("A middleware that calls next() twice and returns the second response leaves the first cancelled", async () => {
  await using server = await trickleServer();
  await using api = streamingClient(server.raw.url, async (request, next) => {
    await next(request);
    return await next(request);
  });
  const response = await api.stream("GET", "/feed");
  assert.equal(server.requests.length, 2);
  assert.ok(await server.openAtMost(1), "the first response's connection is still open");
  // The response returned is the caller's, unread until read or cancelled.
  assert.equal(server.raw.openConnections, 1);
  await response.cancel();
  assert.ok(await server.openAtMost(0), "the returned body's connection is still open");
});

Deno.test("A middleware that reads a streamed body and returns the buffered response returns it whole", async () => {
  await using server = startFixtureServer();
  server.route("/feed", () => new Response("whole body"));
  await using api = client(server, (b) =>
    b.withMiddleware(async (request, next) => {
      const response = await next(request);
      return (await response.read()).raiseForStatus();
    }));
  const response = await api.stream("GET", "/feed");
  assert.equal(response.isStreamed, false);
  assert.equal((await response.read()).text, "whole body");
});
