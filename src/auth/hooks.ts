// Auth hooks: the interfaces a client runs, BaseAuthHook with its excluded
// paths, the hooks that put credentials in a header (API key, Basic, a
// provider's token, a token manager's token), CompositeAuthHook, and how a
// token request finds the client's transport. Getting tokens is tokens.ts.
//
// A client that sends without auth keeps only TokenAuthHook (for
// `withTokenAuth()`) and the token sender: a bundler drops the rest while
// every top-level value is free of side effects (the key sets are pure).

import { TokenData } from "../models/token_data.ts";
import { AuthenticationException, describeCall } from "../errors.ts";
import type { MiddlewareFunction, RequestHookInterface } from "../hooks/hook_interfaces.ts";
import { basicAuthorization, headerValue } from "../http/headers.ts";
import { type HttpRequest, withCheckedHeader } from "../models/request.ts";
import {
  bindContextTokenSender,
  contextTokenSender,
  RequestContext,
  type TokenSender,
} from "../models/context.ts";
import type { HttpResponse } from "../models/response.ts";
import {
  checkKnownKeys,
  keysOf,
  requireText,
  validateCount,
  validateHeader,
  validateUsername,
} from "../models/_validate.ts";

/**
 * Decides whether a call resends after an authentication error.
 *
 * @example Allow two refreshes
 * ```ts
 * import type { AuthRetryStrategyInterface } from "@fetchline/fetchline/interfaces";
 *
 * const twice: AuthRetryStrategyInterface = {
 *   maxRetries: 2,
 *   shouldRetry: (_response, authRetries) => authRetries < 2,
 * };
 * ```
 */
export interface AuthRetryStrategyInterface {
  /** How many times one call may refresh and resend. */
  readonly maxRetries: number;
  /** Whether to refresh and resend after `response`, the call having resent `authRetries` times. */
  shouldRetry(response: HttpResponse, authRetries: number): boolean;
}

/**
 * Gets and refreshes access tokens.
 *
 * @example A manager with a fixed token
 * ```ts
 * import { TokenData } from "@fetchline/fetchline/config";
 * import type { TokenManagerInterface } from "@fetchline/fetchline/interfaces";
 *
 * const token = new TokenData({ accessToken: "fixed" });
 * const fixed: TokenManagerInterface = {
 *   getToken: () => Promise.resolve(token),
 *   refreshToken: () => Promise.resolve(token),
 *   invalidateToken() {},
 * };
 * ```
 */
export interface TokenManagerInterface {
  /** Returns a valid token, fetching one when needed. */
  getToken(): Promise<TokenData>;
  /** Fetches a new token. */
  refreshToken(): Promise<TokenData>;
  /** Discards the current token. */
  invalidateToken(): void;
}

/**
 * The authentication hook: runs after the request hooks on requests it
 * should authenticate, and is asked to refresh and resend after an
 * authentication error. Extend {@linkcode BaseAuthHook} to write one.
 *
 * The client passes the failed response to `invalidateAuth` and
 * `refreshAuth`, so a hook shared by concurrent calls can tell a token that
 * another call has already replaced; hooks may ignore it.
 *
 * @example Check the members of a hook
 * ```ts
 * import { ApiKeyAuthHook } from "@fetchline/fetchline";
 * import type { AuthHookInterface } from "@fetchline/fetchline/interfaces";
 *
 * const hook: AuthHookInterface = new ApiKeyAuthHook("key-123");
 * console.log(hook.retryStrategy.maxRetries);
 * ```
 */
export interface AuthHookInterface extends RequestHookInterface {
  /** How many times a call may refresh and resend. */
  readonly retryStrategy: AuthRetryStrategyInterface;
  /** Whether `request` is to be authenticated. */
  shouldAuthenticate(request: HttpRequest): boolean;
  /** Whether `response` signals an authentication failure. */
  isAuthError(response: HttpResponse): boolean;
  /** Refreshes the credentials after `failed` (when the client calls it); true to resend. */
  refreshAuth(failed?: HttpResponse): Promise<boolean>;
  /** Discards the current credentials (`failed` as for `refreshAuth`). */
  invalidateAuth(failed?: HttpResponse): void;
  /** Returns the current credentials as a token. */
  getToken(): Promise<TokenData>;
}

/** Options of {@linkcode SimpleAuthRetryStrategy}. */
export interface SimpleAuthRetryStrategyOptions {
  /** How many times one call may refresh and resend. Default 1. */
  maxRetries?: number | undefined;
}

