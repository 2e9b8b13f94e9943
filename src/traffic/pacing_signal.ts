// What a response says about when its origin may be called again: the
// signals serverPacing() pauses an origin on (API.md "Traffic control").
// The rate-limit headers are read by http/rate_limit_headers.ts, which the
// retry decision shares.

import type { HttpResponse } from "../models/response.ts";
import { parseRetryAfter } from "../http/headers.ts";
import { rateLimitWait, serverNow } from "../http/rate_limit_headers.ts";

/**
 * How many milliseconds from now the origin of `response` asks callers to
 * wait, or `undefined` for none:
 *
 * - a 429 or 503 with `Retry-After` (seconds or an HTTP date): that, and
 *   nothing else (the RateLimit draft: Retry-After takes precedence);
 * - else the longest of the rate-limit headers that say the quota is
 *   spent ({@linkcode rateLimitWait}: an item of the IETF draft's
 *   `RateLimit` with `r=0`, `X-RateLimit-Remaining: 0`
 *   with `X-RateLimit-Reset`, `RateLimit-Remaining: 0` with
 *   `RateLimit-Reset`, in seconds or as an epoch time).
 *
 * An epoch time and an HTTP date are read against the response's `Date`
 * (the server's clock), when it has one. A response with a positive `Age`
 * came from a cache: its headers are old news, ignored (the draft says so).
 */
export function pacingWait(response: HttpResponse): number | undefined {
  // Most responses carry none of these: three or four lookups, and nothing
  // parsed (the Date of every response parsed made the control 10.6 µs a
  // call over an empty middleware, 2.7-3.2 µs without, with a canned `next`
  // on Deno 2.9.6; a loopback call costs the client about 125 µs of CPU).
  const status = response.statusCode;
  const retryAfter = status === 429 || status === 503 ? response.header("retry-after") : undefined;
  if (retryAfter !== undefined) {
    const age = response.header("age");
    if (age !== undefined && Number(age) > 0) return undefined;
    const ms = parseRetryAfter(retryAfter, serverNow(response));
    if (ms !== undefined) return ms;
  }
  return rateLimitWait(response, false);
}
