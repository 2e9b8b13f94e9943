// The retry decisions of a call: whether to retry after a response or an
// error, and how long to wait. The policy itself is configuration
// (config/retry_policy.ts).

import { ConnectionException, TimeoutException } from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { parseRetryAfter } from "../http/headers.ts";
import type { RetryPolicy } from "../config/retry_policy.ts";
import { isOneShot } from "../http/raw_body.ts";

/**
 * How long to wait before retrying after `response`, in milliseconds, or
 * `undefined` for no retry: the status is not retried, the request's body
 * was a stream (sent once), or its `Retry-After` is longer than the policy
 * honours.
 */
export function retryDelayForResponse(
  policy: RetryPolicy,
  response: HttpResponse,
  attempt: number,
): number | undefined {
  const { request } = response;
  if (
    !policy.methods.has(request.method) || !policy.statusCodes.has(response.statusCode) ||
    isOneShot(request.body)
  ) {
    return undefined;
  }
  const retryAfter = parseRetryAfter(response.header("retry-after"));
  if (retryAfter === undefined) return backoffDelay(policy, attempt);
  return retryAfter > policy.maxRetryAfter * 1000 ? undefined : retryAfter;
}

/**
 * How long to wait before retrying `request` after `error`, or `undefined`
 * when it is not retried (nor ever a request whose body was a stream).
 */
export function retryDelayForError(
  policy: RetryPolicy,
  error: unknown,
  request: HttpRequest,
  attempt: number,
): number | undefined {
  const transient = error instanceof ConnectionException || error instanceof TimeoutException;
  return transient && policy.methods.has(request.method) && !isOneShot(request.body)
    ? backoffDelay(policy, attempt)
    : undefined;
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base · 2^attempt)). */
function backoffDelay(policy: RetryPolicy, attempt: number): number {
  return policy.random() * Math.min(policy.maxBackoff, policy.backoff * 2 ** attempt) * 1000;
}
