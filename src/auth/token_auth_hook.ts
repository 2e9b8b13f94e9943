import type { TokenManagerInterface } from "./auth_interfaces.ts";
import { BASE_AUTH_HOOK_OPTIONS, BaseAuthHook, carriesCredentials } from "./base_auth_hook.ts";
import type { BaseAuthHookOptions } from "./base_auth_hook.ts";
import type { TokenData } from "../models/token_data.ts";
import { headerValue } from "../http/headers.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, keysOf, validateHeader } from "../models/_validate.ts";
import { AuthenticationException, describeCall } from "../errors.ts";
import { unfitTokenError } from "./_header_token.ts";
import type { RequestContext } from "../models/request_context.ts";
import { tokenSenderOf, withTokenSender } from "./_token_transport.ts";

/** Options of {@linkcode TokenAuthHook}. */
export interface TokenAuthHookOptions extends BaseAuthHookOptions {
  /** The header the token goes in. Default `Authorization`. */
  authHeaderName?: string | undefined;
  /** The scheme written before the token. Default `Bearer`; `""` writes the token alone. */
  authHeaderPrefix?: string | undefined;
}

/** The keys of {@linkcode TokenAuthHookOptions}, which `withTokenAuth()`'s options add to. */
export const TOKEN_AUTH_HOOK_OPTIONS = {
  ...BASE_AUTH_HOOK_OPTIONS,
  authHeaderName: true,
  authHeaderPrefix: true,
} as const satisfies Record<keyof TokenAuthHookOptions, true>;

const TOKEN_AUTH_HOOK_KEYS = keysOf<TokenAuthHookOptions>(TOKEN_AUTH_HOOK_OPTIONS);

/**
 * Token authentication that refreshes itself: sends `<prefix> <token>` in
 * the named header, gets a fresh token when the cached one has expired, and
 * after a 401 invalidates, refreshes and resends as its retry strategy
 * allows. Concurrent calls that all receive a 401 for the same token cause
 * one refresh: a call whose token another call has already replaced just
 * resends with the new one. A token a header cannot carry fails the call
 * with {@linkcode AuthenticationException}, which never shows it. The
 * header is a credential (`credentialHeaders`): a redirect that leaves the
 * origin, or goes from https to http, drops it, whoever set it. Run by a
 * client, a token the manager fetches for it is fetched through that
 * client's transport ({@linkcode clientCredentialsStep}'s request: the
 * client's pool, proxy, TLS settings and hooks, not this hook).
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
  /** The header the token goes in, as a credential: a redirect that leaves the origin drops it. */
  readonly credentialHeaders: readonly string[];
  #current: TokenData | undefined;

  /**
   * Creates the hook.
   *
   * @param tokenManager Gets and refreshes the tokens.
   * @param options Header name and prefix, retry strategy, exclusions.
   */
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
    this.authHeaderName = options.authHeaderName ?? "Authorization";
    this.authHeaderPrefix = options.authHeaderPrefix ?? "Bearer";
    validateHeader("authHeaderName", this.authHeaderName, "");
    validateHeader("authHeaderPrefix", this.authHeaderName, this.authHeaderPrefix);
    this.credentialHeaders = Object.freeze([this.authHeaderName]);
  }

  /**
   * Adds the current token, unless the request carries credentials already.
   *
   * @param request The request.
   * @param context The call's context (a client's tells where its token requests go).
   * @returns The authenticated request.
   */
  async beforeRequest(request: HttpRequest, context?: RequestContext): Promise<HttpRequest> {
    if (carriesCredentials(request, this.authHeaderName)) return request;
    this.#current = await withTokenSender(
      tokenSenderOf(context),
      () => this.tokenManager.getToken(),
    );
    // TokenManager refuses such a token itself; another manager may not.
    const unfit = unfitTokenError(this.authHeaderName, this.#current.accessToken);
    if (unfit !== undefined) {
      throw new AuthenticationException(
        `The token manager returned a token a header cannot carry: ${describeCall(request)}`,
        { request, cause: unfit },
      );
    }
    return request.withHeaders({ [this.authHeaderName]: this.#valueOf(this.#current) });
  }

  /**
   * Returns a valid token from the manager.
   *
   * @returns The token.
   */
  getToken(): Promise<TokenData> {
    return this.tokenManager.getToken();
  }

  /**
   * Discards the cached token, unless `failed` was sent with a token that
   * has already been replaced.
   *
   * @param failed The response that failed.
   */
  override invalidateAuth(failed?: HttpResponse): void {
    if (!this.#isStale(failed)) this.tokenManager.invalidateToken();
  }

  /**
   * Fetches a new token (or joins the refresh in progress); a `failed`
   * response sent with a token already replaced needs no refresh.
   *
   * @param failed The response that failed.
   * @returns True: the request is to be resent.
   */
  override async refreshAuth(failed?: HttpResponse): Promise<boolean> {
    if (this.#isStale(failed)) return true;
    this.#current = await withTokenSender(
      tokenSenderOf(failed),
      () => this.tokenManager.refreshToken(),
    );
    return true;
  }

  #valueOf(token: TokenData): string {
    return this.authHeaderPrefix === ""
      ? token.accessToken
      : `${this.authHeaderPrefix} ${token.accessToken}`;
  }

  /** True when `failed` carried a token other than the current one. */
  #isStale(failed: HttpResponse | undefined): boolean {
    if (failed === undefined || this.#current === undefined) return false;
    return headerValue(failed.request.headers, this.authHeaderName) !==
      this.#valueOf(this.#current);
  }
}
