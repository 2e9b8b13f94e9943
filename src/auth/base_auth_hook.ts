import type { AuthHookInterface, AuthRetryStrategyInterface } from "./auth_interfaces.ts";
import { SimpleAuthRetryStrategy } from "./retry_strategies.ts";
import { pathExclusion } from "./_path_match.ts";
import type { TokenData } from "../models/token_data.ts";
import { headerValue } from "../http/headers.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/request_context.ts";

/** Options every built-in auth hook takes. */
export interface BaseAuthHookOptions {
  /** How many times a call may refresh and resend. Default: one time. */
  retryStrategy?: AuthRetryStrategyInterface | undefined;
  /** Pathnames that are not authenticated (exact match). */
  excludedPaths?: Iterable<string> | undefined;
  /** fnmatch-style patterns of pathnames that are not authenticated (`/public/*`, `*health*`). */
  excludedPathPatterns?: Iterable<string> | undefined;
}

/**
 * The keys of {@linkcode BaseAuthHookOptions}, which each built-in hook's
 * own options add to. The base class itself checks none: a subclass's
 * options, passed to it whole, may hold keys of their own.
 */
export const BASE_AUTH_HOOK_OPTIONS = {
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

  /**
   * Sets the retry strategy and the exclusions.
   *
   * @param options The strategy, excluded paths and patterns.
   */
  constructor(options: BaseAuthHookOptions = {}) {
    this.retryStrategy = options.retryStrategy ?? new SimpleAuthRetryStrategy();
    this.#excluded = pathExclusion(options.excludedPaths, options.excludedPathPatterns);
  }

  /**
   * Adds credentials to the request.
   *
   * @param request The request.
   * @param context The call's context.
   * @returns The authenticated request.
   */
  abstract beforeRequest(
    request: HttpRequest,
    context: RequestContext,
  ): HttpRequest | Promise<HttpRequest>;

  /** Returns the current credentials as a token. */
  abstract getToken(): Promise<TokenData>;

  /**
   * True unless the URL's pathname is excluded.
   *
   * @param request The request.
   * @returns Whether to authenticate it.
   */
  shouldAuthenticate(request: HttpRequest): boolean {
    return !this.#excluded(request.url);
  }

  /**
   * True for status 401.
   *
   * @param response The response.
   * @returns Whether it is an authentication failure.
   */
  isAuthError(response: HttpResponse): boolean {
    return response.statusCode === 401;
  }

  /**
   * Cannot refresh: returns false.
   *
   * @param _failed The failed response.
   * @returns False.
   */
  refreshAuth(_failed?: HttpResponse): Promise<boolean> {
    return Promise.resolve(false);
  }

  /**
   * Nothing to discard.
   *
   * @param _failed The failed response.
   */
  invalidateAuth(_failed?: HttpResponse): void {}
}

/** True when `request` already carries credentials: its `auth`, or the header `name` in any case. */
export function carriesCredentials(request: HttpRequest, name: string): boolean {
  return request.auth !== undefined || headerValue(request.headers, name) !== undefined;
}
