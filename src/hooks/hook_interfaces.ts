// The hook and middleware seams, as types: the request, response and error
// hooks (with `onRetry`) and the logger the logging hooks write to, which
// the attempt loop runs; and the exchange-level middleware (API.md
// "Middleware"), as the builder takes it and as the send path calls it.

import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/context.ts";

/**
 * A hook that runs before each attempt of a call, in registration order;
 * each receives the request the previous one returned and returns the
 * request to send (itself or a changed copy). It may be async.
 *
 * @example Add a header to every request
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import type { RequestHookInterface } from "@fetchline/fetchline/interfaces";
 *
 * const stamp: RequestHookInterface = {
 *   beforeRequest: (request) => request.withHeaders({ "X-Client": "fetchline" }),
 * };
 * const config = new HttpClientConfigBuilder().withRequestHook(stamp).build();
 * ```
 */
export interface RequestHookInterface {
  /**
   * Returns the request to send.
   *
   * @param request The request so far.
   * @param context The call's shared context.
   * @returns The request to send, or a promise of it.
   */
  beforeRequest(request: HttpRequest, context: RequestContext): HttpRequest | Promise<HttpRequest>;
  /**
   * The names of the headers this hook writes credentials into, if any.
   * The client treats them as it treats `Authorization`: a redirect that
   * leaves the origin, or goes from https to http, drops them, whoever set
   * them. The built-in auth hooks and `AuthorizationHook` declare theirs.
   */
  readonly credentialHeaders?: readonly string[] | undefined;
}

/**
 * A hook that runs on every received response, in registration order; each
 * receives the response the previous one returned. It may be async.
 *
 * @example Count server errors
 * ```ts
 * import type { ResponseHookInterface } from "@fetchline/fetchline/interfaces";
 *
 * let serverErrors = 0;
 * const counter: ResponseHookInterface = {
 *   afterResponse(response) {
 *     if (response.isServerError) serverErrors++;
 *     return response;
 *   },
 * };
 * ```
 */
export interface ResponseHookInterface {
  /**
   * Returns the response to hand on.
   *
   * @param response The response so far.
   * @param context The call's shared context.
   * @returns The response, or a promise of it.
   */
  afterResponse(
    response: HttpResponse,
    context: RequestContext,
  ): HttpResponse | Promise<HttpResponse>;
  /**
   * Told that a response is retried, before the client waits `info.delayMs`
   * (`context.attempt` is still the attempt that got it). The response
   * hooks are told of retries after a response, the error hooks of retries
   * after an exception. It may be async; what it throws is ignored, as a
   * hook that observes must not stop the retry.
   *
   * @param context The call's shared context.
   * @param info The wait and the response retried.
   */
  onRetry?(context: RequestContext, info: RetryInfo): void | Promise<void>;
}

/**
 * A hook that sees every exception of a call, in registration order,
 * before the retry decision. It cannot replace the exception.
 *
 * @example Report connection failures
 * ```ts
 * import { ConnectionException } from "@fetchline/fetchline";
 * import type { ErrorHookInterface } from "@fetchline/fetchline/interfaces";
 *
 * const reporter: ErrorHookInterface = {
 *   onError(error, context) {
 *     if (error instanceof ConnectionException) console.log(`attempt ${context.attempt} failed`);
 *   },
 * };
 * ```
 */
export interface ErrorHookInterface {
  /**
   * Observes an exception.
   *
   * @param error What was thrown.
   * @param context The call's shared context.
   */
  onError(error: unknown, context: RequestContext): void | Promise<void>;
  /**
   * Told that the call is retried after an exception, before the client
   * waits `info.delayMs` (`context.attempt` is still the attempt that
   * failed). It may be async; what it throws is ignored.
   *
   * @param context The call's shared context.
   * @param info The wait and the exception retried.
   */
  onRetry?(context: RequestContext, info: RetryInfo): void | Promise<void>;
}

/**
 * What the `onRetry` method of a response or error hook is told: how long
 * the client waits before the next attempt, and what is retried, a
 * response (for a response hook) or an exception (for an error hook).
 *
 * @example Count the waits of a call's retries
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import type { ErrorHookInterface, RetryInfo } from "@fetchline/fetchline/interfaces";
 *
 * const waits: number[] = [];
 * const observer: ErrorHookInterface = {
 *   onError() {},
 *   onRetry: (_context, info: RetryInfo) => void waits.push(info.delayMs),
 * };
 * const config = new HttpClientConfigBuilder().withErrorHook(observer).build();
 * ```
 */
export interface RetryInfo {
  /** How long the client waits before the next attempt, in milliseconds. */
  readonly delayMs: number;
  /** The response retried, for a response hook; otherwise `undefined`. */
  readonly response?: HttpResponse | undefined;
  /** The exception retried, for an error hook; otherwise `undefined`. */
  readonly error?: unknown;
}

/**
 * Where the logging hooks write: `console`, a LogTape or pino logger, or any
 * object with these four methods.
 *
 * @example Collect log lines
 * ```ts
 * import type { Logger } from "@fetchline/fetchline/interfaces";
 *
 * const lines: string[] = [];
 * const logger: Logger = {
 *   debug: (message) => lines.push(message),
 *   info: (message) => lines.push(message),
 *   warn: (message) => lines.push(message),
 *   error: (message) => lines.push(message),
 * };
 * ```
 */
export interface Logger {
  /** Logs a debug line. */
  debug(message: string): void;
  /** Logs an info line. */
  info(message: string): void;
  /** Logs a warning line. */
  warn(message: string): void;
  /** Logs an error line. */
  error(message: string): void;
}

