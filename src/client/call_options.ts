// The keys a call's options may have, in one place: a key the library does
// not know (a JavaScript caller's `{ bdy }` or `{ json }`) is refused with a
// TypeError naming it, never dropped. A new call option is added to
// CALL_OPTIONS; the compiler holds the list to the CallOptions interface.

import { checkKnownKeys, REQUEST_INIT_KEYS } from "../models/request_fields.ts";
import type { HttpRequestInit } from "../models/request_fields.ts";
import type { CallOptions, RequestOptions } from "./http_client.ts";

/** Every key of {@linkcode CallOptions}, and no other. */
const CALL_OPTIONS = { signal: true } as const satisfies Record<keyof CallOptions, true>;

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
