// The two built-in hooks that only write or read headers: CorrelationIdHook
// sends one ID per call, RateLimitResponseHook reads the rate-limit headers
// into the call's metadata.

import type { RequestHookInterface, ResponseHookInterface } from "./hook_interfaces.ts";
import { type HttpRequest, withCheckedHeader } from "../models/request.ts";
import type { RequestContext } from "../models/context.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, keysOf, validateHeader } from "../models/_validate.ts";

/** Options of {@linkcode CorrelationIdHook}. */
export interface CorrelationIdHookOptions {
  /** The header to send the ID in. Default `X-Correlation-ID`. */
  headerName?: string | undefined;
}

const CORRELATION_OPTION_KEYS = keysOf<CorrelationIdHookOptions>({ headerName: true });

/**
 * Gives each call one correlation ID (a UUID v4), stores it as
 * `metadata.correlationId` and sends it in a header, the same on every retry.
 *
 * @example Send a correlation ID
 * ```ts
 * import { CorrelationIdHook, HttpRequest, RequestContext } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const hook = new CorrelationIdHook();
 * const request = new HttpRequest("GET", "/");
 * const context = new RequestContext(request);
 * const sent = await hook.beforeRequest(request, context);
 * assert.equal(sent.headers?.["X-Correlation-ID"], context.metadata.correlationId);
 * ```
 */
export class CorrelationIdHook implements RequestHookInterface {
  /** The header the ID is sent in. */
  readonly headerName: string;
  readonly #checkedName: string;

  /** Creates the hook. */
  constructor(options: CorrelationIdHookOptions = {}) {
    checkKnownKeys("CorrelationIdHook options", options, CORRELATION_OPTION_KEYS);
    this.headerName = options.headerName ?? "X-Correlation-ID";
    validateHeader("headerName", this.headerName, "");
    this.#checkedName = this.headerName;
  }

  /** Adds the call's correlation ID to a copy of the request. */
  beforeRequest(request: HttpRequest, context: RequestContext): HttpRequest {
    const given = context.metadata.correlationId;
    if (given !== undefined && given !== null) {
      return request.withHeaders({ [this.headerName]: given as string });
    }
    const id = crypto.randomUUID();
    context.metadata.correlationId = id;
    const name = this.headerName;
    // A UUID is a valid value, and the name was checked when the hook was made (unless changed).
    if (name !== this.#checkedName) return request.withHeaders({ [name]: id });
    return withCheckedHeader(request, name, id);
  }
}

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
  /** Stores the rate-limit headers in the context; returns the same response. */
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
