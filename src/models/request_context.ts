import type { HttpRequest } from "./request.ts";
import type { HttpResponse } from "./response.ts";
import { checkKnownKeys, keysOf } from "./_validate.ts";

/**
 * Sends a token request through a client's transport: its pool (so its
 * proxy and TLS settings) and its logging hooks, never its auth hook, and
 * without retries. A client's auth layer binds one to each call's context
 * (auth/hooks.ts).
 */
export type TokenSender = ((request: HttpRequest) => Promise<HttpResponse>) & {
  /** Aborted when the client closes: its sender then sends nothing more. */
  readonly closed?: AbortSignal | undefined;
};

let readTokenSender: (context: RequestContext) => TokenSender | undefined;
let writeTokenSender: (context: RequestContext, sender: TokenSender) => void;

/** Options of a {@linkcode RequestContext}. */
export interface RequestContextOptions {
  /** The 0-indexed attempt number. Default 0. */
  attempt?: number | undefined;
  /** The configured retry limit. Default 0. */
  maxRetries?: number | undefined;
  /** Free-form data shared by the hooks of one call. Default `{}`. */
  metadata?: Record<string, unknown> | undefined;
}

const OPTION_KEYS = keysOf<RequestContextOptions>({
  attempt: true,
  maxRetries: true,
  metadata: true,
});

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
   * The client's token sender for this call, bound by its auth layer on
   * every call of a client with an auth hook: a private field, so binding
   * it is a store into a context of a known shape (a weak map entry per
   * call costs its insertion and the collector's work on every context),
   * and it stays out of every view of the context.
   */
  #tokenSender: TokenSender | undefined = undefined;

  static {
    readTokenSender = (context) => context.#tokenSender;
    writeTokenSender = (context, sender) => {
      context.#tokenSender = sender;
    };
  }

  /**
   * Creates a context.
   *
   * @param request The request being executed.
   * @param options The attempt number, retry limit and metadata.
   */
  constructor(request: HttpRequest, options: RequestContextOptions = {}) {
    checkKnownKeys("RequestContext options", options, OPTION_KEYS);
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

/** The token sender bound to `context` ({@linkcode bindContextTokenSender}), if any. */
export function contextTokenSender(context: RequestContext): TokenSender | undefined {
  return readTokenSender(context);
}

/** Binds the client's token sender to the context of one of its calls. */
export function bindContextTokenSender(context: RequestContext, sender: TokenSender): void {
  writeTokenSender(context, sender);
}
