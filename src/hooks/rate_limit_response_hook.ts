import type { ResponseHookInterface } from "./hook_interfaces.ts";
import type { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/request_context.ts";

/**
 * Reads `X-RateLimit-Remaining` and `X-RateLimit-Reset` into
 * `metadata.rateLimitRemaining` and `metadata.rateLimitReset` as numbers;
 * an absent or non-numeric header sets nothing. It enforces no limit.
 *
 * @example Read the rate-limit headers
 * ```ts
 * import { HttpRequest, HttpResponse, RateLimitResponseHook, RequestContext } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("GET", "http://127.0.0.1/");
 * const response = new HttpResponse({
 *   statusCode: 200, content: new Uint8Array(), elapsedMs: 1, url: request.url, request,
 *   headers: { "X-RateLimit-Remaining": "41", "X-RateLimit-Reset": "1767225600" },
 * });
 * const context = new RequestContext(request);
 * await new RateLimitResponseHook().afterResponse(response, context);
 * assert.equal(context.metadata.rateLimitRemaining, 41);
 * assert.equal(context.metadata.rateLimitReset, 1767225600);
 * ```
 */
export class RateLimitResponseHook implements ResponseHookInterface {
  /**
   * Stores the rate-limit headers in the context.
   *
   * @param response The response.
   * @param context The call's context.
   * @returns The same response.
   */
  afterResponse(response: HttpResponse, context: RequestContext): HttpResponse {
    const remaining = numberOf(response.header("x-ratelimit-remaining"));
    const reset = numberOf(response.header("x-ratelimit-reset"));
    if (remaining !== undefined) context.metadata.rateLimitRemaining = remaining;
    if (reset !== undefined) context.metadata.rateLimitReset = reset;
    return response;
  }
}

function numberOf(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}
