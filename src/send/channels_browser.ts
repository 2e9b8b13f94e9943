// The browser build's `channels.ts` (scripts/build_npm.ts compiles it in
// that file's place): a browser has no `node:diagnostics_channel`, so
// nothing is published and nothing of it is bundled.

import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { ExchangeReason } from "../hooks/hook_interfaces.ts";

/** A `TracingChannel`, which a browser has none of. */
export type Tracing = never;

/** A traced message (none is made in a browser). */
export class TraceMessage {
  constructor(
    _request: HttpRequest,
    readonly attempt?: number | undefined,
    readonly reason?: ExchangeReason | undefined,
  ) {}
}

/** Nothing to look up in a browser. */
export function channelsLookUp(): Promise<void> | undefined {
  return undefined;
}

/** None in a browser. */
export function requestChannel(): Tracing | undefined {
  return undefined;
}

/** None in a browser. */
export function exchangeChannel(): Tracing | undefined {
  return undefined;
}

/** False: nobody can listen in a browser. */
export function isTraced(_channel: Tracing | undefined): _channel is Tracing {
  return false;
}

/** Never called in a browser: `run()` as it is. */
export function traced(
  _channel: Tracing,
  _message: TraceMessage,
  run: () => Promise<HttpResponse>,
): Promise<HttpResponse> {
  return run();
}
