import { carriesCredentials } from "./base_auth_hook.ts";
import type { RequestHookInterface } from "../hooks/hook_interfaces.ts";
import { AuthenticationException, describeCall } from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import { checkKnownKeys, keysOf, validateHeader } from "../models/_validate.ts";
import { unfitTokenError } from "./_header_token.ts";

/** Options of {@linkcode AuthorizationHook}. */
export interface AuthorizationHookOptions {
  /** The header the token goes in. Default `Authorization`. */
  headerName?: string | undefined;
  /** The scheme written before the token. Default `Bearer`; `""` writes the token alone. */
  prefix?: string | undefined;
}

const OPTION_KEYS = keysOf<AuthorizationHookOptions>({ headerName: true, prefix: true });

/**
 * A request hook (register it with `withRequestHook`) that writes the token
 * a provider returns, as `<prefix> <token>`, into a header, unless the
 * request carries credentials already. The provider is asked on every
 * attempt; an empty token, or one a header cannot carry (CR, LF, NUL,
 * other control characters, anything above U+00FF), fails the call with
 * {@linkcode AuthenticationException}, which never shows the token. The
 * header is a credential (`credentialHeaders`): a redirect that leaves the
 * origin, or goes from https to http, drops it.
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

  /**
   * Creates the hook.
   *
   * @param tokenProvider Returns the current token.
   * @param options The header name and prefix.
   */
  constructor(
    tokenProvider: () => string | Promise<string>,
    options: AuthorizationHookOptions = {},
  ) {
    if (typeof tokenProvider !== "function") {
      throw new TypeError("Invalid tokenProvider: expected a function");
    }
    checkKnownKeys("AuthorizationHook options", options, OPTION_KEYS);
    this.#tokenProvider = tokenProvider;
    this.headerName = options.headerName ?? "Authorization";
    this.prefix = options.prefix ?? "Bearer";
    validateHeader("headerName", this.headerName, "");
    validateHeader("prefix", this.headerName, this.prefix);
    this.credentialHeaders = Object.freeze([this.headerName]);
  }

  /**
   * Adds the token.
   *
   * @param request The request.
   * @returns The request with the header.
   */
  async beforeRequest(request: HttpRequest): Promise<HttpRequest> {
    if (carriesCredentials(request, this.headerName)) return request;
    const token = await this.#tokenProvider();
    const target = describeCall(request);
    if (typeof token !== "string" || token === "") {
      throw new AuthenticationException(`The token provider returned no token: ${target}`, {
        request,
      });
    }
    const unfit = unfitTokenError(this.headerName, token);
    if (unfit !== undefined) {
      throw new AuthenticationException(
        `The token provider returned a token a header cannot carry: ${target}`,
        { request, cause: unfit },
      );
    }
    return request.withHeaders({
      [this.headerName]: this.prefix === "" ? token : `${this.prefix} ${token}`,
    });
  }
}
