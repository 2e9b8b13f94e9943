// The options of `client.events()`: a GET's request fields and call options
// (no body: an event stream is reconnected, so its request is sent again and
// again), and the reconnection's own. Checked once, when the reader is made:
// a key the library does not know is a TypeError naming it.

import type { HttpRequestInit } from "../models/request.ts";
import {
  checkKnownKeys,
  validateCount,
  validateNullableTimeout,
  validateSeconds,
} from "../models/_validate.ts";
import type { CallOptions } from "./call_options.ts";

/** The reconnection time until the server sends `retry`, in seconds: what browsers wait. */
export const DEFAULT_RETRY_DELAY = 3;

/** Reconnections in a row without an event before the reader gives up. */
export const DEFAULT_MAX_RECONNECTS = 10;

/**
 * The options of {@linkcode HttpClient.events}: the fields of a GET request
 * and its call options, and how the reader reconnects.
 */
export interface EventStreamOptions
  extends
    Pick<HttpRequestInit, "headers" | "params" | "timeout" | "auth">,
    Pick<CallOptions, "signal" | "readTimeout"> {
  /**
   * The longest the reader lives, in seconds, every connection and wait
   * included (`null` or absent: no limit); then the loop throws a
   * {@linkcode TimeoutException} naming `totalTimeout`. Each connection's
   * head is bounded by what is left of it. Absent, the client's total
   * timeout bounds each connection's head alone, as for `stream()`.
   */
  totalTimeout?: number | null | undefined;
  /**
   * Where to resume: sent as `Last-Event-ID` on the first connection, as
   * if the last event received had this ID (`""` or absent: none).
   */
  lastEventId?: string | undefined;
  /**
   * The reconnection time in seconds (default 3, as browsers have it),
   * until the server sets its own with a `retry` field, which wins.
   */
  retryDelay?: number | undefined;
  /**
   * The most reconnections in a row without an event received (default 10;
   * `Infinity` reconnects for ever, as EventSource does; 0 never
   * reconnects). An event received starts the count again.
   */
  maxReconnects?: number | undefined;
}

/** Every key of {@linkcode EventStreamOptions}, and no other. */
const EVENT_STREAM_OPTIONS = {
  headers: true,
  params: true,
  timeout: true,
  auth: true,
  signal: true,
  readTimeout: true,
  totalTimeout: true,
  lastEventId: true,
  retryDelay: true,
  maxReconnects: true,
} as const satisfies Record<keyof EventStreamOptions, true>;

const EVENT_STREAM_KEYS: ReadonlySet<string> = new Set(Object.keys(EVENT_STREAM_OPTIONS));

/** The options of one reader, checked, with their defaults. */
export interface EventStreamSettings {
  readonly init: HttpRequestInit;
  readonly signal: AbortSignal | undefined;
  readonly readTimeout: number | null | undefined;
  readonly totalTimeout: number | null;
  readonly lastEventId: string;
  /** In milliseconds. */
  readonly retryDelayMs: number;
  readonly maxReconnects: number;
}

/**
 * Checks `options` (TypeError or RangeError naming the option, never
 * quoting a value) and fills in the defaults. A body key is unknown here:
 * the request of an event stream is sent again on every reconnection.
 */
export function eventStreamSettings(options: EventStreamOptions): EventStreamSettings {
  checkKnownKeys("options", options, EVENT_STREAM_KEYS);
  const { headers, params, timeout, auth, signal, readTimeout, totalTimeout } = options;
  const { lastEventId = "", retryDelay = DEFAULT_RETRY_DELAY } = options;
  const { maxReconnects = DEFAULT_MAX_RECONNECTS } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError("Invalid signal: expected an AbortSignal");
  }
  // It could not have come from a stream, whose lines end at CR or LF and whose IDs hold no NUL.
  if (typeof lastEventId !== "string" || /[\0\r\n]/.test(lastEventId)) {
    throw new TypeError("Invalid lastEventId: expected a string without NUL, CR or LF");
  }
  if (headers !== null && typeof headers === "object") {
    if (Object.keys(headers).some((name) => name.toLowerCase() === "last-event-id")) {
      throw new TypeError(
        "Invalid headers: Last-Event-ID is sent by the reader (give the lastEventId option)",
      );
    }
  }
  if (maxReconnects !== Infinity) validateCount("maxReconnects", maxReconnects);
  return {
    init: { headers, params, timeout, auth },
    signal,
    readTimeout: readTimeout === undefined
      ? undefined
      : validateNullableTimeout("readTimeout", readTimeout),
    totalTimeout: totalTimeout == null
      ? null
      : validateNullableTimeout("totalTimeout", totalTimeout),
    lastEventId,
    retryDelayMs: validateSeconds("retryDelay", retryDelay) * 1000,
    maxReconnects,
  };
}
