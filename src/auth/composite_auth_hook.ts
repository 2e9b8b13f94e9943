import type { AuthHookInterface, AuthRetryStrategyInterface } from "./auth_interfaces.ts";
import { SimpleAuthRetryStrategy } from "./retry_strategies.ts";
import type { TokenData } from "../models/token_data.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/request_context.ts";
import { checkKnownKeys, keysOf } from "../models/_validate.ts";

/** Options of {@linkcode CompositeAuthHook}. */
export interface CompositeAuthHookOptions {
  /** `first_match` (default) applies the first hook that should authenticate; `all` applies every one. */
  strategy?: "first_match" | "all" | undefined;
  /** How many times a call may refresh and resend. Default: one time. */
  retryStrategy?: AuthRetryStrategyInterface | undefined;
}

const OPTION_KEYS = keysOf<CompositeAuthHookOptions>({ strategy: true, retryStrategy: true });

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
   * Creates the hook.
   *
   * @param hooks At least one auth hook.
   * @param options The strategy and the retry strategy.
   */
  constructor(hooks: readonly AuthHookInterface[], options: CompositeAuthHookOptions = {}) {
    if (!Array.isArray(hooks) || hooks.length === 0) {
      throw new TypeError("Invalid hooks: expected at least one auth hook");
    }
    checkKnownKeys("CompositeAuthHook options", options, OPTION_KEYS);
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
  }

  /**
   * Applies the matching hook (or hooks).
   *
   * @param request The request.
   * @param context The call's context.
   * @returns The authenticated request.
   */
  async beforeRequest(request: HttpRequest, context: RequestContext): Promise<HttpRequest> {
    for (const hook of this.#applying(request)) {
      request = await hook.beforeRequest(request, context);
    }
    return request;
  }

  /**
   * True when any hook should authenticate `request`.
   *
   * @param request The request.
   * @returns Whether to authenticate it.
   */
  shouldAuthenticate(request: HttpRequest): boolean {
    return this.hooks.some((hook) => hook.shouldAuthenticate(request));
  }

  /**
   * True when any hook recognises an auth error.
   *
   * @param response The response.
   * @returns Whether it is an authentication failure.
   */
  isAuthError(response: HttpResponse): boolean {
    return this.hooks.some((hook) => hook.isAuthError(response));
  }

  /**
   * Refreshes the hooks that applied to the failed request (all, without one).
   *
   * @param failed The response that failed.
   * @returns True when any of them refreshed.
   */
  async refreshAuth(failed?: HttpResponse): Promise<boolean> {
    let refreshed = false;
    for (const hook of this.#concerned(failed)) {
      refreshed = (await hook.refreshAuth(failed)) || refreshed;
    }
    return refreshed;
  }

  /**
   * Invalidates the hooks that applied to the failed request (all, without one).
   *
   * @param failed The response that failed.
   */
  invalidateAuth(failed?: HttpResponse): void {
    for (const hook of this.#concerned(failed)) hook.invalidateAuth(failed);
  }

  /**
   * The first hook's token.
   *
   * @returns The token.
   */
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
