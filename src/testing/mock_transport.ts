// A transport for tests: the client's `fetch` (`withFetch`) answered by
// routes in memory, each call recorded, no request ever reaching a network.
// In order: a call as the transport saw it (its body read whole when it
// arrived, so a test reads it as often as it likes); which route answers a
// call (a method and a URL pattern, tried in the order the routes were
// added); what a route answers, made into the `Response` a fetch would
// resolve to (after the reply's delay, its body failing when the request's
// signal aborts, as a real fetch's body does); the error of a call no route
// matches; and the transport.

import type { FetchLike } from "../transport/types.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { checkKnownKeys, keysOf } from "../models/_validate.ts";
import {
  defineRedactedInspect,
  jsonView,
  maskHeadersForView,
  redactUrl,
} from "../masking/views.ts";

/**
 * One request a {@linkcode MockTransport} received, recorded in
 * {@linkcode MockTransport.calls} and given to a route's handler: the
 * method, the absolute URL, the headers and the whole body as the client
 * sent them. `console.log()` and `JSON.stringify()` show it with the
 * credentials masked; the fields themselves are as sent.
 *
 * @example Read a recorded call
 * ```ts
 * import { MockCall } from "@fetchline/fetchline/testing";
 * import assert from "node:assert/strict";
 *
 * const call = new MockCall(
 *   "POST",
 *   "http://api.test/users",
 *   new Headers({ "content-type": "application/json" }),
 *   new TextEncoder().encode('{"name": "Ada"}'),
 * );
 * assert.equal(call.headers.get("Content-Type"), "application/json");
 * assert.deepEqual(call.json(), { name: "Ada" });
 * ```
 */
export class MockCall {
  /** The method, upper-case. */
  readonly method: string;
  /** The absolute URL, query included. */
  readonly url: string;
  /** The headers as sent (names lower-case, as `Headers` keeps them). */
  readonly headers: Headers;
  /** The whole body; empty when there was none. */
  readonly content: Uint8Array;

  /**
   * Records a call (the transport makes them; a test may, to try a handler alone).
   *
   * @param method The method.
   * @param url The absolute URL.
   * @param headers The headers.
   * @param content The whole body.
   */
  constructor(method: string, url: string, headers: Headers, content: Uint8Array) {
    this.method = method.toUpperCase();
    this.url = url;
    this.headers = headers;
    this.content = content;
  }

  /** The body as UTF-8 text. */
  get text(): string {
    return new TextDecoder().decode(this.content);
  }

  /**
   * The body parsed as JSON.
   *
   * @typeParam T The type the caller expects (a cast: nothing is checked).
   * @returns The parsed value.
   * @throws {SyntaxError} When the body is not JSON.
   */
  json<T = unknown>(): T {
    return JSON.parse(this.text) as T;
  }

  /**
   * The masked view `console.log()` shows, for `JSON.stringify()`.
   *
   * @returns The method, URL, headers and a summary of the body, with no credential.
   */
  toJSON(): Record<string, unknown> {
    return jsonView(this);
  }
}

defineRedactedInspect(MockCall, (call) => ({
  method: call.method,
  url: redactUrl(call.url),
  headers: maskHeadersForView(Object.fromEntries(call.headers)),
  content: call.content,
}));

/**
 * Records what a `fetch(input, init)` call would send: `init` over a
 * `Request` given as `input`, the body read whole. A read cut by `signal`
 * cancels the body (an upload stream's source learns it) and rejects with
 * the signal's reason, as fetch does.
 */
async function recordCall(
  input: Request | URL | string,
  init: RequestInit | undefined,
  signal: AbortSignal | undefined,
): Promise<MockCall> {
  const request = input instanceof Request ? input : undefined;
  const url = new URL(request === undefined ? input as URL | string : request.url).href;
  const method = init?.method ?? request?.method ?? "GET";
  const headers = new Headers(init?.headers ?? request?.headers);
  const body = init?.body !== undefined ? init.body : request?.body ?? null;
  const content = await readWhole(new Response(body).body, signal);
  return new MockCall(method, url, headers, content);
}

async function readWhole(
  body: ReadableStream<Uint8Array> | null,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  // A cancel ends a pending read with `done`: the signal's reason is thrown below.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    if (signal?.aborted) onAbort();
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      chunks.push(value);
      length += value.byteLength;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  const content = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    content.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return content;
}

