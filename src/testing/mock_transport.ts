// A transport for tests: the client's `fetch` (`withFetch`) answered by
// routes in memory, each call recorded (its body read whole), no request
// ever reaching a network; it behaves as a fetch does on abort and close.

import type { FetchLike } from "../transport/types.ts";
import { startWait } from "../waits.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { checkKnownKeys, keysOf } from "../models/_validate.ts";
import {
  defineRedactedInspect,
  jsonView,
  maskHeadersForView,
  redactUrl,
} from "../masking/views.ts";
import { type HarMatchField, harRoutes } from "./har_replay.ts";
import type { Har, HarRequest } from "../har/types.ts";

export type { HarMatchField };

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

  /** Records a call (the transport makes them; a test may, to try a handler alone). */
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

  /** The body parsed as JSON (`T` is a cast: nothing is checked); a SyntaxError if it is not JSON. */
  json<T = unknown>(): T {
    return JSON.parse(this.text) as T;
  }

  /** The masked view `console.log()` shows (no credential), for `JSON.stringify()`. */
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

/** A route: what it matches, and its reply or handler. */
interface Route {
  /** The route as the unmatched-request message lists it: `GET /users/1`. */
  readonly label: string;
  readonly matches: (call: MockCall) => boolean;
  readonly reply: MockReply | MockHandler;
  /** A recorded entry's: true once it has answered (it answers no more). */
  readonly used?: () => boolean;
  /** A recorded entry's: true when its request is the call's, used or not. */
  readonly fits?: (call: MockCall) => boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The URL test of `pattern` and its label; a TypeError for a pattern of none of the kinds. */
function urlTest(pattern: MockPattern): [label: string, test: (url: string) => boolean] {
  if (pattern instanceof RegExp) {
    const regExp = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ""));
    return [String(regExp), (url) => regExp.test(url)];
  }
  if (typeof pattern !== "string") {
    if (typeof (pattern as Partial<UrlMatcher> | null)?.test !== "function") {
      throw new TypeError(
        "Invalid route pattern: expected a path, an absolute URL, a RegExp or a URLPattern",
      );
    }
    return [matcherLabel(pattern), (url) => pattern.test(url) === true];
  }
  const isPath = pattern.startsWith("/");
  const target = URL.parse(pattern, isPath ? "http://path.invalid" : undefined);
  if (target === null) {
    throw new TypeError(
      "Invalid route pattern: expected a path starting with / or an absolute URL",
    );
  }
  const { origin, pathname, search } = target;
  return [pattern, (url) => {
    const called = new URL(url);
    return called.pathname === pathname && (isPath || called.origin === origin) &&
      (search === "" || called.search === search);
  }];
}

/** A URLPattern by its components (`URLPattern(/users/:id)`), another matcher by its class. */
function matcherLabel(pattern: UrlMatcher): string {
  const name = pattern.constructor?.name || "UrlMatcher";
  const { protocol, hostname, pathname } = pattern as Partial<
    Record<"protocol" | "hostname" | "pathname", unknown>
  >;
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
 * does the client's `close()`.
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
  const { status = 200, body = null, json, delay = 0 } = reply as MockReplyInit;
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(
      `Invalid mock reply status: expected an integer from 200 to 599, got ${status}`,
    );
  }
  if (body !== null && json !== undefined) {
    throw new TypeError("Invalid mock reply: body and json cannot both be given");
  }
  if ((body !== null || json !== undefined) && NULL_BODY_STATUSES.has(status)) {
    throw new TypeError(`Invalid mock reply: status ${status} has no body`);
  }
  if (typeof delay !== "number" || !Number.isFinite(delay) || delay < 0) {
    throw new RangeError(`Invalid mock reply delay: expected seconds ≥ 0, got ${String(delay)}`);
  }
  return reply as MockReplyInit;
}

