// The exchange-level seam (API.md "Middleware"): what a middleware is, as
// the builder takes it and as the send path calls it.

import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/request_context.ts";

/**
 * Sends a request on through the rest of the chain and the transport: the
 * `next` a {@linkcode MiddlewareFunction} is given. It may be called with a
 * changed request, more than once, or not at all.
 */
export type Next = (request: HttpRequest) => Promise<HttpResponse>;

/**
 * Wraps each exchange of a client: every attempt, every redirect hop and
 * every resend after a 401 passes through it once. It sees the request as
 * it will be sent (after the request hooks, the auth hook and the cookie
 * jar) and returns the response: `next(request)`'s, a changed one, or one
 * of its own without calling `next` (a cache hit). Response hooks,
 * redirects, the 401 refresh and the retry decision happen outside the
 * chain and treat its response like any other; what it throws takes a
 * transport failure's path (error hooks, then the retry decision, which
 * retries only the library's own exceptions). For a streamed call `next`
 * resolves at the head with the body unread. The call's timeout, signal
 * and `close()` end a middleware's wait too.
 *
 * @example Count the exchanges of a client
 * ```ts
 * import { createClient, HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import type { MiddlewareFunction } from "@fetchline/fetchline/interfaces";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   (request) => new Response(request.headers.get("x-signed")),
 * );
 * let exchanges = 0;
 * const sign: MiddlewareFunction = (request, next) => {
 *   exchanges++;
 *   return next(request.withHeaders({ "X-Signed": "yes" }));
 * };
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder()
 *     .withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withMiddleware(sign)
 *     .build(),
 * );
 * assert.equal((await client.get("/")).text, "yes");
 * assert.equal(exchanges, 1);
 * ```
 */
export type MiddlewareFunction = (
  request: HttpRequest,
  next: Next,
  context: RequestContext,
) => Promise<HttpResponse>;

/**
 * A middleware: a {@linkcode MiddlewareFunction}, or an object whose
 * `handle` is one (a cache, a recorder), called as its method.
 *
 * @example An object as middleware
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import type { Middleware } from "@fetchline/fetchline/interfaces";
 *
 * const recorder: Middleware = {
 *   urls: [] as string[],
 *   handle(request, next) {
 *     this.urls.push(request.url);
 *     return next(request);
 *   },
 * } as Middleware & { urls: string[] };
 * const config = new HttpClientConfigBuilder().withMiddleware(recorder).build();
 * ```
 */
export type Middleware = MiddlewareFunction | { handle: MiddlewareFunction };
