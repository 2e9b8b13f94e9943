// A transport for tests: the client's `fetch` (`withFetch`) answered by
// routes in memory, each call recorded, no request ever reaching a network.

import type { FetchLike } from "../transport/types.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { type MockCall, recordCall } from "./mock_call.ts";
import { routeMatcher } from "./mock_route.ts";
import type { MockPattern, RouteMatcher } from "./mock_route.ts";
import { checkReply, InvalidReply, replyResponse } from "./mock_reply.ts";
import type { MockHandler, MockReply } from "./mock_reply.ts";
import { UnmatchedRequestException } from "./unmatched_request.ts";

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
