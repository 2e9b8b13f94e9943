/**
 * The exception classes a request can fail with. Every failure of the
 * library itself is an {@linkcode HttpClientException} or a subclass; an error
 * thrown by a user's hook passes through unchanged.
 *
 * ```text
 * HttpClientException                 errors.ts
 * ├── TimeoutException                errors.ts
 * ├── ConnectionException             errors.ts
 * ├── DecodingException               errors.ts
 * ├── ResponseNotReadException        errors.ts
 * ├── AuthenticationException         errors.ts
 * ├── BlockedDestinationException     errors.ts
 * ├── ResponseException (abstract)    models/response.ts, beside the response
 * │   ├── HttpStatusException         they carry and that throws them (it
 * │   ├── ResponseParseException      imports this file: here they would
 * │   └── EventStreamException        make an import circle)
 * └── UnmatchedRequestException       testing/mock_transport.ts (./testing only)
 * ```
 *
 * @module
 */

import type { HttpRequest } from "./models/request.ts";
import {
  defineErrorInspect,
  errorView,
  maskCauseTexts,
  redactText,
  redactUrl,
} from "./masking/views.ts";

/** `<METHOD> <URL>`, the URL masked, as every failure's message names it (`url`: another URL to show). */
export function describeCall(request: { method: string; url: string }, url = request.url): string {
  return `${request.method} ${redactUrl(url)}`;
}

/** Options shared by every exception of the library. */
export interface HttpClientExceptionOptions {
  /** The request that failed, when there is one. */
  request?: HttpRequest | undefined;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The base failure of a request. Catch it for request failures in general.
 *
 * The message names the method and the URL (never a credential: any URL in
 * it is shown with its user-info and credential-like query values masked);
 * `request` and `cause` carry the details. `console.log()`, `String()` and
 * `JSON.stringify()` show no secret (see {@linkcode HttpClientException.toJSON}).
 * The runtime's error stays the `cause`, but the URLs in the messages down
 * its cause chain are masked in place, for loggers that walk the chain.
 *
 * @example Catch any failure of a request
 * ```ts
 * import { HttpClientException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new HttpClientException("GET http://127.0.0.1/: failed");
 * assert.ok(error instanceof Error);
 * assert.equal(String(error), "HttpClientException: GET http://127.0.0.1/: failed");
 * ```
 */
export class HttpClientException extends Error {
  /** The request that failed, when there is one. */
  readonly request?: HttpRequest;

