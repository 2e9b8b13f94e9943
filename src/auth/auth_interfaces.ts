import type { TokenData } from "../models/token_data.ts";
import type { RequestHookInterface } from "../hooks/hook_interfaces.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";

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
  /**
   * Tells whether to refresh and resend.
   *
   * @param response The authentication error.
   * @param authRetries How many times this call has already resent.
   * @returns True to refresh and resend.
   */
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
  /**
   * Tells whether `request` is to be authenticated.
   *
   * @param request The request.
   * @returns True to authenticate it.
   */
  shouldAuthenticate(request: HttpRequest): boolean;
  /**
   * Tells whether `response` signals an authentication failure.
   *
   * @param response The response.
   * @returns True for an authentication failure.
   */
  isAuthError(response: HttpResponse): boolean;
  /**
   * Refreshes the credentials.
   *
   * @param failed The response that failed, when the client calls it.
   * @returns True when the request should be resent.
   */
  refreshAuth(failed?: HttpResponse): Promise<boolean>;
  /**
   * Discards the current credentials.
   *
   * @param failed The response that failed, when the client calls it.
   */
  invalidateAuth(failed?: HttpResponse): void;
  /** Returns the current credentials as a token. */
  getToken(): Promise<TokenData>;
}
