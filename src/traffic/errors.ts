// The exceptions of traffic control (API.md "Traffic control"): each a
// HttpClientException the client never retries, with no secret in it.

import { HttpClientException, type HttpClientExceptionOptions } from "../errors.ts";

/**
 * A call found the concurrency queue full (`concurrency({ maxQueue })`): it
 * fails at once, never sent, never retried.
 *
 * @example Tell a full queue from other failures
 * ```ts
 * import { QueueFullException } from "@fetchline/fetchline/traffic";
 * import { HttpClientException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new QueueFullException("The queue is full (1000 waiting): GET http://127.0.0.1/");
 * assert.ok(error instanceof HttpClientException && error.name === "QueueFullException");
 * ```
 */
export class QueueFullException extends HttpClientException {}

/** Options of a {@linkcode RateLimitedException}. */
export interface RateLimitedExceptionOptions extends HttpClientExceptionOptions {
  /** How long the server asked callers to wait, in seconds. */
  retryAfterSeconds: number;
}

/**
 * A call would have waited longer than `serverPacing({ maxWaitSeconds })`
 * allows for the server's rate limit to reset: it fails at once, never
 * sent, never retried. `retryAfterSeconds` says how long the wait was.
 *
 * @example Read how long the server asked to wait
 * ```ts
 * import { RateLimitedException } from "@fetchline/fetchline/traffic";
 * import assert from "node:assert/strict";
 *
 * const error = new RateLimitedException("Rate limited for 120 s: GET http://127.0.0.1/", {
 *   retryAfterSeconds: 120,
 * });
 * assert.equal(error.retryAfterSeconds, 120);
 * ```
 */
export class RateLimitedException extends HttpClientException {
  /** How long the server asked callers to wait, in seconds. */
  readonly retryAfterSeconds: number;

  /** An exception whose `message` names the call; `options.retryAfterSeconds` the wait. */
  constructor(message: string, options: RateLimitedExceptionOptions) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/**
 * A call to an origin whose circuit breaker is open
 * (`circuitBreaker()`): it fails at once, never sent, never retried.
 *
 * @example Tell an open circuit from other failures
 * ```ts
 * import { CircuitOpenException } from "@fetchline/fetchline/traffic";
 * import { HttpClientException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const error = new CircuitOpenException("The circuit of http://127.0.0.1 is open: GET http://127.0.0.1/");
 * assert.ok(error instanceof HttpClientException);
 * ```
 */
export class CircuitOpenException extends HttpClientException {}
