// An access token with its expiry, as a token manager holds it and an auth
// hook sends it; its views mask the token and the refresh token.

import { defineRedactedInspect, MASK } from "../masking/views.ts";
import { checkKnownKeys, keysOf, requireText } from "./_validate.ts";

/** The fields of a {@linkcode TokenData}. */
export interface TokenDataInit {
  /** The token itself. */
  accessToken: string;
  /** The scheme, such as `Bearer` (the default). */
  tokenType?: string | undefined;
  /** When it expires: epoch milliseconds or a Date. */
  expiresAt?: number | Date | undefined;
  /** Seconds from now until it expires (used when `expiresAt` is not given). */
  expiresIn?: number | undefined;
  /** A refresh token, when the issuer gave one. */
  refreshToken?: string | undefined;
  /** The granted scope. */
  scope?: string | undefined;
}

const INIT_KEYS = keysOf<TokenDataInit>({
  accessToken: true,
  tokenType: true,
  expiresAt: true,
  expiresIn: true,
  refreshToken: true,
  scope: true,
});

/**
 * An immutable access token with its expiry. `toString()` and
 * `console.log()` mask the token and the refresh token.
 *
 * @example Check expiry with a skew
 * ```ts
 * import { TokenData } from "@fetchline/fetchline/config";
 * import assert from "node:assert/strict";
 *
 * const token = new TokenData({ accessToken: "abc", expiresIn: 60 });
 * assert.equal(token.tokenType, "Bearer");
 * assert.equal(token.isExpired(), false);
 * assert.equal(token.isExpired(Date.now(), 90), true);
 * assert.equal(String(token).includes("abc"), false);
 * ```
 */
export class TokenData {
  /** The token itself. */
  readonly accessToken: string;
  /** The scheme, such as `Bearer`. */
  readonly tokenType: string;
  /** Expiry in epoch milliseconds; `undefined` means it never expires. */
  readonly expiresAt?: number;
  /** The refresh token, when given. */
  readonly refreshToken?: string;
  /** The granted scope, when given. */
  readonly scope?: string;

  /** Creates a token. An empty or non-string `accessToken` is a TypeError. */
  constructor(init: TokenDataInit) {
    checkKnownKeys("TokenData init", init, INIT_KEYS);
    this.accessToken = requireText("accessToken", init.accessToken);
    this.tokenType = init.tokenType ?? "Bearer";
    const expiresAt = init.expiresAt instanceof Date ? init.expiresAt.getTime() : init.expiresAt;
    if (expiresAt !== undefined) {
      this.expiresAt = checkFinite("expiresAt", expiresAt);
    } else if (init.expiresIn !== undefined) {
      this.expiresAt = Date.now() + checkFinite("expiresIn", init.expiresIn) * 1000;
    }
    if (init.refreshToken !== undefined) this.refreshToken = init.refreshToken;
    if (init.scope !== undefined) this.scope = init.scope;
    Object.freeze(this);
  }

  /**
   * Reads an RFC 6749 token response (`access_token`, `token_type`,
   * `expires_in`, `refresh_token`, `scope`), parsed; a TypeError without a
   * string `access_token`.
   */
  static fromOAuth2(json: unknown): TokenData {
    const body = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
    const expiresIn = Number(body.expires_in);
    return new TokenData({
      accessToken: body.access_token as string,
      tokenType: typeof body.token_type === "string" ? body.token_type : "Bearer",
      ...(body.expires_in !== undefined && Number.isFinite(expiresIn) ? { expiresIn } : {}),
      ...(typeof body.refresh_token === "string" ? { refreshToken: body.refresh_token } : {}),
      ...(typeof body.scope === "string" ? { scope: body.scope } : {}),
    });
  }

  /** Whether it has expired at `now` (epoch ms), or will within `skewSeconds`; never without expiry. */
  isExpired(now: number = Date.now(), skewSeconds = 0): boolean {
    return this.expiresAt !== undefined && now + skewSeconds * 1000 >= this.expiresAt;
  }

  /** A description with the token masked. */
  toString(): string {
    const expiry = this.expiresAt === undefined
      ? "no expiry"
      : new Date(this.expiresAt).toISOString();
    return `TokenData(${this.tokenType} ${MASK}, ${expiry})`;
  }
}

defineRedactedInspect(TokenData, (token) => ({
  accessToken: MASK,
  tokenType: token.tokenType,
  expiresAt: token.expiresAt,
  refreshToken: token.refreshToken === undefined ? undefined : MASK,
  scope: token.scope,
}));

function checkFinite(field: string, value: number): number {
  if (!Number.isFinite(value)) {
    throw new TypeError(`Invalid ${field}: expected a finite number`);
  }
  return value;
}
