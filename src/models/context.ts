// The contexts a call carries: RequestContext, what the hooks of one call
// share (and the token sender a client binds to it), and FetchContext, what
// a token step is given.

import type { HttpRequest } from "./request.ts";
import type { HttpResponse } from "./response.ts";
import type { TokenData } from "./token_data.ts";
import { checkKnownKeys, keysOf } from "./_validate.ts";
import type { CredentialNames } from "../masking/credentials.ts";

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
 * What a middleware link is told of the exchange it runs in: bound to the
 * call's context by the send path just before the link runs, so a link
 * reads it at once, before it awaits anything (the cache does).
 */
export interface ExchangeFacts {
  /** True for a streamed call: the response comes at its head, its body unread. */
  readonly stream: boolean;
  /** The client's limit of a body read whole. */
  readonly maxResponseBytes: number;
  /** Lower-case names of the credential headers the client's hooks declare, if any. */
  readonly credentialHeaders: CredentialNames | undefined;
  /** The client certificate (PEM) the client shows a server that asks (`withTls()`), if any. */
  readonly clientCertificate: string | undefined;
  /** The client's logger (that of its logging hooks, `withLogging()`), if it has one. */
  readonly logger: { warn(message: string): void } | undefined;
  /** How long the exchange may still take when the link starts, in ms (`Infinity`: no timeout). */
  readonly remainingMs: number;
  /**
   * Sends `request` through the links after this one and the transport,
   * read whole, in a step of its own: the client's timeout (or the
   * request's own `timeout` when longer) and its close end it, the call's
   * signal does not (it outlives the call).
   */
  background(request: HttpRequest): Promise<HttpResponse>;
  /**
   * Calls `listener` once when the exchange ends early (its timeout, the
   * caller's signal, the client's close): a link that waits (a queue, a rate
   * limit) gives its place back there. Gives what undoes it.
   */
  onEnd(listener: () => void): () => void;
  /**
   * Checks `url` against the client's network policy as the network path
   * does (a host name is resolved and each answer checked, unless the
   * policy's `allow` names it), for a link that answers without the network
   * (a cache's hit): `undefined` when it passes at once or the client has
   * no policy, else a promise that rejects with a
   * `BlockedDestinationException` when the policy refuses it. The
   * exchange's timeout, the caller's signal and the client's close end the
   * wait.
   */
  checkDestination(url: string): Promise<void> | undefined;
  /**
   * Hands the client `work` the link leaves running past the exchange (a
   * cache's store write, a background revalidation): the client's `close()`
   * (and `await using`) waits for it to settle, at most `maxWaitMs` from the
   * close, so that what the link had under way is not lost to a store
   * closed next. Its failure is the link's to tell.
   */
  waitUntil(work: Promise<unknown>, maxWaitMs: number): void;
  /**
   * Names the wait the link is in (`"the concurrency queue"`), so a timeout
   * that ends the exchange there says so; `undefined` once it is over.
   */
  waiting(name: string | undefined): void;
}

/** What the send path bound to `context` for the link running now, if any. */
export let contextExchange: (context: RequestContext) => ExchangeFacts | undefined;
/** Binds what a middleware link is told of its exchange to the call's context. */
export let bindContextExchange: (context: RequestContext, facts: ExchangeFacts) => void;

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
  /** What the running middleware link is told of its exchange, private for the same reasons. */
  #exchange: ExchangeFacts | undefined = undefined;

  static {
    contextTokenSender = (context) => context.#tokenSender;
    bindContextTokenSender = (context, sender) => void (context.#tokenSender = sender);
    contextExchange = (context) => context.#exchange;
    bindContextExchange = (context, facts) => void (context.#exchange = facts);
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
