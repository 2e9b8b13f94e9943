import {
  ConnectionException,
  DecodingException,
  describeCall,
  HttpClientException,
  TimeoutException,
} from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import { receivedResponse } from "../models/response.ts";
import type { HttpResponse } from "../models/response.ts";
import { followRedirects, HookError, isRedirect } from "./redirects.ts";
import type { RedirectAuth } from "./redirects.ts";
import { Step } from "./deadline/abort.ts";
import { startTimeout } from "./deadline/timeouts.ts";
import type { AbortSources } from "./deadline/abort.ts";
import { BodyDecodeError, BodyTooLarge, MalformedResponse } from "../transport/fetch_transport.ts";
import { readBody } from "../transport/read_body.ts";
import { toWireRequest } from "../transport/wire_request.ts";
import type { Transport } from "../transport/types.ts";

/** What one exchange needs besides the request. */
export interface SendOptions extends AbortSources {
  /** The transport. */
  readonly transport: Transport;
  /** The timeout in seconds when the request has none. */
  readonly timeout: number;
  /** How many redirects to follow. */
  readonly maxRedirects: number;
  /** The largest body read, in bytes (`Infinity`: no limit). */
  readonly maxResponseBytes: number;
  /** Lower-case names of further credential headers, which a redirect drops when it leaves the origin. */
  readonly credentialHeaders?: ReadonlySet<string> | undefined;
}

/** A step its caller started (and releases), with the timeout it runs under. */
export interface StartedStep {
  /** The step; its timeout is running. */
  readonly step: Step;
  /** Its timeout in seconds, for the message. */
  readonly seconds: number;
}

/**
 * Performs one exchange of a prepared request (absolute URL, headers
 * merged): sends it, follows redirects, reads the whole body, all within
 * the timeout. Failures become the library's exceptions: a timeout is a
 * {@linkcode TimeoutException}, a refused, reset or cut connection a
 * {@linkcode ConnectionException}, a close or an abort an
 * {@linkcode HttpClientException}. With `started`, the exchange runs in
 * that step, under its timeout, and leaves it to its caller to release.
 */
export async function sendRequest(
  request: HttpRequest,
  options: SendOptions,
  auth?: RedirectAuth,
  started?: StartedStep,
): Promise<HttpResponse> {
  const start = performance.now();
  const seconds = started?.seconds ?? request.timeout ?? options.timeout;
  const step = started?.step ?? new Step(options);
  if (started === undefined) startTimeout(step, seconds * 1000, start);
  try {
    const { transport } = options;
    const pending = toWireRequest(request);
    const wire = pending instanceof Promise ? await pending : pending;
    let response = await transport(wire, step);
    let url = wire.url;
    if (isRedirect(response)) {
      ({ response, url } = await followRedirects(
        request,
        { response, url },
        options.maxRedirects,
        async (hop) => transport(await toWireRequest(hop), step),
        auth,
        options.credentialHeaders,
      ));
    }
    const content = await readBody(response, options.maxResponseBytes);
    return receivedResponse({
      statusCode: response.status,
      headers: response.headers,
      content,
      elapsedMs: performance.now() - start,
      url,
      request,
    });
  } catch (error) {
    throw toClientError(error, request, seconds, step.timedOut, options);
  } finally {
    if (started === undefined) step.release();
  }
}

/** The library's exception for `error`, thrown in a step of `request` that had a timeout of `seconds`. */
export function toClientError(
  error: unknown,
  request: HttpRequest,
  seconds: number,
  timedOut: boolean,
  options: SendOptions,
): unknown {
  if (error instanceof HookError) return error.error;
  if (error instanceof HttpClientException) return error;
  // A runtime permission error (Deno's NotCapable, PermissionDenied) is the
  // caller's environment, not the network: it reaches the caller as it is,
  // and the retry decision never sees a ConnectionException to retry.
  const name = error instanceof Error ? error.name : "";
  if (name === "NotCapable" || name === "PermissionDenied") return error;
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
  if (timedOut) {
    return new TimeoutException(`Request timed out after ${seconds} s: ${target}`, {
      request,
      cause: error,
    });
  }
  const aborted = abortedCallError(request, options, error);
  if (aborted !== undefined) return aborted;
  const reason = error instanceof Error ? error.message : String(error);
  return new ConnectionException(`Connection failed: ${target} (${reason})`, {
    request,
    cause: error,
  });
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