// The exchange-level seam (API.md "Middleware"): what a middleware is, as
// the builder takes it and as the send path calls it.

/**
 * Sends a request on through the rest of the chain and the transport: the
 * `next` a {@linkcode MiddlewareFunction} is given. It may be called with a
 * changed request, more than once (at once or in turn), or not at all; a
 * `signal` ends that one send (the others go on), as the exchange's own
 * end ends them all.
 */
export type Next = (
  request: HttpRequest,
  options?: { readonly signal?: AbortSignal | undefined },
) => Promise<HttpResponse>;

/** Why an exchange is sent: the call's first, a retry, a redirect's hop, a resend after a 401… */
export type ExchangeReason = "first" | "retry" | "redirect" | "auth" | "resume" | "hedge";

/** How an exchange ended, as {@linkcode Exchange.onEnd} tells it: its response, or its error. */
export interface ExchangeOutcome {
  /** The response the exchange ended with (its body read to the end, or cancelled). */
  readonly response?: HttpResponse | undefined;
  /** What the exchange failed with. */
  readonly error?: unknown;
}

/** What {@linkcode Exchange.observe} tells of a streamed body as the caller reads it. */
export interface BodyObserver {
  /** Each chunk the caller reads (decoded bytes); a body read whole is one chunk. */
  onChunk?(chunk: Uint8Array): void;
  /** The body was read to its end. */
  onEnd?(): void;
  /** The caller cancelled the body (or the library did: a discarded response). */
  onCancel?(): void;
  /** The body's read failed with `error`. */
  onError?(error: unknown): void;
}

/**
 * One exchange (an attempt, a redirect's hop, a resend after a 401) as
 * every middleware sees it: the library's own (the cookie jar, the cache,
 * the traffic controls, the recorder) and a user's alike. The third
 * argument of a {@linkcode MiddlewareFunction}.
 *
 * @example A concurrency limit of one's own: its place is given back when the exchange ends
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import type { MiddlewareFunction } from "@fetchline/fetchline/interfaces";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => new Response("streamed body"),
 * );
 * let inFlight = 0;
 * const limit: MiddlewareFunction = async (request, next, exchange) => {
 *   inFlight++;
 *   exchange.onEnd(() => inFlight--);
 *   return await next(request);
 * };
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder()
 *     .withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
 *     .withMiddleware(limit)
 *     .build(),
 * );
 * const response = await client.stream("GET", "/");
 * assert.equal(inFlight, 1); // the body is unread: the exchange goes on
 * assert.equal((await response.read()).text, "streamed body");
 * assert.equal(inFlight, 0);
 * ```
 */
export interface Exchange {
  /** The call's context, shared by its exchanges and hooks. */
  readonly context: RequestContext;
  /** 1 for the call's first exchange, and one more for each later one (retries, hops, resends). */
  readonly attempt: number;
  /** Why this exchange is sent. */
  readonly reason: ExchangeReason;
  /** True when the caller asked for the body as a stream: `next` resolves at the head. */
  readonly streamed: boolean;
  /**
   * Aborts when this exchange must end: its timeout, the caller's signal,
   * the client's `close()` (made when first read).
   */
  readonly signal: AbortSignal;
  /** Milliseconds until the call's nearest deadline; `Infinity` when it has none. */
  remainingMs(): number;
  /** The client's limit of a body read whole, in bytes. */
  readonly maxResponseBytes: number;
  /**
   * True when the header `name` carries a credential by the client's one
   * definition (docs/authentication.md, "Secrets stay hidden": the fixed names, names that
   * look like credentials, what its hooks declare, `withCredentialHeaders`).
   */
  isCredential(name: string): boolean;
  /** The client's logger (its logging hooks'), if it has one. */
  readonly logger: Logger | undefined;
  /** The client certificate (PEM) the client shows a server that asks (`withTls()`), if any. */
  readonly clientCertificate: string | undefined;
  /**
   * Calls `callback` once when the exchange is over: its response's body
   * read to the end or cancelled (a buffered response: when it is returned
   * through the chain), or the exchange failed (its timeout, the caller's
   * signal, `close()` included).
   */
  onEnd(callback: (outcome: ExchangeOutcome) => void): void;
  /**
   * Sends `request` through the links after this one and the transport,
   * read whole, on its own: the client's timeout and `close()` end it, this
   * call's deadlines and signal do not (a cache's revalidation outlives the
   * call that started it).
   */
  background(request: HttpRequest): Promise<HttpResponse>;
  /**
   * `response` with its streamed body watched as the caller reads it (a
   * buffered one is told at once, whole): nothing is read ahead, and the
   * body's limits, read timeout and end are those it had.
   */
  observe(response: HttpResponse, observer: BodyObserver): HttpResponse;
  /**
   * Keeps `work` (a store's write) for the client's `close()` to wait for,
   * at most `maxWaitMs`: a process that closes its client and then its store
   * loses nothing.
   */
  waitUntil(work: Promise<unknown>, maxWaitMs: number): void;
  /**
   * Checks `url`'s destination against the client's network policy, as a
   * connection to it would be: `undefined` when it passes at once (no
   * policy, an allowed host, an allowed address), else a promise that
   * rejects with `BlockedDestinationException` (after a lookup the
   * exchange's end bounds). A link that answers without the network (a
   * cache hit) asks it.
   */
  checkDestination(url: string): Promise<void> | undefined;
  /**
   * Names the wait the link is in (`"the concurrency queue"`), so that a
   * timeout that ends the exchange there says so; `undefined` once it is over.
   */
  waiting(name: string | undefined): void;
}

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
  exchange: Exchange,
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
