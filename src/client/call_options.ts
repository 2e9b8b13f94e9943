// The options of one call besides its request: their keys in one place (a
// key the library does not know, a JavaScript caller's `{ bdy }` or
// `{ json }`, is refused with a TypeError naming it, never dropped; the
// compiler holds CALL_OPTIONS to the CallOptions interface), and how they
// change the options the client's calls share.

import { REQUEST_INIT_KEYS } from "../models/request.ts";
import type { HttpRequestInit } from "../models/request.ts";
import { checkKnownKeys, validateNullableTimeout } from "../models/_validate.ts";
import type { LifecycleOptions } from "./lifecycle.ts";
import type { Progress } from "../transport/body.ts";

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
  /**
   * Told how far the request body has been handed to the transport (not
   * what the server received): at the start (0 bytes), after each chunk of
   * a stream body, and at the end; a body of known size (string, bytes,
   * Blob) is sent whole and told at the start and the end only. A request
   * without a body tells nothing. Each attempt (retry, redirect) starts
   * again at 0. What the callback throws fails the call as it is and drops
   * the connection.
   */
  onUploadProgress?: ((progress: Progress) => void) | undefined;
  /**
   * Told how far the (decoded) response body has been read, for buffered
   * and streamed calls: at the start (0 bytes), after each chunk, and at
   * the end (then `totalBytes` is the body's size, `percent` 1). The total
   * is known before the end only from a Content-Length without
   * Content-Encoding. A response without a body tells nothing. What the
   * callback throws fails the call (or the streamed body's read) as it is
   * and drops the connection.
   */
  onDownloadProgress?: ((progress: Progress) => void) | undefined;
}

/** The options of a convenience call: the request's fields (`timeout` among them) and the call's. */
export interface RequestOptions extends HttpRequestInit, CallOptions {}

/** Every key of {@linkcode CallOptions}, and no other. */
const CALL_OPTIONS = {
  signal: true,
  readTimeout: true,
  totalTimeout: true,
  stream: true,
  onUploadProgress: true,
  onDownloadProgress: true,
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
  const { signal, readTimeout, totalTimeout, stream, onUploadProgress, onDownloadProgress } = call;
  if (
    signal === undefined && readTimeout === undefined && totalTimeout === undefined &&
    stream === undefined && onUploadProgress === undefined && onDownloadProgress === undefined
  ) {
    return shared;
  }
  if (stream !== undefined && typeof stream !== "boolean") {
    throw new TypeError("Invalid stream: expected a boolean");
  }
  checkCallback("onUploadProgress", onUploadProgress);
  checkCallback("onDownloadProgress", onDownloadProgress);
  return {
    ...shared,
    ...(onUploadProgress === undefined ? {} : { onUploadProgress }),
    ...(onDownloadProgress === undefined ? {} : { onDownloadProgress }),
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

function checkCallback(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== "function") {
    throw new TypeError(`Invalid ${name}: expected a function`);
  }
}