  /** An exception whose `message` names the method and URL; `options`: the request and the cause. */
  constructor(message: string, options: HttpClientExceptionOptions = {}) {
    super(redactText(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options.request !== undefined) this.request = options.request;
    maskCauseTexts(options.cause);
  }

  /**
   * The masked view `console.log()` shows, for `JSON.stringify()` (so for
   * pino and winston): `name`, `message`, `stack`, `request` and `response`
   * by their `toJSON()`, and `cause`: the library's exception by its
   * `toJSON()`, a runtime's error as `{ name, message, cause }` with its
   * URLs masked, any other value as its `String()`. No credential is in it.
   *
   * @example Serialize a failure for a log
   * ```ts
   * import { HttpClientException, HttpRequest } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const request = new HttpRequest("GET", "http://ada:s3cret@127.0.0.1/?token=t0ken", {
   *   headers: { Authorization: "Bearer t0ken" },
   * });
   * const error = new HttpClientException("Connection failed: GET http://127.0.0.1/", {
   *   request,
   *   cause: new TypeError("error sending request for url (http://127.0.0.1/?token=t0ken)"),
   * });
   * const json = JSON.stringify(error);
   * assert.ok(!json.includes("s3cret") && !json.includes("t0ken"));
   * assert.equal(JSON.parse(json).request.headers.Authorization, "***");
   * assert.equal(JSON.parse(json).cause.message, "error sending request for url (http://127.0.0.1/?token=***)");
   * ```
   */
  toJSON(): Record<string, unknown> {
    return errorView(this);
  }
}

defineErrorInspect(HttpClientException);

/** The exceptions of calls that the caller's own signal ended. */
const CALLER_ENDED = new WeakSet<object>();

/**
 * True for the exception of a call that the caller's signal ended (an
 * `AbortSignal.timeout()`'s `TimeoutException` included): the caller's
 * choice, which tells nothing of the server, so a circuit breaker does not
 * count it.
 */
export function endedByCaller(error: unknown): boolean {
  return typeof error === "object" && error !== null && CALLER_ENDED.has(error);
}

/** Marks `error` as the end of a call that its caller's signal ended; returns it. */
export function callerEnded<E extends object>(error: E): E {
  CALLER_ENDED.add(error);
  return error;
}

/**
 * A request did not complete within its timeout; the timeout covers the
 * whole exchange, redirects and the response body included.
 *
 * @example Tell a timeout from other failures
 * ```ts
 * import { HttpClientException, TimeoutException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new TimeoutException("Request timed out after 5 s: GET http://127.0.0.1/");
 * assert.ok(error instanceof HttpClientException && error.name === "TimeoutException");
 * ```
 */
export class TimeoutException extends HttpClientException {}

/**
 * The connection could not be made, or was lost before the whole response
 * arrived (refused, reset, dropped, truncated body).
 *
 * @example Tell a connection failure from other failures
 * ```ts
 * import { ConnectionException, HttpClientException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new ConnectionException("Connection failed: GET http://127.0.0.1:9/");
 * assert.ok(error instanceof HttpClientException);
 * ```
 */
export class ConnectionException extends HttpClientException {}

/**
 * A response body could not be decoded for its Content-Encoding (corrupt
 * gzip, br or deflate). Not retried: the same bytes would come again. The
 * message names the coding, the method and the URL; `cause` is the
 * runtime's error. A body cut short by the connection is a
 * {@linkcode ConnectionException} instead.
 *
 * @example Tell a corrupt body from other failures
 * ```ts
 * import { DecodingException, HttpClientException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new DecodingException("Response body could not be decoded (gzip): GET http://127.0.0.1/");
 * assert.ok(error instanceof HttpClientException && error.name === "DecodingException");
 * ```
 */
export class DecodingException extends HttpClientException {}

/**
 * The body of a streamed response was asked for (`content`, `text`,
 * `json()`) before it was read: call `await response.read()` first, or read
 * `body`, `lines()` or `events()` as it arrives.
 *
 * @example Tell an unread streamed body from other failures
 * ```ts
 * import { HttpClientException, ResponseNotReadException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new ResponseNotReadException("Response body was not read: GET http://127.0.0.1/");
 * assert.ok(error instanceof HttpClientException && error.name === "ResponseNotReadException");
 * ```
 */
export class ResponseNotReadException extends HttpClientException {}

/**
 * Credentials could not be obtained (for example a token endpoint failed).
 * The message names the step and the status, never the secret.
 *
 * @example Tell an authentication failure from other failures
 * ```ts
 * import { AuthenticationException, HttpClientException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new AuthenticationException("Token step 'login' failed: status 500");
 * assert.ok(error instanceof HttpClientException);
 * ```
 */
export class AuthenticationException extends HttpClientException {}

/**
 * The network policy (`withNetworkPolicy`) refused a destination: the URL's
 * host is, or resolved to, an address a rule refuses (loopback, private,
 * link-local…), on the first request or on a redirect hop. No byte was
 * sent to that address. Never retried: the same address would be refused
 * again.
 *
 * @example Tell a refused destination from other failures
 * ```ts
 * import { BlockedDestinationException, HttpClientException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new BlockedDestinationException(
 *   "Destination refused by the network policy: GET http://169.254.169.254/",
 *   { host: "169.254.169.254", address: "169.254.169.254", rule: "link-local" },
 * );
 * assert.ok(error instanceof HttpClientException);
 * assert.equal(error.rule, "link-local");
 * ```
 */
export class BlockedDestinationException extends HttpClientException {
  /** The URL's host name (an IPv6 address without brackets). */
  readonly host: string;
  /** The address refused: the host itself when it is one, else the address it resolved to. */
  readonly address: string;
  /**
   * The rule that refused it: `loopback`, `private`, `carrier-grade-nat`,
   * `link-local`, `unique-local`, `multicast`, `unspecified`, `broadcast`,
   * `this-network`, `documentation`, `benchmarking`, `reserved`… (the
   * names of IANA's special-purpose ranges), or `deny` for a range the
   * policy's own `deny` list names.
   */
  readonly rule: string;

