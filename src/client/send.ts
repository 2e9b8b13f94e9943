import { ConnectionException, HttpClientException, TimeoutException } from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import { HttpResponse } from "../models/response.ts";
import { redactUrl } from "../models/_redact.ts";
import { followRedirects, HookError } from "./redirects.ts";
import type { RedirectAuth } from "./redirects.ts";
import { BodyTooLarge, toWireRequest } from "./transport.ts";
import type { Transport } from "./transport.ts";

/** What one exchange needs besides the request. */
export interface SendOptions {
  /** The transport. */
  readonly transport: Transport;
  /** The timeout in seconds when the request has none. */
  readonly timeout: number;
  /** How many redirects to follow. */
  readonly maxRedirects: number;
  /** The largest body read, in bytes (`Infinity`: no limit). */
  readonly maxResponseBytes: number;
  /** Aborted when the client closes. */
  readonly closed: AbortSignal;
  /** The caller's signal, if any. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Performs one exchange of a prepared request (absolute URL, headers
 * merged): sends it, follows redirects, reads the whole body, all within
 * the timeout. Failures become the library's exceptions: a timeout is a
 * {@linkcode TimeoutException}, a refused, reset or cut connection a
 * {@linkcode ConnectionException}, a close or an abort an
 * {@linkcode HttpClientException}.
 */
export async function sendRequest(
  request: HttpRequest,
  options: SendOptions,
  auth?: RedirectAuth,
): Promise<HttpResponse> {
  const start = performance.now();
  const seconds = request.timeout ?? options.timeout;
  const timer = new AbortController();
  // setTimeout fires at once past 2^31 - 1 ms (24.8 days): clamp to it.
  const id = setTimeout(() => timer.abort(), Math.min(seconds * 1000, 2 ** 31 - 1));
  const signals = [timer.signal, options.closed];
  if (options.signal !== undefined) signals.push(options.signal);
  const signal = AbortSignal.any(signals);
  try {
    const { response, url } = await followRedirects(
      request,
      options.maxRedirects,
      async (hop) => options.transport(await toWireRequest(hop), signal),
      auth,
    );
    const content = await response.bytes(options.maxResponseBytes);
    return new HttpResponse({
      statusCode: response.status,
      headers: response.headers,
      content,
      elapsedMs: performance.now() - start,
      url,
      request,
    });
  } catch (error) {
    throw toClientError(error, request, seconds, timer.signal, options);
  } finally {
    clearTimeout(id);
  }
}

function toClientError(
  error: unknown,
  request: HttpRequest,
  seconds: number,
  timeout: AbortSignal,
  options: SendOptions,
): unknown {
  if (error instanceof HookError) return error.error;
  if (error instanceof HttpClientException) return error;
  const target = `${request.method} ${redactUrl(request.url)}`;
  if (error instanceof BodyTooLarge) {
    return new HttpClientException(
      `Response body exceeds maxResponseBytes (${error.maxBytes}): ${target}`,
      { request, cause: error },
    );
  }
  if (timeout.aborted) {
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
  const target = `${request.method} ${redactUrl(request.url)}`;
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
