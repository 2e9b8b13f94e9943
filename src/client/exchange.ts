// One exchange: a request through the transport and its response's body,
// within a step its caller started. The one place where what the transport
// and the body read throw becomes the library's exceptions; the layers above
// (redirects, auth, the lifecycle) let errors pass as they are.

import {
  ConnectionException,
  DecodingException,
  describeCall,
  HttpClientException,
  TimeoutException,
} from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import { receivedResponse } from "../models/received_response.ts";
import type { HttpResponse } from "../models/response.ts";
import { type AbortSources, type Step, untilAborted } from "./deadline/abort.ts";
import type { CallTimeouts } from "./deadline/call_deadline.ts";
import { BodyDecodeError, BodyTooLarge, MalformedResponse } from "../transport/fetch_transport.ts";
import { connectionCause } from "../transport/connection_cause.ts";
import { discardBody, readBody } from "../transport/read_body.ts";
import { ProxyFailure } from "../transport/proxy_route.ts";
import { toWireRequest } from "../transport/wire_request.ts";
import type { Transport, WireResponse } from "../transport/types.ts";
import { isOneShot } from "../http/raw_body.ts";
import { cancelTimeout } from "./deadline/timeouts.ts";
import { streamedCall } from "./streamed_call.ts";
import { sendCounted } from "./upload_progress.ts";
import { type ProgressCallback, ProgressFailure } from "../transport/progress.ts";
import { addJarCookies, storeCookies } from "../cookies/jar_cookies.ts";
import { RuntimeLimitError } from "../transport/runtime_name.ts";
import type { CookieJarLike } from "../cookies/cookie_jar.ts";

