// The options of one call besides its request, and how they change the
// options the client's calls share.

import type { HttpRequestInit } from "../models/request_fields.ts";
import { validateNullableTimeout } from "../models/_validate.ts";
import type { LifecycleOptions } from "./lifecycle.ts";

/** Options of one call besides the request itself. */
export interface CallOptions {
  /** Aborts the call; it then fails with an {@linkcode HttpClientException}. */
  signal?: AbortSignal | undefined;
  /**
   * The read timeout of a streamed response for this call, in seconds,
   * overriding the client's (`null`: none). It applies to streamed
   * responses only: a buffered response's body is covered by `timeout`.
   */
  readTimeout?: number | null | undefined;
  /**
   * The timeout of this whole call, in seconds, overriding the client's
   * (`null`: none): every attempt, retry wait and token fetch.
   */
  totalTimeout?: number | null | undefined;
}

/** The options of a convenience call: the request's fields (`timeout` among them) and the call's. */
export interface RequestOptions extends HttpRequestInit, CallOptions {}

/**
 * The options of a call: `shared` itself when `call` changes nothing (no
 * object made), else a copy with the call's signal and timeouts. Bad
 * timeouts throw a `TypeError` naming the option.
 */
export function callLifecycle(shared: LifecycleOptions, call: CallOptions): LifecycleOptions {
  const { signal, readTimeout, totalTimeout } = call;
  if (signal === undefined && readTimeout === undefined && totalTimeout === undefined) {
    return shared;
  }
  return {
    ...shared,
    ...(signal === undefined ? {} : { signal }),
    ...(readTimeout === undefined
      ? {}
      : { readTimeout: validateNullableTimeout("readTimeout", readTimeout) }),
    ...(totalTimeout === undefined
      ? {}
      : { totalTimeout: validateNullableTimeout("totalTimeout", totalTimeout) }),
  };
}
