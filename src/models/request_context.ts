import type { HttpRequest } from "./request.ts";

/** Options of a {@linkcode RequestContext}. */
export interface RequestContextOptions {
  /** The 0-indexed attempt number. Default 0. */
  attempt?: number | undefined;
  /** The configured retry limit. Default 0. */
  maxRetries?: number | undefined;
  /** Free-form data shared by the hooks of one call. Default `{}`. */
  metadata?: Record<string, unknown> | undefined;
}

/**
 * The mutable state of one call, shared by every attempt: the request being
 * executed, the attempt counter and free-form metadata (camelCase keys such
 * as `requestId`, `correlationId`, `rateLimitRemaining`, `startTime`).
 *
 * @example Count attempts
 * ```ts
 * import { HttpRequest, RequestContext } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const context = new RequestContext(new HttpRequest("GET", "/items"), { maxRetries: 2 });
 * assert.equal(context.isRetry, false);
 * context.incrementAttempt();
 * assert.equal(context.attempt, 1);
 * assert.equal(context.isRetry, true);
 * ```
 */
export class RequestContext {
  /** The request being executed. */
  request: HttpRequest;
  /** The 0-indexed attempt number: 0 is the first attempt, 1 the first retry. */
  attempt: number;
  /** The configured retry limit. */
  maxRetries: number;
  /** Free-form data shared by the hooks of one call. */
  metadata: Record<string, unknown>;

  /**
   * Creates a context.
   *
   * @param request The request being executed.
   * @param options The attempt number, retry limit and metadata.
   */
  constructor(request: HttpRequest, options: RequestContextOptions = {}) {
    this.request = request;
    this.attempt = options.attempt ?? 0;
    this.maxRetries = options.maxRetries ?? 0;
    this.metadata = options.metadata ?? {};
  }

  /** True when this attempt is a retry (`attempt > 0`). */
  get isRetry(): boolean {
    return this.attempt > 0;
  }

  /** Adds 1 to `attempt`. */
  incrementAttempt(): void {
    this.attempt += 1;
  }
}