/** `reply` as a `Response`; what `Response` or `JSON.stringify` refuses is a TypeError. */
function responseOf(reply: MockReplyInit): Response {
  try {
    const headers = new Headers(reply.headers);
    let body = reply.body;
    if (reply.json !== undefined) {
      body = JSON.stringify(reply.json);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    return new Response(body, { status: reply.status ?? 200, headers });
  } catch (error) {
    throw new TypeError(`Invalid mock reply: ${(error as Error)?.message ?? error}`, {
      cause: error,
    });
  }
}

/** Options of {@linkcode MockTransport.fromHar}. */
export interface HarReplayOptions {
  /**
   * When a request matches a recorded one: a list of what must be the same
   * (default `["method", "url", "body"]`; `"url"` is `"origin"`, `"path"`
   * and `"query"` together), or a function of the call and the recorded
   * request. Headers are never compared by default. A masked value (`***`)
   * in a recorded query or JSON or form body matches any value; a body the
   * recording does not hold (multipart, a stream, one cut at
   * `maxBodyBytes`) matches any body.
   */
  readonly match?: readonly HarMatchField[] | ((call: MockCall, request: HarRequest) => boolean);
  /**
   * What a request gets once every recorded entry it matches has answered:
   * with `false` (the default, as VCR and vcrpy do) an
   * {@linkcode UnmatchedRequestException} that says how many there were
   * and that they are used up; with `true` the last of them again.
   */
  readonly repeat?: boolean;
}

const REPLAY_KEYS = keysOf<HarReplayOptions>({ match: true, repeat: true });

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
   * An exception for `call`, listing the `routes`' labels (`GET /users`) in
   * order; `usedUp`, the number of a recording's entries for `call` that
   * answered already (`fromHar()`), says so.
   */
  constructor(call: MockCall, routes: readonly string[], usedUp = 0) {
    const listed = routes.length === 0
      ? usedUp === 0 ? "no routes" : "no other routes"
      : `routes ${routes.slice(0, LISTED).join("; ")}` +
        (routes.length > LISTED ? ` and ${routes.length - LISTED} more` : "");
    const spent = usedUp === 0
      ? ""
      : `the recording's ${
        usedUp === 1 ? "1 entry for it is" : `${usedUp} entries for it are`
      } used up (fromHar's repeat: true answers again with the last); `;
    super(`No mock route matches ${describeCall(call)}: ${spent}${listed}`);
    this.call = call;
  }
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
   * A transport that replays a HAR 1.2 recording (a `HarRecorder`'s
   * `toHar()`, a browser's exported `.har`, or its JSON text): each recorded
   * entry answers the first request that matches its request, in the
   * order they were recorded, so repeated identical requests get the
   * recorded responses in turn; a request no unused entry matches is an
   * {@linkcode UnmatchedRequestException} (see
   * {@linkcode HarReplayOptions.repeat}). An entry of an exchange that
   * failed (status 0) fails the request as a network failure does
   * (`ConnectionException`). The response is the recorded status, headers
   * (a masked one stays `***`) and body (base64 decoded); a body the
   * recording does not hold is empty. Entries of a browser's recording
   * (extra `_` fields, no body text, HTTP/2 pseudo-headers) replay too.
   * Routes added with {@linkcode route} come after the recording's.
   *
   * @param har The recording: an object, or its JSON text.
   * @param options How requests are matched ({@linkcode HarReplayOptions}).
   * @returns The transport; give its `fetch` to `withFetch()`.
   * @throws {TypeError} For a recording that is not a HAR, or an entry the
   * replay cannot read (a body that is not base64 as it says, headers that
   * are not a list of `{ name, value }`…), naming the field and the entry's
   * request. An entry changed after this check that cannot be replayed fails
   * its request with an `HttpClientException` naming it, never retried.
   *
   * @example Replay a recorded answer
   * ```ts
   * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
   * import { MockTransport } from "@fetchline/fetchline/testing";
   * import type { Har } from "@fetchline/fetchline/har";
   * import assert from "node:assert/strict";
   *
   * const har: Har = { log: { version: "1.2", creator: { name: "demo", version: "1" }, entries: [{
   *   startedDateTime: "2026-01-01T00:00:00.000Z", time: 1, cache: {}, timings: { send: 0, wait: 1, receive: 0 },
   *   request: { method: "GET", url: "https://api.test/me", httpVersion: "HTTP/1.1", cookies: [],
   *     headers: [], queryString: [], headersSize: -1, bodySize: 0 },
   *   response: { status: 200, statusText: "OK", httpVersion: "HTTP/1.1", cookies: [], redirectURL: "",
   *     headers: [{ name: "content-type", value: "application/json" }], headersSize: -1, bodySize: 11,
   *     content: { size: 11, mimeType: "application/json", text: '{"id":"me"}' } },
   * }] } };
   * const mock = MockTransport.fromHar(har);
   * await using client = new HttpClient(new HttpClientConfigBuilder().withFetch(mock.fetch).build());
   * assert.deepEqual((await client.get("https://api.test/me")).json(), { id: "me" });
   * ```
   */
  static fromHar(har: Har | string, options: HarReplayOptions = {}): MockTransport {
    checkKnownKeys("fromHar options", options, REPLAY_KEYS);
    const { repeat = false } = options;
    if (typeof repeat !== "boolean") {
      throw new TypeError(`Invalid repeat: expected a boolean, got ${typeof repeat}`);
    }
    const mock = new MockTransport();
    mock.#routes.push(...harRoutes<MockCall>(har, options.match, repeat));
    return mock;
  }

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
    if (typeof method !== "string" || !TOKEN.test(method)) {
      throw new TypeError(
        `Invalid route method: expected a method name or "*", got ${
          typeof method === "string" ? JSON.stringify(method) : typeof method
        }`,
      );
    }
    const upper = method.toUpperCase();
    const [label, test] = urlTest(pattern);
    this.#routes.push({
      label: `${upper} ${label}`,
      matches: (call) => (upper === "*" || upper === call.method) && test(call.url),
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
    // `init` over a `Request` given as `input`. Reading the body, an abort
    // cancels it (an upload stream's source learns it) and rejects with the
    // signal's reason, as fetch does: `pipeTo()`'s own abort.
    const request = input instanceof Request ? input : undefined;
    const signal = init?.signal ?? request?.signal ?? undefined;
    signal?.throwIfAborted();
    const body = new Response(init?.body !== undefined ? init.body : request?.body ?? null).body;
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    const sink = new WritableStream<Uint8Array<ArrayBuffer>>({
      write: (chunk) => void chunks.push(chunk),
    });
    await body?.pipeTo(sink, signal === undefined ? {} : { signal });
    const call = new MockCall(
      init?.method ?? request?.method ?? "GET",
      new URL(request?.url ?? input as URL | string).href,
      new Headers(init?.headers ?? request?.headers),
      new Uint8Array(await new Blob(chunks).arrayBuffer()),
    );
    this.#calls.push(call);
    const route = this.#routes.find((candidate) => candidate.matches(call));
    if (route === undefined) {
      // A recording's entries that answered already are no routes any more: counted if they were the call's.
      const open = this.#routes.filter(({ used }) => used?.() !== true);
      const usedUp = this.#routes.filter(({ used, fits }) => used?.() === true && fits?.(call));
      throw new UnmatchedRequestException(call, open.map(({ label }) => label), usedUp.length);
    }
    const given = route.reply;
    const reply = typeof given === "function" ? await untilAborted(given(call), signal) : given;
    if (typeof given === "function") routeMistake(call, () => checkReply(reply));
    let response: Response;
    if (reply instanceof Response) response = reply === given ? reply.clone() : reply;
    else {
      const { delay } = reply;
      if (delay) {
        let stop: (() => void) | undefined;
        const wait = new Promise((resolve) =>
          stop = startWait(() => resolve(undefined), delay * 1000)
        );
        await untilAborted(wait, signal, () => stop!());
      }
      response = routeMistake(call, () => responseOf(reply));
    }
    if (response.type === "error") {
      throw new TypeError("Network error: Response.error() of a mock route");
    }
    if (signal === undefined || response.body === null) return response;
    // The body fails with the signal's reason, its source cancelled, as a fetch's body does.
    const { status, statusText, headers } = response;
    const abortable = response.body.pipeThrough(new TransformStream(), { signal });
    return new Response(abortable, { status, statusText, headers });
  }
}

/**
 * What `make` returns; its error (a reply the route got wrong) fails the
 * call as it is, naming it, rather than as a network failure.
 */
function routeMistake<T>(call: MockCall, make: () => T): T {
  try {
    return make();
  } catch (error) {
    throw new HttpClientException(`${(error as Error).message}: ${describeCall(call)}`, {
      cause: error,
    });
  }
}

/** `pending`, or the signal's reason once it aborts first (after `cancel()`). */
function untilAborted<T>(
  pending: T | Promise<T>,
  signal: AbortSignal | undefined,
  cancel = () => {},
): Promise<T> {
  if (signal === undefined) return Promise.resolve(pending);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      cancel();
      reject(signal.reason);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(pending).then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}