const RETRY_OPTION_KEYS = /* @__PURE__ */ keysOf<SimpleAuthRetryStrategyOptions>({
  maxRetries: true,
});

/**
 * Refreshes and resends up to `maxRetries` times per call (default 1), the
 * default of every built-in auth hook.
 *
 * @example Allow one refresh
 * ```ts
 * import { SimpleAuthRetryStrategy } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const strategy = new SimpleAuthRetryStrategy();
 * assert.equal(strategy.maxRetries, 1);
 * ```
 */
export class SimpleAuthRetryStrategy implements AuthRetryStrategyInterface {
  /** How many times one call may refresh and resend. */
  readonly maxRetries: number;

  /** Creates the strategy; a negative or fractional count is a RangeError. */
  constructor(options: SimpleAuthRetryStrategyOptions = {}) {
    checkKnownKeys("SimpleAuthRetryStrategy options", options, RETRY_OPTION_KEYS);
    this.maxRetries = validateCount("maxRetries", options.maxRetries ?? 1);
  }

  /** True while fewer than `maxRetries` resends were made in this call. */
  shouldRetry(_response: HttpResponse, authRetries: number): boolean {
    return authRetries < this.maxRetries;
  }
}

/**
 * Never refreshes: an authentication error is returned as it is.
 *
 * @example Turn auth retries off
 * ```ts
 * import { ApiKeyAuthHook, NoAuthRetryStrategy } from "@fetchline/fetchline";
 *
 * const hook = new ApiKeyAuthHook("key", { retryStrategy: new NoAuthRetryStrategy() });
 * ```
 */
export class NoAuthRetryStrategy implements AuthRetryStrategyInterface {
  /** Always 0. */
  readonly maxRetries = 0;

  /** Never allows a resend. */
  shouldRetry(): boolean {
    return false;
  }
}

/**
 * A predicate telling whether a request URL's pathname is excluded: one of
 * `excludedPaths` exactly, or an fnmatch-style pattern where `*` is any run
 * of characters (`/` included), `?` one character and the rest themselves.
 */
export function pathExclusion(
  excludedPaths: Iterable<string> = [],
  excludedPathPatterns: Iterable<string> = [],
): (url: string) => boolean {
  const exact = new Set(excludedPaths);
  const patterns = [...excludedPathPatterns];
  if (patterns.some((glob) => typeof glob !== "string")) {
    throw new TypeError("Invalid excludedPathPatterns: expected strings");
  }
  if (exact.size === 0 && patterns.length === 0) return () => false;
  return (url) => {
    const path = URL.parse(url, "http://relative.invalid")?.pathname ?? url;
    return exact.has(path) || patterns.some((glob) => globMatches(glob, path));
  };
}

/**
 * Whether `path` matches `glob`: a greedy walk that, on a mismatch, goes
 * back only to the last `*` and lets it take one more character. Never
 * further back: a later `*` can take whatever an earlier one could, so time
 * is at most the path's length times the pattern's, where a backtracking
 * RegExp (`*a*a*a*b` as `^.*a.*a.*a.*b$`) takes time exponential in its `*`s.
 */
function globMatches(glob: string, path: string): boolean {
  let g = 0;
  let p = 0;
  let star = -1; // The last `*` passed, and where in the path its run ends.
  let runEnd = 0;
  while (p < path.length) {
    const char = glob[g];
    if (char === "*") {
      star = g++;
      runEnd = p;
    } else if (char === "?" || (char !== undefined && char === path[p])) {
      g++;
      p++;
    } else if (star === -1) {
      return false;
    } else {
      g = star + 1;
      p = ++runEnd;
    }
  }
  while (glob[g] === "*") g++;
  return g === glob.length;
}

/** Options every built-in auth hook takes. */
export interface BaseAuthHookOptions {
  /** How many times a call may refresh and resend. Default: one time. */
  retryStrategy?: AuthRetryStrategyInterface | undefined;
  /** Pathnames that are not authenticated (exact match). */
  excludedPaths?: Iterable<string> | undefined;
  /** fnmatch-style patterns of pathnames that are not authenticated (`/public/*`, `*health*`). */
  excludedPathPatterns?: Iterable<string> | undefined;
}

// The keys each built-in hook's own options add to; the base class checks
// none, as a subclass's options, passed to it whole, may hold their own.
const BASE_AUTH_HOOK_OPTIONS = {
  retryStrategy: true,
  excludedPaths: true,
  excludedPathPatterns: true,
} as const satisfies Record<keyof BaseAuthHookOptions, true>;