/**
 * An object that says whether a URL matches: a `URLPattern` (Deno,
 * browsers, Node from 23.8), or any object with a `test(url)` method. It
 * is given the call's absolute URL.
 */
export interface UrlMatcher {
  /** True when `url`, an absolute URL, matches. */
  test(url: string): boolean;
}

/**
 * The URLs a route answers:
 * - a string starting with `/`: a path, matched exactly, on any origin;
 * - any other string: an absolute URL, its origin and path matched exactly;
 *
 * either string matches any query unless it has one (`/users?page=2`), which
 * must then be the call's query exactly. A fragment is never compared.
 * - a `RegExp`, tested against the absolute URL (its `g` and `y` flags are
 *   dropped, so a test never depends on the one before);
 * - a {@linkcode UrlMatcher} such as a `URLPattern`.
 */
export type MockPattern = string | RegExp | UrlMatcher;

/** A method and a URL pattern, checked once when the route is added. */
interface RouteMatcher {
  /** The method, upper-case, or `*` for any. */
  readonly method: string;
  /** The route as the unmatched-request message lists it: `GET /users/1`. */
  readonly label: string;
  /** True when `call` is this route's. */
  matches(call: MockCall): boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A route's matcher for `method` (any case, or `*` for any) and `pattern`.
 *
 * @throws {TypeError} When the method is not a token, or the pattern is
 * neither a path, an absolute URL, a `RegExp` nor a matcher.
 */
function routeMatcher(method: string, pattern: MockPattern): RouteMatcher {
  if (typeof method !== "string" || !TOKEN.test(method)) {
    throw new TypeError(
      `Invalid route method: expected a method name or "*", got ${
        typeof method === "string" ? JSON.stringify(method) : typeof method
      }`,
    );
  }
  const upper = method.toUpperCase();
  const url = urlTest(pattern);
  return {
    method: upper,
    label: `${upper} ${url.label}`,
    matches: (call) => (upper === "*" || upper === call.method) && url.test(call.url),
  };
}

function urlTest(pattern: MockPattern): { label: string; test: (url: string) => boolean } {
  if (typeof pattern === "string") return stringTest(pattern);
  if (pattern instanceof RegExp) {
    const regExp = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
    return { label: String(regExp), test: (url) => regExp.test(url) };
  }
  if (typeof (pattern as Partial<UrlMatcher> | null)?.test !== "function") {
    throw new TypeError(
      "Invalid route pattern: expected a path, an absolute URL, a RegExp or a URLPattern",
    );
  }
  return { label: matcherLabel(pattern), test: (url) => pattern.test(url) === true };
}

function stringTest(pattern: string): { label: string; test: (url: string) => boolean } {
  const isPath = pattern.startsWith("/");
  let target: URL;
  try {
    target = isPath ? new URL(pattern, "http://path.invalid") : new URL(pattern);
  } catch {
    throw new TypeError(
      "Invalid route pattern: expected a path starting with / or an absolute URL",
    );
  }
  const { origin, pathname, search } = target;
  return {
    label: pattern,
    test(url) {
      const called = new URL(url);
      return called.pathname === pathname && (isPath || called.origin === origin) &&
        (search === "" || called.search === search);
    },
  };
}

/** A URLPattern by its components (`URLPattern(/users/:id)`), another matcher by its class. */
function matcherLabel(pattern: UrlMatcher): string {
  const name = pattern.constructor?.name || "UrlMatcher";
  const { protocol, hostname, pathname } = pattern as {
    protocol?: unknown;
    hostname?: unknown;
    pathname?: unknown;
  };
  if (typeof pathname !== "string") return name;
  const host = typeof hostname === "string" && hostname !== "*"
    ? `${typeof protocol === "string" ? protocol : "*"}://${hostname}`
    : "";
  return `${name}(${host}${pathname})`;
}

/**
 * A reply as a plain object: `status` (default 200), `headers`, and a
 * `body` (anything `fetch`'s `Response` takes: a string, bytes, a Blob, a
 * `ReadableStream` to send a body by chunks) or a `json` value (sent as
 * `JSON.stringify` gives it, with `Content-Type: application/json` unless
 * the headers set one). `delay` holds the head back that many seconds, for
 * a timeout test; the request's timeout or signal ends the wait, and so
 * does the client's `close()` when the call has a timeout (the default).
 * A call with neither a timeout nor a signal still fails at once on
 * `close()`, but its fetch is given no signal, so the delay's timer runs out.
 */
export interface MockReplyInit {
  /** The status, 200 to 599 (default 200). */
  readonly status?: number;
  /** The response headers. */
  readonly headers?: HeadersInit;
  /** The body, as `Response` takes it; not with `json`. */
  readonly body?: BodyInit | null;
  /** A value sent as JSON; not with `body`. */
  readonly json?: unknown;
  /** Seconds before the head arrives (default 0). */
  readonly delay?: number;
}

/**
 * What a route answers: a {@linkcode MockReplyInit}, or a `Response` (sent
 * to each call as a clone, so it can answer many; `Response.error()` fails
 * the exchange as a network failure does).
 */
export type MockReply = MockReplyInit | Response;

/**
 * A route's reply made for each call: it gets the call (its body already
 * read) and returns a reply, or a promise of one. What it throws fails the
 * exchange as a network failure would (the client's `ConnectionException`,
 * which it may retry); an `HttpClientException` reaches the caller as it is.
 */
export type MockHandler = (call: MockCall) => MockReply | Promise<MockReply>;

const REPLY_KEYS = keysOf<MockReplyInit>({
  status: true,
  headers: true,
  body: true,
  json: true,
  delay: true,
});
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * Checks a reply's fields, so a route's mistake is named where it is made.
 *
 * @throws {TypeError} For a key the reply does not know, both `body` and
 * `json`, or a body with a status that has none; {@linkcode RangeError} for
 * a status outside 200–599 or a delay that is not a finite number ≥ 0.
 */
function checkReply(reply: unknown): MockReply {
  if (reply instanceof Response) {
    if (reply.bodyUsed) throw new TypeError("Invalid mock reply: the Response's body was read");
    return reply;
  }
  if (typeof reply !== "object" || reply === null) {
    throw new TypeError(
      "Invalid mock reply: expected { status, headers, body | json } or a Response",
    );
  }
  checkKnownKeys("mock reply", reply, REPLY_KEYS);
  const { status = 200, body, json, delay = 0 } = reply as MockReplyInit;
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(
      `Invalid mock reply status: expected an integer from 200 to 599, got ${status}`,
    );
  }
  const hasBody = (body !== undefined && body !== null) || json !== undefined;
  if (body !== undefined && body !== null && json !== undefined) {
    throw new TypeError("Invalid mock reply: body and json cannot both be given");
  }
  if (hasBody && NULL_BODY_STATUSES.has(status)) {
    throw new TypeError(`Invalid mock reply: status ${status} has no body`);
  }
  if (typeof delay !== "number" || !Number.isFinite(delay) || delay < 0) {
    throw new RangeError(`Invalid mock reply delay: expected seconds ≥ 0, got ${String(delay)}`);
  }
  return reply as MockReplyInit;
}

