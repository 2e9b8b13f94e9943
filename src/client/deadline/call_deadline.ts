// The timeouts of a call as its steps see them: each step (an attempt's
// exchange, with its token fetch, redirects and body read) runs under the
// attempt's `timeout` or what remains of the call's `totalTimeout`,
// whichever ends first; a retry wait must end within the total. A step with
// neither starts no timer at all.

import type { HttpRequest } from "../../models/request.ts";
import type { Step } from "./abort.ts";
import { startTimeout } from "./timeouts.ts";

/** The timeouts of a call. */
export interface CallTimeouts {
  /** The timeout of one attempt in seconds, for a request without its own (`null`: none). */
  readonly timeout: number | null;
  /** The timeout of the whole call in seconds (`null`: none). */
  readonly totalTimeout: number | null;
  /**
   * When the call's `totalTimeout` ends, on the `performance.now()` clock:
   * set once per call, when it starts ({@linkcode withCallDeadline}).
   */
  readonly endsAt?: number | undefined;
}

/**
 * `options` for one call that starts now: with `endsAt` when the call has a
 * total timeout; the same object when it has none.
 */
export function withCallDeadline<T extends CallTimeouts>(options: T, now = performance.now()): T {
  const total = options.totalTimeout;
  return total === null ? options : { ...options, endsAt: now + total * 1000 };
}

/** The timeout of an attempt of `request`: its own when set (`null` included), else the client's. */
export function attemptTimeout(request: HttpRequest, options: CallTimeouts): number | null {
  return request.timeout === undefined ? options.timeout : request.timeout;
}

/**
 * Starts the timeout of `step`: `seconds` (the attempt's, `null`: none), or
 * what remains of the call's total timeout when that ends first. A step
 * that starts past the call's end expires at once. Records on the step
 * which timeout it runs under, for the message.
 */
export function startStepTimeout(
  step: Step,
  seconds: number | null,
  options: CallTimeouts,
  now = performance.now(),
): void {
  const { endsAt } = options;
  if (endsAt !== undefined && (seconds === null || now + seconds * 1000 > endsAt)) {
    step.seconds = options.totalTimeout ?? 0;
    step.total = true;
    if (endsAt <= now) step.expire();
    else startTimeout(step, endsAt - now, now);
    return;
  }
  if (seconds === null) return;
  step.seconds = seconds;
  startTimeout(step, seconds * 1000, now);
}

/** True once the call's total timeout has passed: nothing more is tried. */
export function callExpired(options: CallTimeouts, now = performance.now()): boolean {
  return options.endsAt !== undefined && now >= options.endsAt;
}

/** True when a wait of `ms` starting now would end past the call's total timeout. */
export function waitPassesDeadline(
  options: CallTimeouts,
  ms: number,
  now = performance.now(),
): boolean {
  return options.endsAt !== undefined && now + ms > options.endsAt;
}
