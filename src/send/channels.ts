// The tracing channels the send path publishes on, where the runtime has
// `node:diagnostics_channel` (Node, Deno, Bun): `fetchline:request` around
// each call and `fetchline:exchange` around each exchange, whether or not
// `telemetry()` is used, so an APM tool subscribes without patching. The
// runtime's module is looked up when the first call starts
// ({@linkcode channelsLookUp}; runtime.ts gets it, never imported
// statically: the Web build runs where there is none, workerd), and the
// browser build compiles `channels_browser.ts` in this file's place.
// With no subscriber a call costs one `hasSubscribers` read a channel.

import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { ExchangeReason } from "../hooks/hook_interfaces.ts";
import { runtime } from "../transport/runtime.ts";
import type { DiagnosticsChannel } from "../transport/types.ts";

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

/** The two channels, once looked up (`undefined` where the runtime has none). */
let channels: { readonly request: Tracing; readonly exchange: Tracing } | undefined;
/** The look-up, until it has ended (on Deno: runtime.ts says why it waits). */
let lookingUp: Promise<void> | undefined;
let lookedUp = false;

const found = (diagnostics: DiagnosticsChannel | undefined) => {
  channels = diagnostics && {
    request: diagnostics.tracingChannel("fetchline:request") as Tracing,
    exchange: diagnostics.tracingChannel("fetchline:exchange") as Tracing,
  };
  lookedUp = true;
};

/**
 * Looks the channels up once, before a process's first call: `undefined`
 * once they are known, else what to wait for (the runtime's module, where
 * getting it costs: Deno imports it).
 */
export function channelsLookUp(): Promise<void> | undefined {
  if (lookedUp) return undefined;
  if (lookingUp !== undefined) return lookingUp;
  const diagnostics = runtime.diagnosticsChannel();
  if (diagnostics instanceof Promise) return lookingUp = diagnostics.then(found);
  found(diagnostics);
  return undefined;
}

/** `fetchline:request`: one call, from its start to its response (at the head when streamed) or failure. */
export function requestChannel(): Tracing | undefined {
  return channels?.request;
}

/** `fetchline:exchange`: one exchange (an attempt, a redirect's hop, a resend). */
export function exchangeChannel(): Tracing | undefined {
  return channels?.exchange;
}

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
 * A message of `fetchline:request` and `fetchline:exchange`: masked views
 * only (the request's and the response's `toJSON()`: the URL redacted,
 * credentials `***`), made when first read, so a subscriber that reads
 * none costs none; the response's timings; or the error (the library's
 * exceptions mask their own views).
 */
export class TraceMessage {
  #request: HttpRequest;
  #requestView: Record<string, unknown> | undefined = undefined;
  #response: HttpResponse | undefined = undefined;
  #responseView: Record<string, unknown> | undefined = undefined;
  /** What the call or exchange failed with. */
  error?: unknown;

  /**
   * @param request The request.
   * @param attempt The exchange's number in its call, from 1 (`fetchline:exchange` only).
   * @param reason Why the exchange is sent (`fetchline:exchange` only).
   */
  constructor(
    request: HttpRequest,
    readonly attempt?: number,
    readonly reason?: ExchangeReason,
  ) {
    this.#request = request;
  }

  /** The request, as its masked view. */
  get request(): Record<string, unknown> {
    return this.#requestView ??= this.#request.toJSON();
  }

  /** The response, as its masked view, once it came. */
  get response(): Record<string, unknown> | undefined {
    if (this.#response === undefined) return undefined;
    return this.#responseView ??= this.#response.toJSON();
  }

  /** The response's status code, once it came. */
  get statusCode(): number | undefined {
    return this.#response?.statusCode;
  }

  /** The response's timings (a streamed response's, at its head), once it came. */
  get timings(): HttpResponse["timings"] | undefined {
    return this.#response?.timings;
  }

  /** The response came. */
  responded(response: HttpResponse): void {
    this.#response = response;
  }

  /** A view of the message, as JSON shows it. */
  toJSON(): Record<string, unknown> {
    const { request, attempt, reason, response, statusCode, timings, error } = this;
    return { request, attempt, reason, response, statusCode, timings, error };
  }
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
      message.responded(response);
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
