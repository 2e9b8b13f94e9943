// What ends an exchange, as the library's exceptions: the transport's and
// the body read's failures, a step's timeout, the client's close, the
// caller's signal.

import {
  ConnectionException,
  DecodingException,
  describeCall,
  HttpClientException,
  TimeoutException,
} from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import type { AbortSources, Step } from "./deadline/abort.ts";
import type { CallTimeouts } from "./deadline/call_deadline.ts";
import {
  BodyDecodeError,
  connectionCause,
  isBrowserDecoderFailure,
  MalformedResponse,
  ProxyFailure,
  RequestBodyFailure,
  RuntimeLimitError,
} from "../transport/failures.ts";
import { BodyTooLarge, ProgressFailure } from "../transport/body.ts";
import { hideCauseText } from "../masking/views.ts";
import { describeType } from "../models/_validate.ts";

/**
 * The library's exception for `error`, thrown by the transport or the body
 * read in `step` of `request`: a
 * {@linkcode TimeoutException} once the step's timeout expired, a
 * {@linkcode ConnectionException} for a refused, reset or cut connection
 * (its message naming the cause: {@linkcode connectionCause}),
 * an {@linkcode HttpClientException} for a close or an abort.
 */
export function toClientError(
  error: unknown,
  request: HttpRequest,
  step: Step,
  options: Pick<AbortSources, "closed" | "signal">,
): unknown {
  if (error instanceof HttpClientException) return error;
  // A progress callback's own error fails the call as it is.
  if (error instanceof ProgressFailure) return error.error;
  // A body source tied to the call's own signal or timeout fails with it:
  // the call's end is named, not the source's echo of it.
  if (error instanceof RequestBodyFailure) {
    return stepEndedError(request, step, options, error.error) ??
      requestBodyError(error.error, request);
  }
  // A runtime permission error (Deno's NotCapable, PermissionDenied) is the
  // caller's environment, not the network: it reaches the caller as it is,
  // and the retry decision never sees a ConnectionException to retry.
  if (isPermissionError(error)) return error;
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
  // A browser's decoder failure names no coding (a page may not see it).
  if (error instanceof BodyDecodeError || isBrowserDecoderFailure(error)) {
    const decode = error instanceof BodyDecodeError ? error : undefined;
    const coding = decode === undefined ? "" : ` (${decode.coding})`;
    const message = `Response body could not be decoded${coding}: ${target}`;
    return new DecodingException(message, { request, cause: decode ? decode.cause : error });
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

function isPermissionError(error: unknown): boolean {
  const name = error instanceof Error ? error.name : "";
  return name === "NotCapable" || name === "PermissionDenied";
}

/**
 * The exception for a request body whose source failed with `cause` (the
 * caller's stream, a file read): the caller's failure, not the network's,
 * so never retried, as httpx raises the stream's own error. The message
 * names the cause's class only, as do the exception's views: its text may
 * hold anything. A permission error passes as it is, as from the transport.
 */
function requestBodyError(cause: unknown, request: HttpRequest): unknown {
  if (isPermissionError(cause)) return cause;
  const kind = cause instanceof Error ? cause.name : describeType(cause);
  return hideCauseText(
    new HttpClientException(`Request body failed (${kind}): ${describeCall(request)}`, {
      request,
      cause,
    }),
  );
}

/**
 * The exception for a `step` of `request` that its timeout (a
 * {@linkcode TimeoutException}), the client's close or the caller's signal
 * ended, or `undefined` when none did.
 */
export function stepEndedError(
  request: HttpRequest,
  step: Step,
  options: Pick<AbortSources, "closed" | "signal">,
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
  options: Pick<AbortSources, "closed" | "signal">,
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
