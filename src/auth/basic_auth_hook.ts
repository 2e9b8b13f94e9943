import { BASE_AUTH_HOOK_OPTIONS, BaseAuthHook, carriesCredentials } from "./base_auth_hook.ts";
import { checkKnownKeys, keysOf, validateUsername } from "../models/_validate.ts";
import type { BaseAuthHookOptions } from "./base_auth_hook.ts";
import { TokenData } from "../models/token_data.ts";
import { basicAuthorization } from "../http/headers.ts";
import type { HttpRequest } from "../models/request.ts";

const BASIC_OPTION_KEYS = keysOf<BaseAuthHookOptions>(BASE_AUTH_HOOK_OPTIONS);
/**
 * HTTP Basic authentication: `Authorization: Basic base64(utf8("user:pass"))`.
 * An empty username, or one with `:`, is a TypeError. `getToken()` returns
 * the encoded credentials with `tokenType` `Basic`.
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

  /**
   * Creates the hook.
   *
   * @param username A non-empty username without `:`.
   * @param password The password.
   * @param options Retry strategy, exclusions.
   */
  constructor(username: string, password: string, options: BaseAuthHookOptions = {}) {
    super(options);
    checkKnownKeys("BasicAuthHook options", options, BASIC_OPTION_KEYS);
    this.username = validateUsername("username", username);
    if (typeof password !== "string") throw new TypeError("Invalid password: expected a string");
    this.#header = basicAuthorization(username, password);
  }

  /**
   * Adds the credentials, unless the request carries some already.
   *
   * @param request The request.
   * @returns The authenticated request.
   */
  beforeRequest(request: HttpRequest): HttpRequest {
    if (carriesCredentials(request, "Authorization")) return request;
    return request.withHeaders({ Authorization: this.#header });
  }

  /**
   * The encoded credentials as a token.
   *
   * @returns A TokenData with `tokenType` `Basic`.
   */
  getToken(): Promise<TokenData> {
    return Promise.resolve(
      new TokenData({ accessToken: this.#header.slice(6), tokenType: "Basic" }),
    );
  }

  /**
   * A description with the password masked.
   *
   * @returns The description.
   */
  override toString(): string {
    return `BasicAuthHook(${this.username}:***)`;
  }
}
