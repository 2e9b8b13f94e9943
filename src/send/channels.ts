// The tracing channels the send path publishes on, where the runtime has
// `node:diagnostics_channel` (Node, Deno, Bun): `fetchline:request` around
// each call and `fetchline:exchange` around each exchange, whether or not
// `telemetry()` is used, so an APM tool subscribes without patching. The
// module is asked of the runtime (`process.getBuiltinModule`), never
// imported: the Web build runs where there is none (workerd), and the
// browser build compiles `channels_browser.ts` in this file's place.
// With no subscriber a call costs one `hasSubscribers` read a channel.

import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { ExchangeReason } from "../hooks/hook_interfaces.ts";

/** The part of a `node:diagnostics_channel` channel the send path uses. */
interface Channel {
  publish(message: unknown): void;
  runStores?<T>(message: unknown, run: () => T): T;
}

/** A `TracingChannel`'s five channels. */
export interface Tracing {
  readonly hasSubscribers?: boolean;
  readonly start: Channel & { readonly hasSubscribers: boolean };
  readonly end: Channel & { readonly hasSubscribers: boolean };
  readonly asyncStart: Channel & { readonly hasSubscribers: boolean };
  readonly asyncEnd: Channel & { readonly hasSubscribers: boolean };
  readonly error: Channel & { readonly hasSubscribers: boolean };
}

interface DiagnosticsChannel {
  tracingChannel(name: string): Tracing;
}

const diagnostics = (() => {
  try {
    const process = (globalThis as {
      process?: { getBuiltinModule?: (name: string) => unknown };
    }).process;
    return process?.getBuiltinModule?.("node:diagnostics_channel") as
      | DiagnosticsChannel
      | undefined;
  } catch {
    return undefined;
  }
})();

/** `fetchline:request`: one call, from its start to its response (at the head when streamed) or failure. */
export const REQUEST_CHANNEL: Tracing | undefined = diagnostics?.tracingChannel(
  "fetchline:request",
);
/** `fetchline:exchange`: one exchange (an attempt, a redirect's hop, a resend). */
export const EXCHANGE_CHANNEL: Tracing | undefined = diagnostics?.tracingChannel(
  "fetchline:exchange",
);

/** True when someone listens on `channel`. */
export function isTraced(channel: Tracing | undefined): channel is Tracing {
  if (channel === undefined) return false;
  const all = channel.hasSubscribers;
  if (all !== undefined) return all;
  return channel.start.hasSubscribers || channel.end.hasSubscribers ||
    channel.asyncStart.hasSubscribers || channel.asyncEnd.hasSubscribers ||
    channel.error.hasSubscribers;
}

/**
 * What a message of `fetchline:request` and `fetchline:exchange` holds:
 * masked views only (the request's and the response's `toJSON()`, the URL
 * redacted and credentials `***`), the response's timings, or the error
 * (the library's exceptions mask their own views).
 */
export interface TraceMessage {
  /** The request, as its masked view. */
  readonly request: Record<string, unknown>;
  /** The exchange's number in its call, from 1 (`fetchline:exchange` only). */
  readonly attempt?: number;
  /** Why the exchange is sent (`fetchline:exchange` only). */
  readonly reason?: ExchangeReason;
  /** The response, as its masked view, once it came. */
  response?: Record<string, unknown>;
  /** Its status code. */
  statusCode?: number;
  /** Its timings (a streamed response's, at its head). */
  timings?: HttpResponse["timings"];
  /** What the call or exchange failed with. */
  error?: unknown;
}

/** The message of a call of `request`. */
export function callMessage(request: HttpRequest): TraceMessage {
  return { request: request.toJSON() };
}

/** The message of an exchange of `request`. */
export function exchangeMessage(
  request: HttpRequest,
  attempt: number,
  reason: ExchangeReason,
): TraceMessage {
  return { request: request.toJSON(), attempt, reason };
}

/**
 * `run()` traced on `channel` as a `TracingChannel`'s `tracePromise` does
 * (start, end, then asyncStart and asyncEnd, with error on a failure; the
 * start's stores bound around `run`), but with `message` holding the
 * response's masked view, never the response.
 */
export function traced(
  channel: Tracing,
  message: TraceMessage,
  run: () => Promise<HttpResponse>,
): Promise<HttpResponse> {
  const { start } = channel;
  const body = () => {
    let pending: Promise<HttpResponse>;
    try {
      pending = run();
    } catch (error) {
      message.error = error;
      channel.error.publish(message);
      channel.end.publish(message);
      throw error;
    }
    channel.end.publish(message);
    return pending.then((response) => {
      message.response = response.toJSON();
      message.statusCode = response.statusCode;
      message.timings = response.timings;
      channel.asyncStart.publish(message);
      channel.asyncEnd.publish(message);
      return response;
    }, (error) => {
      message.error = error;
      channel.error.publish(message);
      channel.asyncStart.publish(message);
      channel.asyncEnd.publish(message);
      throw error;
    });
  };
  if (start.runStores !== undefined) return start.runStores(message, body);
  start.publish(message);
  return body();
}
