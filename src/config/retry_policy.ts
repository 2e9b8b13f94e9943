// The retry policy a client is configured with: its options, the defaults
// and their checks. The decisions made with it are the send path's
// (send/attempts.ts; the Idempotency-Key, client/call.ts).

import { parseMethod } from "../models/request.ts";
import type { HttpMethod } from "../models/request.ts";
import { checkKnownKeys, keysOf, validateCount, validateSeconds } from "../models/_validate.ts";

/** How retries behave; every field is optional in {@linkcode HttpClientConfigBuilder.withRetry}. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2; 0 turns retries off. */
  maxRetries?: number | undefined;
  /**
   * The methods retried. Default GET, HEAD, OPTIONS, PUT, DELETE. Naming POST
   * or PATCH opts in, and their calls then carry an `Idempotency-Key`.
   */
  methods?: Iterable<HttpMethod | string> | undefined;
  /** The statuses retried. Default 408, 429, 500, 502, 503, 504. */
  statusCodes?: Iterable<number> | undefined;
  /** The base of the exponential backoff, in seconds. Default 0.5. */
  backoff?: number | undefined;
  /** The cap of one backoff wait, in seconds. Default 30. */
  maxBackoff?: number | undefined;
  /** A `Retry-After` longer than this (seconds) stops retrying and returns the response. Default 60. */
  maxRetryAfter?: number | undefined;
  /** Waits `ms` milliseconds, rejecting when `signal` aborts; replace it in tests. */
  sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
  /** A number in [0, 1) for the jitter; replace it in tests. Default `Math.random`. */
  random?: (() => number) | undefined;
}

/** The normalised retry settings of a client. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** The methods retried. */
  readonly methods: ReadonlySet<HttpMethod>;
  /** The statuses retried. */
  readonly statusCodes: ReadonlySet<number>;
  /** The backoff base in seconds. */
  readonly backoff: number;
  /** The cap of one wait in seconds. */
  readonly maxBackoff: number;
  /** The longest `Retry-After` honoured, in seconds. */
  readonly maxRetryAfter: number;
  /** The wait. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The jitter source. */
  readonly random: () => number;
}

/** The defaults: 2 retries of idempotent methods on connection failures, timeouts and 408/429/5xx. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxRetries: 2,
  methods: new Set<HttpMethod>(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]),
  statusCodes: new Set([408, 429, 500, 502, 503, 504]),
  backoff: 0.5,
  maxBackoff: 30,
  maxRetryAfter: 60,
  sleep,
  random: Math.random,
});

const RETRY_OPTION_KEYS = keysOf<RetryOptions>({
  maxRetries: true,
  methods: true,
  statusCodes: true,
  backoff: true,
  maxBackoff: true,
  maxRetryAfter: true,
  sleep: true,
  random: true,
});

/**
 * Checks `options` and merges them over `base`: RangeError for bad numbers,
 * TypeError for bad kinds and for a key that is not an option (`maxRetry`).
 */
export function retryPolicy(options: RetryOptions, base: RetryPolicy = DEFAULT_RETRY): RetryPolicy {
  checkKnownKeys("retry options", options, RETRY_OPTION_KEYS);
  const statusCodes = new Set(options.statusCodes ?? base.statusCodes);
  for (const status of statusCodes) {
    if (!Number.isInteger(status) || status < 100 || status > 599) {
      throw new RangeError(`Invalid statusCodes: ${status} is not an HTTP status`);
    }
  }
  for (const [field, fn] of [["sleep", options.sleep], ["random", options.random]] as const) {
    if (fn !== undefined && typeof fn !== "function") {
      throw new TypeError(`Invalid ${field}: expected a function`);
    }
  }
  return Object.freeze({
    maxRetries: validateCount("maxRetries", options.maxRetries ?? base.maxRetries),
    methods: options.methods === undefined
      ? base.methods
      : new Set([...options.methods].map(parseMethod)),
    statusCodes,
    backoff: validateSeconds("backoff", options.backoff ?? base.backoff),
    maxBackoff: validateSeconds("maxBackoff", options.maxBackoff ?? base.maxBackoff),
    maxRetryAfter: validateSeconds("maxRetryAfter", options.maxRetryAfter ?? base.maxRetryAfter),
    sleep: options.sleep ?? base.sleep,
    random: options.random ?? base.random,
  });
}

/** Waits `ms`, rejecting with the signal's reason when it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const id = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(id);
      reject(signal.reason);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
