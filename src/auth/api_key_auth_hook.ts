import { BASE_AUTH_HOOK_OPTIONS, BaseAuthHook, carriesCredentials } from "./base_auth_hook.ts";
import type { BaseAuthHookOptions } from "./base_auth_hook.ts";
import { TokenData } from "../models/token_data.ts";
import { type HttpRequest, withCheckedHeader } from "../models/request.ts";
import { checkKnownKeys, keysOf, requireText, validateHeader } from "../models/_validate.ts";

/** Options of {@linkcode ApiKeyAuthHook}. */
export interface ApiKeyAuthHookOptions extends BaseAuthHookOptions {
  /** The header the key goes in. Default `X-API-Key`. */
  headerName?: string | undefined;
}

const API_KEY_OPTION_KEYS = keysOf<ApiKeyAuthHookOptions>({
  ...BASE_AUTH_HOOK_OPTIONS,
  headerName: true,
});

/**
 * Sends an API key in a header (default `X-API-Key`). An empty key is a
 * TypeError. The header is a credential (`credentialHeaders`): a redirect
 * that leaves the origin, or goes from https to http, drops it, whoever
 * set it. `getToken()` returns the key with `tokenType` `ApiKey`.
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

  /**
   * Creates the hook.
   *
   * @param apiKey The key; a non-empty string.
   * @param options Header name, retry strategy, exclusions.
   */
  constructor(apiKey: string, options: ApiKeyAuthHookOptions = {}) {
    super(options);
    checkKnownKeys("ApiKeyAuthHook options", options, API_KEY_OPTION_KEYS);
    this.#apiKey = requireText("apiKey", apiKey);
    this.headerName = options.headerName ?? "X-API-Key";
    validateHeader("headerName", this.headerName, "");
    validateHeader("apiKey", this.headerName, apiKey);
    this.#checkedName = this.headerName;
    this.credentialHeaders = Object.freeze([this.headerName]);
  }

  /**
   * Adds the key, unless the request carries it (or `auth`) already.
   *
   * @param request The request.
   * @returns The authenticated request.
   */
  beforeRequest(request: HttpRequest): HttpRequest {
    if (carriesCredentials(request, this.headerName)) return request;
    const name = this.headerName;
    // Both checked when the hook was made (unless the name was changed since).
    if (name !== this.#checkedName) return request.withHeaders({ [name]: this.#apiKey });
    return withCheckedHeader(request, name, this.#apiKey);
  }

  /**
   * The key as a token.
   *
   * @returns A TokenData with `tokenType` `ApiKey`.
   */
  getToken(): Promise<TokenData> {
    return Promise.resolve(new TokenData({ accessToken: this.#apiKey, tokenType: "ApiKey" }));
  }

  /**
   * A description with the key masked.
   *
   * @returns The description.
   */
  override toString(): string {
    return `ApiKeyAuthHook(${this.headerName}: ***)`;
  }
}