  /** `destination`: the host, the address and the rule; `options`: the request and the cause. */
  constructor(
    message: string,
    destination: { host: string; address: string; rule: string },
    options: HttpClientExceptionOptions = {},
  ) {
    super(message, options);
    this.host = destination.host;
    this.address = destination.address;
    this.rule = destination.rule;
  }
}

/**
 * The {@linkcode TimeoutException} of every timeout the library enforces
 * (an attempt's, the total, a read's, a retry wait that would pass the
 * total, the caller's `AbortSignal.timeout()`, an event stream's): built
 * here only, `reason` followed by the call (method and masked URL).
 */
export function timedOut(request: HttpRequest, reason: string, cause?: unknown): TimeoutException {
  return new TimeoutException(`${reason}: ${describeCall(request)}`, { request, cause });
}

/**
 * The exception for a call the client's close or the caller's signal ended,
 * or `undefined` when neither has aborted: a {@linkcode TimeoutException}
 * when the signal's reason is a `TimeoutError` (`AbortSignal.timeout()`),
 * else an {@linkcode HttpClientException}; the reason is the `cause`.
 */
export function abortedCallError(
  request: HttpRequest,
  options: { readonly closed: AbortSignal; readonly signal?: AbortSignal | undefined },
  cause?: unknown,
): HttpClientException | undefined {
  const target = describeCall(request);
  if (options.closed.aborted) {
    return new HttpClientException(`Client was closed during the request: ${target}`, {
      request,
      cause,
    });
  }
  if (options.signal?.aborted) {
    const { reason } = options.signal;
    // The caller's AbortSignal.timeout() is a timeout: it says so, and the reason stays the cause.
    if ((reason as { name?: unknown } | null)?.name === "TimeoutError") {
      return callerEnded(timedOut(request, "Request timed out (the caller's signal)", reason));
    }
    return callerEnded(
      new HttpClientException(`Request was aborted: ${target}`, { request, cause: reason }),
    );
  }
  return undefined;
}

// The name of the runtime the code runs on, for the errors that refuse what
// it cannot give (a pool, a file system): "Bun has no connection pool" tells
// the reader where the limit comes from, "this runtime" does not.

/** The globals that tell runtimes apart; each is absent on the others. */
export interface RuntimeGlobals {
  readonly Bun?: unknown;
  readonly Deno?: unknown;
  readonly process?: { readonly versions?: { readonly node?: string } };
  readonly navigator?: { readonly userAgent?: string };
  readonly document?: unknown;
  readonly WorkerGlobalScope?: unknown;
}

/**
 * Names the runtime from its globals. Bun and workerd (with its Node
 * compatibility on) also give `process.versions.node`, so they are asked
 * first; a runtime none of the checks knows is "an unknown runtime".
 */
export function runtimeName(scope: RuntimeGlobals = globalThis as RuntimeGlobals): string {
  if ("Bun" in scope) return "Bun";
  // By name, not as `scope.Deno`: the npm build names no Deno API.
  if ("Deno" in scope) return "Deno";
  if (scope.navigator?.userAgent === "Cloudflare-Workers") return "workerd";
  if (scope.process?.versions?.node !== undefined) return "Node";
  if (scope.document !== undefined) return "a browser";
  if (scope.WorkerGlobalScope !== undefined) return "a web worker";
  return "an unknown runtime";
}

/**
 * A call this runtime can never make (a file path without a file system, a
 * package it cannot load): the caller's environment, not the network, so it
 * reaches the caller as it is and is never retried.
 */
export class RuntimeLimitError extends TypeError {}

/** The error text for a file path where the runtime has no file system to read it from. */
export function noFileSystem(field: string, scope?: RuntimeGlobals): string {
  return `Invalid ${field}: a file path needs Deno, Node or Bun (this is ${
    runtimeName(scope)
  }); give a Blob or bytes`;
}
