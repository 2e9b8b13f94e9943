// The contexts a call carries: RequestContext, what the hooks of one call
// share (and the token sender a client binds to it), and FetchContext, what
// a token step is given.

import type { HttpRequest } from "./request.ts";
import type { HttpResponse } from "./response.ts";
import type { TokenData } from "./token_data.ts";
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

/** The token sender bound to `context` ({@linkcode bindContextTokenSender}), if any. */
export let contextTokenSender: (context: RequestContext) => TokenSender | undefined;
/** Binds the client's token sender to the context of one of its calls. */
export let bindContextTokenSender: (context: RequestContext, sender: TokenSender) => void;

/**
 * Counts the exchanges of the call of `context` (attempts, hops, resends):
 * the number of the one starting now, 1 for the first.
 */
export let countExchange: (context: RequestContext) => number;

/** Options of a {@linkcode RequestContext}. */
export interface RequestContextOptions {
  /** The 0-indexed attempt number. Default 0. */
  attempt?: number | undefined;
  /** The configured retry limit. Default 0. */
  maxRetries?: number | undefined;
  /** Free-form data shared by the hooks of one call. Default `{}`. */
  metadata?: Record<string, unknown> | undefined;
}

const REQUEST_CONTEXT_KEYS = keysOf<RequestContextOptions>({
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
  /**
   * The 0-indexed attempt number: 0 is the first attempt, 1 the first
   * retry. A resumed body (`withRetry({ resume })`) counts as one more.
   */
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
  /** How many exchanges the call has sent through its middleware, private for the same reasons. */
  #exchanges = 0;

  static {
    contextTokenSender = (context) => context.#tokenSender;
    bindContextTokenSender = (context, sender) => void (context.#tokenSender = sender);
    countExchange = (context) => ++context.#exchanges;
  }

  /** Creates a context of `request`, with the attempt number, retry limit and metadata of `options`. */
  constructor(request: HttpRequest, options: RequestContextOptions = {}) {
    checkKnownKeys("RequestContext options", options, REQUEST_CONTEXT_KEYS);
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

/** Options of a {@linkcode FetchContext}. */
export interface FetchContextOptions {
  /** Tokens already fetched, by step name: a Map or a plain record. */
  tokens?: Map<string, TokenData> | Readonly<Record<string, TokenData>> | undefined;
  /** Free-form data shared by the steps. */
  metadata?: Record<string, unknown> | undefined;
}

const FETCH_CONTEXT_KEYS = /* @__PURE__ */ keysOf<FetchContextOptions>({
  tokens: true,
  metadata: true,
});

/**
 * The state passed through a multi-step token fetch: each step's token is
 * stored under the step's name, so a later step can use an earlier one's.
 *
 * @example Store and read a step's token
 * ```ts
 * import { FetchContext } from "@fetchline/fetchline";
 * import { TokenData } from "@fetchline/fetchline/config";
 * import assert from "node:assert/strict";
 *
 * const context = new FetchContext();
 * context.addToken("login", new TokenData({ accessToken: "abc", expiresIn: 60 }));
 * assert.equal(context.getTokenValue("login"), "abc");
 * assert.ok(context.hasValidToken("login"));
 * assert.equal(context.hasToken("exchange"), false);
 * ```
 */
export class FetchContext {
  /** Tokens by step name. */
  readonly tokens: Map<string, TokenData>;
  /** Free-form data shared by the steps. */
  readonly metadata: Record<string, unknown>;

  /** Creates a context with the tokens already fetched and metadata of `options`. */
  constructor(options: FetchContextOptions = {}) {
    checkKnownKeys("FetchContext options", options, FETCH_CONTEXT_KEYS);
    const { tokens } = options;
    this.tokens = new Map(tokens instanceof Map ? tokens : Object.entries(tokens ?? {}));
    this.metadata = options.metadata ?? {};
  }

  /** The token of step `name`, or `undefined`. */
  getToken(name: string): TokenData | undefined {
    return this.tokens.get(name);
  }

  /** The access token of step `name`, or `undefined`. */
  getTokenValue(name: string): string | undefined {
    return this.tokens.get(name)?.accessToken;
  }

  /** Stores `token` as step `name`'s. */
  addToken(name: string, token: TokenData): void {
    this.tokens.set(name, token);
  }

  /** True when a token is stored under step `name`. */
  hasToken(name: string): boolean {
    return this.tokens.has(name);
  }

  /** True when a token is stored under step `name` and has not expired. */
  hasValidToken(name: string): boolean {
    const token = this.tokens.get(name);
    return token !== undefined && !token.isExpired();
  }
}