/**
 * The base of auth hooks: excluded paths and patterns, `isAuthError` (status
 * 401), and a `refreshAuth` that returns false. A subclass writes
 * `beforeRequest` and `getToken`.
 *
 * @example Write an auth hook
 * ```ts
 * import { BaseAuthHook, type HttpRequest } from "@fetchline/fetchline";
 * import { TokenData } from "@fetchline/fetchline/config";
 * import assert from "node:assert/strict";
 *
 * class SessionHook extends BaseAuthHook {
 *   beforeRequest(request: HttpRequest): HttpRequest {
 *     return request.withHeaders({ "X-Session": "abc" });
 *   }
 *   getToken(): Promise<TokenData> {
 *     return Promise.resolve(new TokenData({ accessToken: "abc", tokenType: "Session" }));
 *   }
 * }
 * const hook = new SessionHook({ excludedPathPatterns: ["/public/*"] });
 * assert.equal(await hook.refreshAuth(), false);
 * ```
 */
export abstract class BaseAuthHook implements AuthHookInterface {
  /** How many times a call may refresh and resend. */
  readonly retryStrategy: AuthRetryStrategyInterface;
  readonly #excluded: (url: string) => boolean;

  /** Sets the retry strategy and the excluded paths and patterns. */
  constructor(options: BaseAuthHookOptions = {}) {
    this.retryStrategy = options.retryStrategy ?? new SimpleAuthRetryStrategy();
    this.#excluded = pathExclusion(options.excludedPaths, options.excludedPathPatterns);
  }

  /** Adds credentials to `request`, in the call's `context`. */
  abstract beforeRequest(
    request: HttpRequest,
    context: RequestContext,
  ): HttpRequest | Promise<HttpRequest>;

  /** Returns the current credentials as a token. */
  abstract getToken(): Promise<TokenData>;

  /** True unless the URL's pathname is excluded. */
  shouldAuthenticate(request: HttpRequest): boolean {
    return !this.#excluded(request.url);
  }

  /** True for status 401. */
  isAuthError(response: HttpResponse): boolean {
    return response.statusCode === 401;
  }

  /** Cannot refresh: returns false. */
  refreshAuth(_failed?: HttpResponse): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** Nothing to discard. */
  invalidateAuth(_failed?: HttpResponse): void {}
}

/** True when `request` already carries credentials: its `auth`, or the header `name` in any case. */
function carriesCredentials(request: HttpRequest, name: string): boolean {
  return request.auth !== undefined || headerValue(request.headers, name) !== undefined;
}

// A token from a step, a manager or a provider is data, not a caller's
// mistake: one a header cannot carry (by the check every header value goes
// through) fails the token fetch or the call with an AuthenticationException,
// whose cause names the character, never the token.

/** True when `token` can be a header value (alone or after a scheme and a space). */
export function fitsInHeader(token: string): boolean {
  try {
    validateHeader("token", "Authorization", token);
    return true;
  } catch {
    return false;
  }
}

/** `request` with `<prefix> <token>` in header `name`. */
function withToken(
  request: HttpRequest,
  name: string,
  prefix: string,
  token: string,
  source: "provider" | "manager",
): HttpRequest {
  try {
    validateHeader("token", name, token);
  } catch (cause) {
    throw new AuthenticationException(
      `The token ${source} returned a token a header cannot carry: ${describeCall(request)}`,
      { request, cause },
    );
  }
  return request.withHeaders({ [name]: prefix === "" ? token : `${prefix} ${token}` });
}

/** Options of {@linkcode ApiKeyAuthHook}. */
export interface ApiKeyAuthHookOptions extends BaseAuthHookOptions {
  /** The header the key goes in. Default `X-API-Key`. */
  headerName?: string | undefined;
}

// Spelt out: a spread is a side effect to a bundler, which would then keep this unused.
const API_KEY_OPTION_KEYS = /* @__PURE__ */ keysOf<ApiKeyAuthHookOptions>({
  retryStrategy: true,
  excludedPaths: true,
  excludedPathPatterns: true,
  headerName: true,
});

/**
 * Sends an API key in a header (default `X-API-Key`); an empty key is a
 * TypeError. A redirect that leaves the origin, or goes from https to http,
 * drops the header (`credentialHeaders`), whoever set it.
 *
 * @example Send an API key
 * ```ts
 * import { ApiKeyAuthHook, HttpRequest } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const hook = new ApiKeyAuthHook("key-123", { headerName: "X-Key" });
 * const request = new HttpRequest("GET", "/data");
 * const sent = await hook.beforeRequest(request);
 * assert.equal(sent.headers?.["X-Key"], "key-123");
 * ```
 */
