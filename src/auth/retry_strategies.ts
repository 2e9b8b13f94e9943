import type { AuthRetryStrategyInterface } from "./auth_interfaces.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, keysOf, validateCount } from "../models/_validate.ts";

/** Options of {@linkcode SimpleAuthRetryStrategy}. */
export interface SimpleAuthRetryStrategyOptions {
  /** How many times one call may refresh and resend. Default 1. */
  maxRetries?: number | undefined;
}

const OPTION_KEYS = keysOf<SimpleAuthRetryStrategyOptions>({ maxRetries: true });

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

  /**
   * Creates the strategy; a negative or fractional count is a RangeError.
   *
   * @param options The count.
   */
  constructor(options: SimpleAuthRetryStrategyOptions = {}) {
    checkKnownKeys("SimpleAuthRetryStrategy options", options, OPTION_KEYS);
    this.maxRetries = validateCount("maxRetries", options.maxRetries ?? 1);
  }

  /**
   * Allows a resend while fewer than `maxRetries` were made.
   *
   * @param _response The authentication error.
   * @param authRetries Resends so far in this call.
   * @returns True to refresh and resend.
   */
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

  /**
   * Never allows a resend.
   *
   * @returns False.
   */
  shouldRetry(): boolean {
    return false;
  }
}
