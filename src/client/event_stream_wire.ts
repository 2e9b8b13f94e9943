// The steps of an event stream's connections: the `Last-Event-ID` a
// connection sends, the head it refuses as EventSource fails a connection,
// and the wait before the next one.

import { describeCall } from "../errors.ts";
import { EventStreamException } from "../models/response.ts";
import type { HttpResponse } from "../models/response.ts";

/**
 * Refuses the head of a connection as EventSource fails one: a status
 * other than 2xx, or a Content-Type other than `text/event-stream`.
 */
export function checkHead(response: HttpResponse): void {
  const { statusCode, request } = response;
  const target = describeCall(request, response.url);
  if (statusCode < 200 || statusCode > 299) {
    throw new EventStreamException(`Event stream refused with status ${statusCode}: ${target}`, {
      response,
    });
  }
  const type = response.header("content-type");
  if (type?.split(";")[0]?.trim().toLowerCase() !== "text/event-stream") {
    const shown = type === undefined ? "none" : JSON.stringify(type.slice(0, 100));
    throw new EventStreamException(
      `Event stream refused with Content-Type ${shown} (expected text/event-stream): ${target}`,
      { response },
    );
  }
}

/**
 * The `Last-Event-ID` value for `id`: none for `""`; the ID's UTF-8 bytes,
 * one character each (how a header carries bytes); none when the ID holds
 * a control character a header cannot carry (the server then starts over).
 */
export function lastEventIdHeader(id: string): string | undefined {
  if (id === "") return undefined;
  // deno-lint-ignore no-control-regex -- the controls are what the class finds
  if (/[\0-\x08\n-\x1f\x7f]/.test(id)) return undefined;
  if (/^[ -~\t]*$/.test(id)) return id; // printable ASCII, as it is
  return Array.from(new TextEncoder().encode(id), (byte) => String.fromCharCode(byte)).join("");
}

/**
 * The longest wait a timer counts, in milliseconds (about 24.8 days): a
 * longer one fires at once, on Node and Deno alike.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** At most this share of the reconnection time is added at random, so clients do not come back at once. */
const JITTER = 0.25;

/**
 * Waits `ms` and up to a quarter more, at random; `signal` ends the wait at
 * once (and no timer is left).
 */
export function reconnectionWait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    // A server's `retry` can be any number of digits: past a timer's range it waits the longest one.
    const timer = setTimeout(done, Math.min(ms * (1 + Math.random() * JITTER), MAX_TIMER_MS));
    signal.addEventListener("abort", done);
  });
}
