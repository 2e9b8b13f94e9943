import type { TokenData } from "../models/token_data.ts";
import { checkKnownKeys, keysOf } from "./_validate.ts";

/** Options of a {@linkcode FetchContext}. */
export interface FetchContextOptions {
  /** Tokens already fetched, by step name: a Map or a plain record. */
  tokens?: Map<string, TokenData> | Readonly<Record<string, TokenData>> | undefined;
  /** Free-form data shared by the steps. */
  metadata?: Record<string, unknown> | undefined;
}

const OPTION_KEYS = keysOf<FetchContextOptions>({ tokens: true, metadata: true });

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

  /**
   * Creates a context.
   *
   * @param options Tokens already fetched and metadata.
   */
  constructor(options: FetchContextOptions = {}) {
    checkKnownKeys("FetchContext options", options, OPTION_KEYS);
    const { tokens } = options;
    this.tokens = new Map(tokens instanceof Map ? tokens : Object.entries(tokens ?? {}));
    this.metadata = options.metadata ?? {};
  }

  /**
   * Reads a step's token.
   *
   * @param name The step name.
   * @returns The token, or `undefined`.
   */
  getToken(name: string): TokenData | undefined {
    return this.tokens.get(name);
  }

  /**
   * Reads a step's access token string.
   *
   * @param name The step name.
   * @returns The access token, or `undefined`.
   */
  getTokenValue(name: string): string | undefined {
    return this.tokens.get(name)?.accessToken;
  }

  /**
   * Stores a step's token.
   *
   * @param name The step name.
   * @param token The token.
   */
  addToken(name: string, token: TokenData): void {
    this.tokens.set(name, token);
  }

  /**
   * Tells whether a step has a token.
   *
   * @param name The step name.
   * @returns True when a token is stored under `name`.
   */
  hasToken(name: string): boolean {
    return this.tokens.has(name);
  }

  /**
   * Tells whether a step has a token that has not expired.
   *
   * @param name The step name.
   * @returns True when a token is stored under `name` and is not expired.
   */
  hasValidToken(name: string): boolean {
    const token = this.tokens.get(name);
    return token !== undefined && !token.isExpired();
  }
}