/**
 * The `Response` a fetch resolves to for `reply`, once its delay is over;
 * rejects with the signal's reason when `signal` aborts first. A
 * `Response.error()` rejects with a `TypeError`, as a fetch's network failure does.
 */
async function replyResponse(
  reply: MockReply,
  signal: AbortSignal | undefined,
  shared: boolean,
): Promise<Response> {
  let response: Response;
  if (reply instanceof Response) {
    response = shared ? reply.clone() : reply;
  } else {
    if (reply.delay) await sleep(reply.delay, signal);
    response = responseOf(reply);
  }
  if (response.type === "error") {
    throw new TypeError("Network error: Response.error() of a mock route");
  }
  if (signal === undefined || response.body === null) return response;
  return new Response(abortableBody(response.body, signal), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** A reply as a `Response`; what `Response` or `JSON.stringify` refuses is an {@linkcode InvalidReply}. */
function responseOf(reply: MockReplyInit): Response {
  try {
    const headers = new Headers(reply.headers);
    let body = reply.body ?? null;
    if (reply.json !== undefined) {
      body = JSON.stringify(reply.json);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    return new Response(body, { status: reply.status ?? 200, headers });
  } catch (error) {
    throw new InvalidReply(`Invalid mock reply: ${(error as Error)?.message ?? error}`, error);
  }
}

/**
 * A reply that cannot be made into a response (a stream body already used
 * by an earlier call, a header value fetch refuses): the route's mistake,
 * not a network failure, so the transport fails the call with it as it is.
 */
class InvalidReply extends Error {
  /** @param message What is wrong. @param cause The error behind it. */
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** Waits `seconds`; `signal` ends the wait, clearing the timer, with its reason. */
function sleep(seconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, seconds * 1000);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `body`, failed with the signal's reason and its source cancelled when
 * `signal` aborts, as a fetch's body fails when its request is aborted: a
 * read waiting for a chunk that never comes rejects then.
 */
function abortableBody(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let onAbort = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      onAbort = () => {
        controller.error(signal.reason);
        reader.cancel(signal.reason).catch(() => {});
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (signal.aborted) return;
      if (!done) return controller.enqueue(value);
      signal.removeEventListener("abort", onAbort);
      controller.close();
    },
    cancel(reason) {
      signal.removeEventListener("abort", onAbort);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** How many routes the message lists before it says how many more there are. */
const LISTED = 20;

/**
 * A request reached a {@linkcode MockTransport} that no route matches. It
 * is the library's exception, so the client passes it to the error hooks
 * and the caller as it is, never retried (the same request would miss
 * again), and no request goes to a network instead. The message names the
 * method, the URL (masked) and the routes; `call` is the request as
 * received.
 *
 * @example Tell a request the test did not expect
 * ```ts
 * import { MockTransport, UnmatchedRequestException } from "@fetchline/fetchline/testing";
 * import assert from "node:assert/strict";
 *
 * const mock = new MockTransport().route("GET", "/users", { json: [] });
 * await assert.rejects(mock.fetch("http://api.test/orders"), (error: unknown) => {
 *   assert.ok(error instanceof UnmatchedRequestException);
 *   assert.equal(error.message, "No mock route matches GET http://api.test/orders: routes GET /users");
 *   assert.equal(error.call.url, "http://api.test/orders");
 *   return true;
 * });
 * ```
 */
export class UnmatchedRequestException extends HttpClientException {
  /** The request no route matched, as the transport received it. */
  readonly call: MockCall;

  /**
   * Creates an exception.
   *
   * @param call The request no route matched.
   * @param routes The routes' labels (`GET /users`), in order.
   */
  constructor(call: MockCall, routes: readonly string[]) {
    const listed = routes.length === 0
      ? "no routes"
      : `routes ${routes.slice(0, LISTED).join("; ")}` +
        (routes.length > LISTED ? ` and ${routes.length - LISTED} more` : "");
    super(`No mock route matches ${describeCall(call)}: ${listed}`);
    this.call = call;
  }
}

/** A route: what it matches, and its reply or handler. */
interface Route extends RouteMatcher {
  readonly reply: MockReply | MockHandler;
}

/**
 * A transport that answers a client's requests from routes in memory, for
 * tests of code that uses the client: give {@linkcode MockTransport.fetch}
 * to `withFetch()`. It never opens a connection: a request no route matches
 * fails with {@linkcode UnmatchedRequestException}, which names the method,
 * the URL and the routes, and is not retried.
 *
 * A route is a method (`*` for any) and a URL pattern
 * ({@linkcode MockPattern}: a path, an absolute URL, a `RegExp`, a
 * `URLPattern`); the first route added that matches answers, with a
 * {@linkcode MockReply} or the reply of a {@linkcode MockHandler}. Each call
 * is recorded in {@linkcode MockTransport.calls}, its body read whole first
 * (so a request body that never ends is waited for until the call's
 * timeout).
 *
 * It behaves as a fetch over a network does: the request's timeout and
 * signal, and the client's `close()`, end a reply's `delay` and fail a
 * body being read; a streamed body (`client.stream()`) is read as its
 * stream gives it; redirects and retries go through the routes again. A
 * client derived with `extend()` keeps its parent's `withFetch`, so it
 * sends through the same transport. The body is given to the client as it
 * is: a Content-Encoding header decodes nothing.
 *
 * @example Test a small API client without a server
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { MockTransport } from "@fetchline/fetchline/testing";
 * import assert from "node:assert/strict";
 *
 * // The code under test: a client for a users API.
 * class UsersApi {
 *   constructor(readonly http: HttpClient) {}
 *   async get(id: number): Promise<{ id: number; name: string } | undefined> {
 *     const response = await this.http.get(`/users/${id}`);
 *     return response.statusCode === 404 ? undefined : response.json();
 *   }
 *   async create(name: string): Promise<number> {
 *     return (await this.http.post("/users", { jsonData: { name } })).json<{ id: number }>().id;
 *   }
 * }
 *
 * const mock = new MockTransport()
 *   .route("GET", "/users/1", { json: { id: 1, name: "Ada" } })
 *   .route("GET", /\/users\/\d+$/, { status: 404 })
 *   .route("POST", "/users", (call) => ({ status: 201, json: { id: 2, ...call.json<object>() } }));
 * await using http = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl("https://api.test").withFetch(mock.fetch).build(),
 * );
 * const users = new UsersApi(http);
 *
 * assert.deepEqual(await users.get(1), { id: 1, name: "Ada" });
 * assert.equal(await users.get(7), undefined);
 * assert.equal(await users.create("Grace"), 2);
 * const [, , created] = mock.calls;
 * assert.equal(created?.url, "https://api.test/users");
 * assert.deepEqual(created?.json(), { name: "Grace" });
 * ```
 */
export class MockTransport {
  readonly #routes: Route[] = [];
  readonly #calls: MockCall[] = [];

  /**
   * The `fetch` to give `withFetch()` (bound: pass it as it is). It records
   * the call, then answers it from the first matching route.
   */
  readonly fetch: FetchLike = (input, init) => this.#send(input, init);

  /**
   * Adds a route; the routes are tried in the order they were added.
   *
   * @param method The method, any case, or `*` for any.
   * @param pattern The URLs it answers ({@linkcode MockPattern}).
   * @param reply A reply, or a function of the call returning one (sync or async).
   * @returns This transport, to add more.
   * @throws {TypeError} When the method, the pattern or the reply is not
   * valid (a reply's status or delay out of range: {@linkcode RangeError}).
   *
   * @example Answer by a function of the call
   * ```ts
   * import { MockTransport } from "@fetchline/fetchline/testing";
   * import assert from "node:assert/strict";
   *
   * const mock = new MockTransport().route("*", "/echo", (call) => ({ body: call.method }));
   * const response = await mock.fetch("http://api.test/echo", { method: "PUT" });
   * assert.equal(await response.text(), "PUT");
   * ```
   */
  route(method: string, pattern: MockPattern, reply: MockReply | MockHandler): this {
    const matcher = routeMatcher(method, pattern);
    this.#routes.push({
      ...matcher,
      reply: typeof reply === "function" ? reply : checkReply(reply),
    });
    return this;
  }

  /**
   * Every request this transport received, in order, matched or not: the
   * requests as sent, after the client's hooks, auth and redirects (a
   * retried call is here once per attempt).
   */
  get calls(): readonly MockCall[] {
    return this.#calls;
  }

  async #send(input: Request | URL | string, init?: RequestInit): Promise<Response> {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined) ??
      undefined;
    signal?.throwIfAborted();
    const call = await recordCall(input, init, signal);
    this.#calls.push(call);
    const route = this.#routes.find((candidate) => candidate.matches(call));
    if (route === undefined) {
      throw new UnmatchedRequestException(call, this.#routes.map(({ label }) => label));
    }
    try {
      if (typeof route.reply !== "function") return await replyResponse(route.reply, signal, true);
      const reply = await untilAborted(route.reply(call), signal);
      return await replyResponse(checkReply(reply), signal, false);
    } catch (error) {
      throw error instanceof InvalidReply || isCheckError(error)
        ? new HttpClientException(`${(error as Error).message}: ${describeCall(call)}`, {
          cause: error,
        })
        : error;
    }
  }
}

/** An error of {@linkcode checkReply}, for a handler's reply. */
function isCheckError(error: unknown): boolean {
  return (error instanceof TypeError || error instanceof RangeError) &&
    error.message.startsWith("Invalid mock reply");
}

/** `pending`, or the signal's reason once it aborts first. */
function untilAborted<T>(pending: T | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined || !(pending instanceof Promise)) return Promise.resolve(pending);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
