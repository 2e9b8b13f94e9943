import type { RequestHookInterface } from "./hook_interfaces.ts";
import { type HttpRequest, withCheckedHeader } from "../models/request.ts";
import type { RequestContext } from "../models/request_context.ts";
import { checkKnownKeys, keysOf, validateHeader } from "../models/_validate.ts";

/** Options of {@linkcode CorrelationIdHook}. */
export interface CorrelationIdHookOptions {
  /** The header to send the ID in. Default `X-Correlation-ID`. */
  headerName?: string | undefined;
}

const OPTION_KEYS = keysOf<CorrelationIdHookOptions>({ headerName: true });

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

  /**
   * Creates the hook.
   *
   * @param options The header name.
   */
  constructor(options: CorrelationIdHookOptions = {}) {
    checkKnownKeys("CorrelationIdHook options", options, OPTION_KEYS);
    this.headerName = options.headerName ?? "X-Correlation-ID";
    validateHeader("headerName", this.headerName, "");
    this.#checkedName = this.headerName;
  }

  /**
   * Adds the call's correlation ID to the request.
   *
   * @param request The request.
   * @param context The call's context.
   * @returns A copy of the request with the header.
   */
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