/** What an exchange, and the redirects and auth above it, need besides the request. */
export interface SendOptions extends AbortSources, CallTimeouts {
  /** The transport. */
  readonly transport: Transport;
  /** How many redirects to follow (0: a redirect is read and returned like any response). */
  readonly maxRedirects: number;
  /** The largest body read, in bytes (`Infinity`: no limit). */
  readonly maxResponseBytes: number;
  /** Lower-case names of further credential headers, which a redirect drops when it leaves the origin. */
  readonly credentialHeaders?: ReadonlySet<string> | undefined;
  /** True for a streamed call: the response comes at its head, its body unread. */
  readonly stream?: boolean | undefined;
  /** A streamed body's longest wait for the next chunk, in seconds (`null`: none). */
  readonly readTimeout?: number | null | undefined;
  /** Told how far each request body has been handed to the transport. */
  readonly onUploadProgress?: ProgressCallback | undefined;
  /** Told how far each response body has been read. */
  readonly onDownloadProgress?: ProgressCallback | undefined;
  /** The cookie jar each hop's request takes its cookies from and each response stores its own in. */
  readonly cookies?: CookieJarLike | undefined;
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** A redirect the client follows; its body was discarded, never read. */
export class Redirect {
  /**
   * @param status The 3xx status.
   * @param location The `Location` header as received.
   * @param url The URL the redirect came from.
   */
  constructor(readonly status: number, readonly location: string, readonly url: string) {}
}

/**
 * Sends `hop` through the transport in `step` and reads the whole body
 * under `maxResponseBytes`. A 301, 302, 303, 307 or 308 with a Location,
 * while the client follows redirects, is not read: its body is discarded
 * and it comes back as a {@linkcode Redirect}; unless the next hop would
 * need the body again and it was a stream, sent once: then the redirect is
 * read and returned as the response. The response and every
 * failure name `request`, the call's request (the first hop, whatever
 * redirects followed); `elapsedMs` counts from `since`. What fails becomes
 * the library's exception ({@linkcode toClientError}).
 */
export async function sendSingleRequest(
  hop: HttpRequest,
  request: HttpRequest,
  step: Step,
  since: number,
  options: SendOptions,
): Promise<HttpResponse | Redirect> {
  try {
    const pending = toWireRequest(hop);
    let wire = pending instanceof Promise ? await pending : pending;
    const jar = options.cookies;
    // A jar is the caller's code: the step's timeout, signal and close bound the wait for it.
    const ended = () => stepEndedError(request, step, options) ?? new Error("Step aborted");
    if (jar !== undefined) {
      wire = await untilAborted(addJarCookies(wire, jar, request), step, ended);
    }
    const response = options.onUploadProgress === undefined
      ? await options.transport(wire, step)
      : await sendCounted(wire, step, options.transport, options.onUploadProgress);
    if (jar !== undefined) {
      await untilAborted(storeCookies(jar, response.headers, wire.url), step, ended);
    }
    if (options.maxRedirects > 0 && isRedirect(response) && canFollow(hop, response.status)) {
      await discardBody(response);
      return new Redirect(response.status, response.location, wire.url);
    }
    if (options.stream) {
      // The attempt's timeout (and the total) end at the head.
      cancelTimeout(step);
      const init = {
        statusCode: response.status,
        headers: response.headers,
        url: wire.url,
        request,
      };
      return streamedCall({
        wire: response,
        abort: step,
        init: { ...init, elapsedMs: performance.now() - since },
        toClientError: (error) => toClientError(error, request, step, options),
        since,
      }, options);
    }
    const content = await readBody(response, options.maxResponseBytes, options.onDownloadProgress);
    return receivedResponse({
      statusCode: response.status,
      headers: response.headers,
      content,
      elapsedMs: performance.now() - since,
      url: wire.url,
      request,
    });
  } catch (error) {
    throw toClientError(error, request, step, options);
  }
}

/**
 * True when a redirect with `status` turns `method` into a GET without a
 * body, as httpx and requests do: 303 and 302 any method but HEAD, 301 a
 * POST. 307 and 308, and 301 for other methods, keep the method and body.
 */
export function turnsIntoGet(status: number, method: string): boolean {
  return (status === 301 && method === "POST") ||
    ((status === 302 || status === 303) && method !== "HEAD");
}

/** False when the hop after `hop` would send its body again, and that body was a stream. */
function canFollow(hop: HttpRequest, status: number): boolean {
  return !isOneShot(hop.body) || turnsIntoGet(status, hop.method);
}

function isRedirect(response: WireResponse): response is WireResponse & { location: string } {
  return REDIRECT_STATUSES.has(response.status) && response.location !== null;
}

/**
 * The library's exception for `error`, thrown by the transport or the body
 * read in `step` of `request`: a
 * {@linkcode TimeoutException} once the step's timeout expired, a
 * {@linkcode ConnectionException} for a refused, reset or cut connection
 * (its message naming the cause: {@linkcode connectionCause}),
 * an {@linkcode HttpClientException} for a close or an abort.
 */
function toClientError(
  error: unknown,
  request: HttpRequest,
  step: Step,
  options: SendOptions,
): unknown {
  if (error instanceof HttpClientException) return error;
  // A progress callback's own error fails the call as it is.
  if (error instanceof ProgressFailure) return error.error;
  // A runtime permission error (Deno's NotCapable, PermissionDenied) is the
  // caller's environment, not the network: it reaches the caller as it is,
  // and the retry decision never sees a ConnectionException to retry.
  const name = error instanceof Error ? error.name : "";
  if (name === "NotCapable" || name === "PermissionDenied") return error;
  // So is a call this runtime can never make (a file path without a file
  // system, a default cookie jar whose library it could not load).
  if (error instanceof RuntimeLimitError) return error;
  const target = describeCall(request);
  if (error instanceof BodyTooLarge) {
    return new HttpClientException(
      `Response body exceeds maxResponseBytes (${error.maxBytes}): ${target} ` +
        "(read it with stream(), or raise withMaxResponseBytes)",
      { request, cause: error },
    );
  }
  // Not transient, so neither is retried: the same bytes would come again.
  if (error instanceof BodyDecodeError) {
    const message = `Response body could not be decoded (${error.coding}): ${target}`;
    return new DecodingException(message, { request, cause: error.cause });
  }
  if (error instanceof MalformedResponse) {
    return new HttpClientException(`Malformed response (${error.reason}): ${target}`, {
      request,
      cause: error.cause,
    });
  }
  const ended = stepEndedError(request, step, options, error);
  if (ended !== undefined) return ended;
  if (error instanceof ProxyFailure) {
    // A route the runtime cannot take is not retried: it would be the same.
    const Failure = error.transient ? ConnectionException : HttpClientException;
    return new Failure(`Connection failed: ${error.message}: ${target}`, {
      request,
      cause: error.cause ?? error,
    });
  }
  // The cause first, named ("connection refused", "TLS certificate not
  // trusted"…) with the runtime's words, then the call: one line.
  const { label, detail } = connectionCause(error);
  const reason = label === undefined ? ` (${detail})` : `: ${label} (${detail})`;
  return new ConnectionException(`Connection failed${reason}: ${target}`, {
    request,
    cause: error,
  });
}

/**
 * The exception for a `step` of `request` that its timeout (a
 * {@linkcode TimeoutException}), the client's close or the caller's signal
 * ended, or `undefined` when none did.
 */
export function stepEndedError(
  request: HttpRequest,
  step: Step,
  options: Pick<SendOptions, "closed" | "signal">,
  cause?: unknown,
): HttpClientException | undefined {
  if (step.timedOut) {
    // The attempt's timeout keeps the message it always had; the others are named.
    const which = step.total ? " (totalTimeout)" : "";
    const error = new TimeoutException(
      `Request timed out after ${step.seconds} s${which}: ${describeCall(request)}`,
      { request, cause },
    );
    if (step.total) callTimeouts.add(error);
    return error;
  }
  return abortedCallError(request, options, cause);
}

/** The exceptions of steps that the call's total timeout ended. */
const callTimeouts = new WeakSet<object>();

/**
 * True for the exception of a step the call's `totalTimeout` ended: the
 * call is over, whatever the clock says (a timer may fire a little early).
 */
export function endedByTotalTimeout(error: unknown): boolean {
  return typeof error === "object" && error !== null && callTimeouts.has(error);
}

/**
 * The exception for a call whose retry wait of `ms` would end past its
 * total timeout: it fails at once rather than wait for a try it cannot make.
 */
export function retryPastDeadlineError(
  request: HttpRequest,
  ms: number,
  options: CallTimeouts,
): TimeoutException {
  const wait = Math.round(ms) / 1000;
  return new TimeoutException(
    `Retry wait of ${wait} s would pass the totalTimeout of ${options.totalTimeout} s: ${
      describeCall(request)
    }`,
    { request },
  );
}

/**
 * The exception for a call the client's close or the caller's signal ended,
 * or `undefined` when neither has aborted.
 */
export function abortedCallError(
  request: HttpRequest,
  options: Pick<SendOptions, "closed" | "signal">,
  cause?: unknown,
): HttpClientException | undefined {
  const target = describeCall(request);
  if (options.closed.aborted) {
    return new HttpClientException(`Client was closed during the request: ${target}`, {
      request,
      cause,
    });
  }
  if (options.signal?.aborted) {
    return new HttpClientException(`Request was aborted: ${target}`, {
      request,
      cause: options.signal.reason,
    });
  }
  return undefined;
}
