// What a route of a mock transport answers, made into the `Response` a
// fetch would resolve to: after the reply's delay, its body failing when
// the request's signal aborts (a timeout, the client's close), as a real
// fetch's body does.

import type { MockCall } from "./mock_call.ts";
import { checkKnownKeys, keysOf } from "../models/_validate.ts";

/**
 * A reply as a plain object: `status` (default 200), `headers`, and a
 * `body` (anything `fetch`'s `Response` takes: a string, bytes, a Blob, a
 * `ReadableStream` to send a body by chunks) or a `json` value (sent as
 * `JSON.stringify` gives it, with `Content-Type: application/json` unless
 * the headers set one). `delay` holds the head back that many seconds, for
 * a timeout test; the request's timeout or signal ends the wait, and so
 * does the client's `close()` when the call has a timeout (the default).
 * A call with neither a timeout nor a signal still fails at once on
 * `close()`, but its fetch is given no signal, so the delay's timer runs out.
 */
export interface MockReplyInit {
  /** The status, 200 to 599 (default 200). */
  readonly status?: number;
  /** The response headers. */
  readonly headers?: HeadersInit;
  /** The body, as `Response` takes it; not with `json`. */
  readonly body?: BodyInit | null;
  /** A value sent as JSON; not with `body`. */
  readonly json?: unknown;
  /** Seconds before the head arrives (default 0). */
  readonly delay?: number;
}

/**
 * What a route answers: a {@linkcode MockReplyInit}, or a `Response` (sent
 * to each call as a clone, so it can answer many; `Response.error()` fails
 * the exchange as a network failure does).
 */
export type MockReply = MockReplyInit | Response;

/**
 * A route's reply made for each call: it gets the call (its body already
 * read) and returns a reply, or a promise of one. What it throws fails the
 * exchange as a network failure would (the client's `ConnectionException`,
 * which it may retry); an `HttpClientException` reaches the caller as it is.
 */
export type MockHandler = (call: MockCall) => MockReply | Promise<MockReply>;

const REPLY_KEYS = keysOf<MockReplyInit>({
  status: true,
  headers: true,
  body: true,
  json: true,
  delay: true,
});
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * Checks a reply's fields, so a route's mistake is named where it is made.
 *
 * @throws {TypeError} For a key the reply does not know, both `body` and
 * `json`, or a body with a status that has none; {@linkcode RangeError} for
 * a status outside 200–599 or a delay that is not a finite number ≥ 0.
 */
export function checkReply(reply: unknown): MockReply {
  if (reply instanceof Response) {
    if (reply.bodyUsed) throw new TypeError("Invalid mock reply: the Response's body was read");
    return reply;
  }
  if (typeof reply !== "object" || reply === null) {
    throw new TypeError(
      "Invalid mock reply: expected { status, headers, body | json } or a Response",
    );
  }
  checkKnownKeys("mock reply", reply, REPLY_KEYS);
  const { status = 200, body, json, delay = 0 } = reply as MockReplyInit;
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(
      `Invalid mock reply status: expected an integer from 200 to 599, got ${status}`,
    );
  }
  const hasBody = (body !== undefined && body !== null) || json !== undefined;
  if (body !== undefined && body !== null && json !== undefined) {
    throw new TypeError("Invalid mock reply: body and json cannot both be given");
  }
  if (hasBody && NULL_BODY_STATUSES.has(status)) {
    throw new TypeError(`Invalid mock reply: status ${status} has no body`);
  }
  if (typeof delay !== "number" || !Number.isFinite(delay) || delay < 0) {
    throw new RangeError(`Invalid mock reply delay: expected seconds ≥ 0, got ${String(delay)}`);
  }
  return reply as MockReplyInit;
}

/**
 * The `Response` a fetch resolves to for `reply`, once its delay is over;
 * rejects with the signal's reason when `signal` aborts first. A
 * `Response.error()` rejects with a `TypeError`, as a fetch's network failure does.
 */
export async function replyResponse(
  reply: MockReply,
  signal: AbortSignal | undefined,
  shared: boolean,
): Promise<Response> {
  let response: Response;
  if (reply instanceof Response) {
    response = shared ? reply.clone() : reply;
  } else {
    if (reply.delay) await sleep(reply.delay, signal);
    response = responseOf(reply);
  }
  if (response.type === "error") {
    throw new TypeError("Network error: Response.error() of a mock route");
  }
  if (signal === undefined || response.body === null) return response;
  return new Response(abortableBody(response.body, signal), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** A reply as a `Response`; what `Response` or `JSON.stringify` refuses is an {@linkcode InvalidReply}. */
function responseOf(reply: MockReplyInit): Response {
  try {
    const headers = new Headers(reply.headers);
    let body = reply.body ?? null;
    if (reply.json !== undefined) {
      body = JSON.stringify(reply.json);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    return new Response(body, { status: reply.status ?? 200, headers });
  } catch (error) {
    throw new InvalidReply(`Invalid mock reply: ${(error as Error)?.message ?? error}`, error);
  }
}

/**
 * A reply that cannot be made into a response (a stream body already used
 * by an earlier call, a header value fetch refuses): the route's mistake,
 * not a network failure, so the transport fails the call with it as it is.
 */
export class InvalidReply extends Error {
  /** @param message What is wrong. @param cause The error behind it. */
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** Waits `seconds`; `signal` ends the wait, clearing the timer, with its reason. */
function sleep(seconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, seconds * 1000);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `body`, failed with the signal's reason and its source cancelled when
 * `signal` aborts, as a fetch's body fails when its request is aborted: a
 * read waiting for a chunk that never comes rejects then.
 */
function abortableBody(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let onAbort = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      onAbort = () => {
        controller.error(signal.reason);
        reader.cancel(signal.reason).catch(() => {});
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (signal.aborted) return;
      if (!done) return controller.enqueue(value);
      signal.removeEventListener("abort", onAbort);
      controller.close();
    },
    cancel(reason) {
      signal.removeEventListener("abort", onAbort);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
