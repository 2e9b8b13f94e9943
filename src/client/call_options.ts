// The options of one call besides its request: their keys in one place (a
// key the library does not know, a JavaScript caller's `{ bdy }` or
// `{ json }`, is refused with a TypeError naming it, never dropped; the
// compiler holds CALL_OPTIONS to the CallOptions interface), and how they
// change the options the client's calls share.

import { checkKnownKeys, REQUEST_INIT_KEYS } from "../models/request_fields.ts";
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
  /**
   * True to resolve at the response head with the body unread (what
   * `client.stream()` does): read it with `read()`, `body`, `lines()` or
   * `events()`, or `cancel()` it.
   */
  stream?: boolean | undefined;
}

/** The options of a convenience call: the request's fields (`timeout` among them) and the call's. */
export interface RequestOptions extends HttpRequestInit, CallOptions {}

/** Every key of {@linkcode CallOptions}, and no other. */
const CALL_OPTIONS = {
  signal: true,
  readTimeout: true,
  totalTimeout: true,
  stream: true,
} as const satisfies Record<keyof CallOptions, true>;

/** The keys of `request()`'s options. */
const CALL_OPTION_KEYS: ReadonlySet<string> = new Set(Object.keys(CALL_OPTIONS));

/** The keys of a convenience call's options (`get()`, `post()`…): the request's and the call's. */
const REQUEST_OPTION_KEYS: ReadonlySet<string> = new Set([
  ...REQUEST_INIT_KEYS,
  ...CALL_OPTION_KEYS,
]);

/** Throws a TypeError naming the first key of `request()`'s options that is not a call option. */
export function checkCallOptions(options: unknown): void {
  checkKnownKeys("options", options, CALL_OPTION_KEYS);
}

const NO_CALL_OPTIONS: CallOptions = Object.freeze({});

/**
 * Splits a convenience call's options into the request's init and the
 * call's options, refusing a key that is neither (TypeError naming it).
 * Options without a call option are the init as they are: nothing is copied.
 */
export function splitRequestOptions(options: RequestOptions): [HttpRequestInit, CallOptions] {
  checkKnownKeys("options", options, REQUEST_OPTION_KEYS);
  let init: Record<string, unknown> | undefined;
  let call: Record<string, unknown> | undefined;
  for (const key in options) {
    if (!CALL_OPTION_KEYS.has(key)) continue;
    init ??= { ...options };
    call ??= {};
    call[key] = init[key];
    delete init[key];
  }
  return init === undefined ? [options, NO_CALL_OPTIONS] : [init, call as CallOptions];
}

/**
 * The options of a call: `shared` itself when `call` changes nothing (no
 * object made), else a copy with the call's signal and timeouts. Bad
 * timeouts throw a `TypeError` naming the option.
 */
export function callLifecycle(shared: LifecycleOptions, call: CallOptions): LifecycleOptions {
  const { signal, readTimeout, totalTimeout, stream } = call;
  if (
    signal === undefined && readTimeout === undefined && totalTimeout === undefined &&
    stream === undefined
  ) {
    return shared;
  }
  if (stream !== undefined && typeof stream !== "boolean") {
    throw new TypeError("Invalid stream: expected a boolean");
  }
  return {
    ...shared,
    ...(stream ? { stream } : {}),
    ...(signal === undefined ? {} : { signal }),
    ...(readTimeout === undefined
      ? {}
      : { readTimeout: validateNullableTimeout("readTimeout", readTimeout) }),
    ...(totalTimeout === undefined
      ? {}
      : { totalTimeout: validateNullableTimeout("totalTimeout", totalTimeout) }),
  };
}