export class ApiKeyAuthHook extends BaseAuthHook {
  /** The header the key goes in. */
  readonly headerName: string;
  /** The header the key goes in, as a credential: a redirect that leaves the origin drops it. */
  readonly credentialHeaders: readonly string[];
  readonly #apiKey: string;
  readonly #checkedName: string;

  /** Creates the hook with `apiKey`, a non-empty string. */
  constructor(apiKey: string, options: ApiKeyAuthHookOptions = {}) {
    super(options);
    checkKnownKeys("ApiKeyAuthHook options", options, API_KEY_OPTION_KEYS);
    this.#apiKey = requireText("apiKey", apiKey);
    this.headerName = this.#checkedName = options.headerName ?? "X-API-Key";
    validateHeader("headerName", this.headerName, "");
    validateHeader("apiKey", this.headerName, apiKey);
    this.credentialHeaders = Object.freeze([this.headerName]);
  }

  /** Adds the key, unless the request carries it (or `auth`) already. */
  beforeRequest(request: HttpRequest): HttpRequest {
    const name = this.headerName;
    if (carriesCredentials(request, name)) return request;
    // Both checked when the hook was made (unless the name was changed since).
    if (name !== this.#checkedName) return request.withHeaders({ [name]: this.#apiKey });
    return withCheckedHeader(request, name, this.#apiKey);
  }

  /** The key as a TokenData with `tokenType` `ApiKey`. */
  getToken(): Promise<TokenData> {
    return Promise.resolve(new TokenData({ accessToken: this.#apiKey, tokenType: "ApiKey" }));
  }

  /** A description with the key masked. */
  override toString(): string {
    return `ApiKeyAuthHook(${this.headerName}: ***)`;
  }
}

const BASIC_OPTION_KEYS = /* @__PURE__ */ keysOf<BaseAuthHookOptions>(BASE_AUTH_HOOK_OPTIONS);

/**
 * HTTP Basic authentication: `Authorization: Basic base64(utf8("user:pass"))`.
 * An empty username, or one with `:`, is a TypeError.
 *
 * @example Send Basic credentials
 * ```ts
 * import { BasicAuthHook, HttpRequest } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const hook = new BasicAuthHook("ada", "s3cret");
 * const request = new HttpRequest("GET", "/me");
 * const sent = await hook.beforeRequest(request);
 * assert.equal(sent.headers?.Authorization, `Basic ${btoa("ada:s3cret")}`);
 * ```
 */
export class BasicAuthHook extends BaseAuthHook {
  /** The username. */
  readonly username: string;
  /** `Authorization`, a credential: a redirect that leaves the origin drops it. */
  readonly credentialHeaders: readonly string[] = Object.freeze(["Authorization"]);
  readonly #header: string;

  /** Creates the hook with a non-empty `username` without `:`, and a `password`. */
  constructor(username: string, password: string, options: BaseAuthHookOptions = {}) {
    super(options);
    checkKnownKeys("BasicAuthHook options", options, BASIC_OPTION_KEYS);
    this.username = validateUsername("username", username);
    if (typeof password !== "string") throw new TypeError("Invalid password: expected a string");
    this.#header = basicAuthorization(username, password);
  }

  /** Adds the credentials, unless the request carries some already. */
  beforeRequest(request: HttpRequest): HttpRequest {
    if (carriesCredentials(request, "Authorization")) return request;
    return request.withHeaders({ Authorization: this.#header });
  }

  /** The encoded credentials as a TokenData with `tokenType` `Basic`. */
  getToken(): Promise<TokenData> {
    return Promise.resolve(
      new TokenData({ accessToken: this.#header.slice(6), tokenType: "Basic" }),
    );
  }

  /** A description with the password masked. */
  override toString(): string {
    return `BasicAuthHook(${this.username}:***)`;
  }
}

/** Options of {@linkcode AuthorizationHook}. */
export interface AuthorizationHookOptions {
  /** The header the token goes in. Default `Authorization`. */
  headerName?: string | undefined;
  /** The scheme written before the token. Default `Bearer`; `""` writes the token alone. */
  prefix?: string | undefined;
}

const AUTHORIZATION_OPTION_KEYS = /* @__PURE__ */ keysOf<AuthorizationHookOptions>({
  headerName: true,
  prefix: true,
});

/**
 * A request hook (register it with `withRequestHook`) that writes the token
 * a provider returns, as `<prefix> <token>`, into a header, unless the
 * request carries credentials already. The provider is asked on every
 * attempt; an empty token, or one a header cannot carry (CR, LF, NUL, other
 * controls, anything above U+00FF), fails the call with
 * {@linkcode AuthenticationException}, which never shows the token. A
 * redirect that leaves the origin, or goes from https to http, drops the
 * header (`credentialHeaders`).
 *
 * @example Use a token from elsewhere
 * ```ts
 * import { AuthorizationHook, HttpRequest } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const hook = new AuthorizationHook(() => "t-42");
 * const request = new HttpRequest("GET", "/me");
 * const sent = await hook.beforeRequest(request);
 * assert.equal(sent.headers?.Authorization, "Bearer t-42");
 * ```
 */
export class AuthorizationHook implements RequestHookInterface {
  /** The header the token goes in. */
  readonly headerName: string;
  /** The scheme written before the token. */
  readonly prefix: string;
  /** The header the token goes in, as a credential: a redirect that leaves the origin drops it. */
  readonly credentialHeaders: readonly string[];
  readonly #tokenProvider: () => string | Promise<string>;

  /** Creates the hook; `tokenProvider` returns the current token. */
  constructor(
    tokenProvider: () => string | Promise<string>,
    options: AuthorizationHookOptions = {},
  ) {
    if (typeof tokenProvider !== "function") {
      throw new TypeError("Invalid tokenProvider: expected a function");
    }
    checkKnownKeys("AuthorizationHook options", options, AUTHORIZATION_OPTION_KEYS);
    this.#tokenProvider = tokenProvider;
    this.headerName = options.headerName ?? "Authorization";
    this.prefix = options.prefix ?? "Bearer";
    validateHeader("headerName", this.headerName, "");
    validateHeader("prefix", this.headerName, this.prefix);
    this.credentialHeaders = Object.freeze([this.headerName]);
  }

  /** Adds the provider's token, unless the request carries credentials already. */
  async beforeRequest(request: HttpRequest): Promise<HttpRequest> {
    if (carriesCredentials(request, this.headerName)) return request;
    const token = await this.#tokenProvider();
    if (typeof token !== "string" || token === "") {
      throw new AuthenticationException(
        `The token provider returned no token: ${describeCall(request)}`,
        { request },
      );
    }
    return withToken(request, this.headerName, this.prefix, token, "provider");
  }
}

/** Options of {@linkcode CompositeAuthHook}. */
export interface CompositeAuthHookOptions {
  /** `first_match` (default) applies the first hook that should authenticate; `all` applies every one. */
  strategy?: "first_match" | "all" | undefined;
  /** How many times a call may refresh and resend. Default: one time. */
  retryStrategy?: AuthRetryStrategyInterface | undefined;
}

const COMPOSITE_OPTION_KEYS = /* @__PURE__ */ keysOf<CompositeAuthHookOptions>({
  strategy: true,
  retryStrategy: true,
});

/**
 * Combines auth hooks. With `first_match` the first hook whose
 * `shouldAuthenticate` holds authenticates the request; with `all` every
 * such hook does, in order. An auth error is one any hook recognises; a
 * refresh asks the hooks that apply to the failed request.
 *
 * @example An API key for one path, a token for the rest
 * ```ts
 * import { ApiKeyAuthHook, BasicAuthHook, CompositeAuthHook, HttpRequest, RequestContext } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const hook = new CompositeAuthHook([
 *   new ApiKeyAuthHook("key", { excludedPathPatterns: ["/admin/*"] }),
 *   new BasicAuthHook("root", "pw"),
 * ]);
 * const admin = new HttpRequest("GET", "/admin/users");
 * const sent = await hook.beforeRequest(admin, new RequestContext(admin));
 * assert.equal(sent.headers?.["X-API-Key"], undefined);
 * assert.ok(sent.headers?.Authorization?.startsWith("Basic "));
 * ```
 */
export class CompositeAuthHook implements AuthHookInterface {
  /** The hooks, in order. */
  readonly hooks: readonly AuthHookInterface[];
  /** Every hook's credential headers: a redirect that leaves the origin drops them. */
  readonly credentialHeaders: readonly string[];
  /** `first_match` or `all`. */
  readonly strategy: "first_match" | "all";
  /** How many times a call may refresh and resend. */
  readonly retryStrategy: AuthRetryStrategyInterface;
  /**
   * The link its one hook with DPoP needs on each exchange (its proofs),
   * passed on so the client runs it; `undefined` when no hook needs one.
   */
  readonly middleware: { readonly handle: MiddlewareFunction } | undefined;

  /**
   * Creates the hook from at least one auth hook. At most one of them may
   * bind its tokens to a DPoP key: a proof's link cannot tell which hook's
   * token a request carries.
   */
  constructor(hooks: readonly AuthHookInterface[], options: CompositeAuthHookOptions = {}) {
    if (!Array.isArray(hooks) || hooks.length === 0) {
      throw new TypeError("Invalid hooks: expected at least one auth hook");
    }
    checkKnownKeys("CompositeAuthHook options", options, COMPOSITE_OPTION_KEYS);
    const strategy = options.strategy ?? "first_match";
    if (strategy !== "first_match" && strategy !== "all") {
      throw new TypeError(
        `Invalid strategy: expected "first_match" or "all", got ${JSON.stringify(strategy)}`,
      );
    }
    this.hooks = Object.freeze([...hooks]);
    this.credentialHeaders = Object.freeze(
      this.hooks.flatMap((hook) => hook.credentialHeaders ?? []),
    );
    this.strategy = strategy;
    this.retryStrategy = options.retryStrategy ?? new SimpleAuthRetryStrategy();
    const links = this.hooks.flatMap((hook) => {
      const link = (hook as { middleware?: { handle?: unknown } }).middleware;
      return typeof link?.handle === "function" ? [link as { handle: MiddlewareFunction }] : [];
    });
    if (links.length > 1) {
      throw new TypeError(
        `Invalid hooks: ${links.length} hooks bind tokens to a DPoP key; one CompositeAuthHook takes at most one`,
      );
    }
    this.middleware = links[0];
  }

  /** Applies the matching hook (or hooks). */
  async beforeRequest(request: HttpRequest, context: RequestContext): Promise<HttpRequest> {
    for (const hook of this.#applying(request)) {
      request = await hook.beforeRequest(request, context);
    }
    return request;
  }

  /** True when any hook should authenticate `request`. */
  shouldAuthenticate(request: HttpRequest): boolean {
    return this.hooks.some((hook) => hook.shouldAuthenticate(request));
  }

  /** True when any hook recognises an auth error. */
  isAuthError(response: HttpResponse): boolean {
    return this.hooks.some((hook) => hook.isAuthError(response));
  }

  /** Refreshes the hooks that applied to the failed request (all, without one); true when any did. */
  async refreshAuth(failed?: HttpResponse): Promise<boolean> {
    let refreshed = false;
    for (const hook of this.#concerned(failed)) {
      refreshed = (await hook.refreshAuth(failed)) || refreshed;
    }
    return refreshed;
  }

  /** Invalidates the hooks that applied to the failed request (all, without one). */
  invalidateAuth(failed?: HttpResponse): void {
    for (const hook of this.#concerned(failed)) hook.invalidateAuth(failed);
  }

  /** The first hook's token. */
  getToken(): Promise<TokenData> {
    return this.hooks[0]!.getToken();
  }

  #applying(request: HttpRequest): AuthHookInterface[] {
    const matching = this.hooks.filter((hook) => hook.shouldAuthenticate(request));
    return this.strategy === "all" ? matching : matching.slice(0, 1);
  }

  #concerned(failed: HttpResponse | undefined): readonly AuthHookInterface[] {
    return failed === undefined ? this.hooks : this.#applying(failed.request);
  }
}

// How a token request reaches the transport of the client whose call needs
// the token, without a public API: the auth layer binds a sender to the
// call's RequestContext (and to a failed response it refreshes after);
// TokenAuthHook makes it current for the synchronous start of the manager's
// getToken()/refreshToken(); the manager keeps it for the run and makes it
// current for the synchronous start of each step's fetch(), where
// clientCredentialsStep reads it. A manager used on its own has none.

/** Senders bound to responses: only an auth error to refresh after gets one. */
const bound = new WeakMap<object, TokenSender>();

/**
 * Binds `sender` to `key`: a call's RequestContext keeps it in a field (one
 * is bound on every call, so it must cost no more than a store); a response
 * to refresh after, in a weak map.
 */
export function bindTokenSender(key: object, sender: TokenSender | undefined): void {
  if (sender === undefined) return;
  if (key instanceof RequestContext) bindContextTokenSender(key, sender);
  else bound.set(key, sender);
}

let current: TokenSender | undefined;

/** Runs `start` with `sender` as the current one: only its synchronous part sees it. */
export function withTokenSender<T>(sender: TokenSender | undefined, start: () => T): T {
  const previous = current;
  current = sender;
  try {
    return start();
  } finally {
    current = previous;
  }
}

/** The current sender, read at the synchronous start of a token fetch. */
export function currentTokenSender(): TokenSender | undefined {
  return current;
}

/**
 * A DPoP key as the token pipeline uses it (RFC 9449): the `DPoP` class of
 * `@fetchline/fetchline/signing` makes one. Declared here, structurally, so
 * that a client without DPoP never loads the signing code.
 *
 * @example Bind tokens to a DPoP key
 * ```ts
 * import { TokenAuthHook, TokenManager } from "@fetchline/fetchline";
 * import type { DPoPBinding } from "@fetchline/fetchline/interfaces";
 * import { TokenData } from "@fetchline/fetchline/config";
 * import { DPoP } from "@fetchline/fetchline/signing";
 *
 * const dpop: DPoPBinding = await DPoP.generate();
 * const manager = new TokenManager([{ name: "t", fetch: () => Promise.resolve(new TokenData({ accessToken: "t" })) }]);
 * const hook = new TokenAuthHook(manager, { dpop });
 * ```
 */
export interface DPoPBinding {
  /**
   * Sends a token request through `send` with a proof, answering one
   * `use_dpop_nonce` challenge with a resend.
   */
  sendTokenRequest(
    request: HttpRequest,
    send: (request: HttpRequest) => Promise<HttpResponse>,
  ): Promise<HttpResponse>;
  /** The link that gives each exchange carrying `Authorization: DPoP …` a fresh proof. */
  readonly handle: MiddlewareFunction;
}

/** Options of {@linkcode TokenAuthHook}. */
export interface TokenAuthHookOptions extends BaseAuthHookOptions {
  /** The header the token goes in. Default `Authorization`. */
  authHeaderName?: string | undefined;
  /** The scheme written before the token. Default `Bearer`; `""` writes the token alone. */
  authHeaderPrefix?: string | undefined;
  /**
   * Binds the tokens to a DPoP key (`DPoP.generate()` of
   * `@fetchline/fetchline/signing`): the token goes as `Authorization: DPoP
   * <token>` with a fresh proof on each exchange (header and prefix cannot
   * then be changed).
   */
  dpop?: DPoPBinding | undefined;
}

/** The keys of {@linkcode TokenAuthHookOptions}, which `withTokenAuth()`'s options add to. */
export const TOKEN_AUTH_HOOK_OPTIONS = {
  ...BASE_AUTH_HOOK_OPTIONS,
  authHeaderName: true,
  authHeaderPrefix: true,
  dpop: true,
} as const satisfies Record<keyof TokenAuthHookOptions, true>;

const TOKEN_AUTH_HOOK_KEYS = /* @__PURE__ */ keysOf<TokenAuthHookOptions>(TOKEN_AUTH_HOOK_OPTIONS);

/**
 * Token authentication that refreshes itself: sends `<prefix> <token>` in
 * the named header, gets a fresh token when the cached one has expired, and
 * after a 401 invalidates, refreshes and resends as its retry strategy
 * allows. Concurrent calls that all receive a 401 for the same token cause
 * one refresh: a call whose token another call has already replaced just
 * resends with the new one. A token a header cannot carry fails the call
 * with {@linkcode AuthenticationException}, which never shows it. A
 * redirect that leaves the origin, or goes from https to http, drops the
 * header (`credentialHeaders`), whoever set it. Run by a client, the
 * manager's token requests go through that client's transport (see
 * {@linkcode clientCredentialsStep}). With `dpop` (RFC 9449) the token
 * goes as `Authorization: DPoP <token>` and each exchange (every retry,
 * redirect hop and resend) gets a fresh proof from the key's `handle`,
 * which the client runs as the first link of its middleware, after the
 * cookie jar; a hop to another origin gets neither unless the auth
 * origins name it.
 *
 * @example Authenticate with a token manager
 * ```ts
 * import { HttpClientConfigBuilder, TokenAuthHook, TokenManager } from "@fetchline/fetchline";
 * import { TokenData } from "@fetchline/fetchline/config";
 *
 * const manager = new TokenManager([
 *   { name: "static", fetch: () => Promise.resolve(new TokenData({ accessToken: "t-1", expiresIn: 3600 })) },
 * ]);
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl("http://127.0.0.1:8080")
 *   .withAuthHook(new TokenAuthHook(manager))
 *   .build();
 * ```
 */
export class TokenAuthHook extends BaseAuthHook {
  /** The token manager. */
  readonly tokenManager: TokenManagerInterface;
  /** The header the token goes in. */
  readonly authHeaderName: string;
  /** The scheme written before the token. */
  readonly authHeaderPrefix: string;
  /** The header the token goes in (and `DPoP`), as credentials: a redirect that leaves the origin drops them. */
  readonly credentialHeaders: readonly string[];
  /** The DPoP key's proof link, with `dpop`: the client runs it on each exchange. */
  readonly middleware: { readonly handle: MiddlewareFunction } | undefined;
  #current: TokenData | undefined;

  /** Creates the hook around `tokenManager`, which gets and refreshes the tokens. */
  constructor(tokenManager: TokenManagerInterface, options: TokenAuthHookOptions = {}) {
    super(options);
    checkKnownKeys("TokenAuthHook options", options, TOKEN_AUTH_HOOK_KEYS);
    if (
      typeof tokenManager?.getToken !== "function" ||
      typeof tokenManager.refreshToken !== "function"
    ) {
      throw new TypeError("Invalid tokenManager: expected a TokenManagerInterface");
    }
    this.tokenManager = tokenManager;
    const { dpop } = options;
    if (dpop !== undefined) {
      if (typeof dpop?.handle !== "function" || typeof dpop.sendTokenRequest !== "function") {
        throw new TypeError("Invalid dpop: expected a DPoP key from @fetchline/fetchline/signing");
      }
      for (
        const [field, value, wanted] of [
          ["authHeaderName", options.authHeaderName, "Authorization"],
          ["authHeaderPrefix", options.authHeaderPrefix, "DPoP"],
        ] as const
      ) {
        if (value !== undefined && value.toLowerCase() !== wanted.toLowerCase()) {
          throw new TypeError(`Invalid ${field}: with dpop the token goes in ${wanted}`);
        }
      }
    }
    this.authHeaderName = dpop === undefined
      ? options.authHeaderName ?? "Authorization"
      : "Authorization";
    this.authHeaderPrefix = dpop === undefined ? options.authHeaderPrefix ?? "Bearer" : "DPoP";
    validateHeader("authHeaderName", this.authHeaderName, "");
    validateHeader("authHeaderPrefix", this.authHeaderName, this.authHeaderPrefix);
    this.credentialHeaders = Object.freeze(
      dpop === undefined ? [this.authHeaderName] : [this.authHeaderName, "DPoP"],
    );
    this.middleware = dpop === undefined ? undefined : { handle: dpop.handle.bind(dpop) };
  }

  /**
   * Adds the current token, unless the request carries credentials already;
   * a client's `context` tells where its token requests go.
   */
  async beforeRequest(request: HttpRequest, context?: RequestContext): Promise<HttpRequest> {
    if (carriesCredentials(request, this.authHeaderName)) return request;
    const sender = context instanceof RequestContext ? contextTokenSender(context) : undefined;
    this.#current = await withTokenSender(sender, () => this.tokenManager.getToken());
    // TokenManager refuses such a token itself; another manager may not.
    const { accessToken } = this.#current;
    return withToken(request, this.authHeaderName, this.authHeaderPrefix, accessToken, "manager");
  }

  /** Returns a valid token from the manager. */
  getToken(): Promise<TokenData> {
    return this.tokenManager.getToken();
  }

  /** Discards the cached token, unless `failed` was sent with one already replaced. */
  override invalidateAuth(failed?: HttpResponse): void {
    if (!this.#isStale(failed)) this.tokenManager.invalidateToken();
  }

  /**
   * Fetches a new token (or joins the refresh in progress), unless `failed`
   * was sent with one already replaced; true: the request is to be resent.
   */
  override async refreshAuth(failed?: HttpResponse): Promise<boolean> {
    if (this.#isStale(failed)) return true;
    const sender = failed === undefined ? undefined : bound.get(failed);
    this.#current = await withTokenSender(sender, () => this.tokenManager.refreshToken());
    return true;
  }

  /** True when `failed` carried a token other than the current one. */
  #isStale(failed: HttpResponse | undefined): boolean {
    if (failed === undefined || this.#current === undefined) return false;
    const prefix = this.authHeaderPrefix;
    const token = this.#current.accessToken;
    return headerValue(failed.request.headers, this.authHeaderName) !==
      (prefix === "" ? token : `${prefix} ${token}`);
  }
}
