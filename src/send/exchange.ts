// One exchange: a request through the middleware chain and the transport,
// and its response's body, within a step its caller started. The one place
// where what the transport and the body read throw becomes the library's
// exceptions (the second half of this file); the layers above (redirects,
// auth, the attempts) let errors pass as they are.

import {
  BlockedDestinationException,
  ConnectionException,
  DecodingException,
  describeCall,
  HttpClientException,
  RuntimeLimitError,
} from "../errors.ts";
import { countExchange, type RequestContext } from "../models/context.ts";
import { describeType } from "../models/_validate.ts";
import { cancelTimeout, stepEndedError, withinStep } from "./deadline.ts";
import { checkedLength, discardBody, readBody, readWhole } from "../transport/body.ts";
import {
  blockedIn,
  connectionCause,
  Failure,
  isBrowserDecoderFailure,
} from "../transport/failures.ts";
import { toWireRequest } from "../transport/request.ts";
import { isOneShot } from "../http/raw_body.ts";
import { headerValuesOf } from "../http/headers.ts";
import { hideCauseText } from "../masking/views.ts";
import { holdErrorBody, sendBody, streamedCall } from "./body.ts";
import { resumable } from "./resume.ts";
import { exchangeChannel, isTraced, traced, TraceMessage } from "./channels.ts";
import { ExchangeClock } from "../models/timings.ts";
import type { ExchangeReason } from "../hooks/hook_interfaces.ts";
import type { ChainEnd, Sending, SendOptions } from "./chain.ts";
import type { HttpRequest } from "../models/request.ts";
import { type HttpResponse, receivedResponse } from "../models/response.ts";
import { storeCookies } from "../cookies/jar.ts";

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** A redirect the client follows; its body was discarded, never read. */
export class Redirect {
  /**
   * @param location The `Location` header as received.
   * @param url The URL the redirect came from.
   * @param toGet True when the next hop is a GET without a body ({@linkcode turnsIntoGet}).
   */
  constructor(readonly location: string, readonly url: string, readonly toGet: boolean) {}
}

/**
 * Sends `hop` through the middleware chain and the transport in `step`
 * ({@linkcode exchange}): a 301, 302, 303, 307 or 308 with a Location,
 * while the client follows redirects, comes back as a {@linkcode Redirect}
 * (its body discarded), unless the next hop would need the body again and
 * it was a stream, sent once: then it is the response. The response and
 * every failure name `request`, the call's request (the first hop, whatever
 * redirects followed); `elapsedMs` counts from `since`. A middleware's own
 * failure passes as it is, but for the step's end: its timeout, the
 * client's close and the caller's signal end a middleware's wait too. The
 * redirect layer above loops over the hops; nothing here calls back up.
 */
export async function sendSingleRequest(
  sending: Sending,
  hop: HttpRequest,
  reason: ExchangeReason,
): Promise<HttpResponse | Redirect> {
  const attempt = countExchange(sending.context);
  // Published on `fetchline:exchange` only while someone listens (channels.ts).
  const channel = exchangeChannel();
  const run = () => oneExchange(sending, hop, reason, attempt);
  const response =
    await (isTraced(channel)
      ? traced(channel, new TraceMessage(hop, attempt, reason), run)
      : run());
  const { statusCode } = response;
  // The status first: most answers never have their headers read.
  const location = follows(statusCode, hop, sending.options)
    ? response.headers.location
    : undefined;
  if (location === undefined) {
    // The attempt's timeout (and the total) end at the head of a streamed
    // call: the chain's, so a middleware's wait after `next` is bounded too.
    if (sending.options.stream) cancelTimeout(sending.step);
    return response;
  }
  if (response.isStreamed) await response.cancel();
  const toGet = turnsIntoGet(statusCode, hop.method);
  return new Redirect(location, response.url, toGet);
}

/** `hop` through the middleware chain, if any, and the transport: one exchange. */
function oneExchange(
  sending: Sending,
  hop: HttpRequest,
  reason: ExchangeReason,
  attempt: number,
): Promise<HttpResponse> {
  const { middleware } = sending.options;
  if (middleware.length === 0) return exchange(sending, hop, new ExchangeClock(performance.now()));
  // The chain's code loads with the first exchange through a middleware (a cookie jar's too),
  // within the step, as every wait of the call.
  if (chain === undefined) {
    const { step, request, options } = sending;
    return withinStep(import("./chain.ts"), step, request, options).then((loaded) => {
      chain = loaded;
      return oneExchange(sending, hop, reason, attempt);
    });
  }
  const run = new chain.ExchangeRun(middleware, sending, END, attempt, reason);
  const sent = run.settle(chain.runChain(run, hop));
  return withinStep(sent, sending.step, sending.request, sending.options);
}

/**
 * One exchange, the chain's innermost link: `hop` through the transport,
 * its body read whole under `maxResponseBytes`, or, for a streamed call, a
 * response at its head with the body unread. A redirect the client follows
 * is not read: its body is discarded. What the transport and the body read
 * throw becomes the library's exception here ({@linkcode toClientError}),
 * the one place that maps them.
 */
async function exchange(
  sending: Sending,
  hop: HttpRequest,
  clock: ExchangeClock,
): Promise<HttpResponse> {
  const { options, context, step, request, since } = sending;
  let streamed: HttpResponse;
  try {
    const pending = toWireRequest(hop);
    const wire = pending instanceof Promise ? await pending : pending;
    clock.sentAt = performance.now();
    const { retry } = options;
    const response = wire.body === undefined
      ? resumable(
        await options.transport(wire, step),
        wire,
        step,
        options.transport,
        retry === undefined || retry.resume === false || retry.maxRetries === 0
          ? undefined
          : () => takeRetry(context, retry.maxRetries),
      )
      : await sendBody(wire, step, options.transport, options.onUploadProgress);
    clock.head(performance.now(), response.timings);
    const jar = options.cookies;
    if (jar !== undefined) {
      const lines = headerValuesOf(response.headers, "set-cookie");
      // A jar is the caller's code: the step's timeout, signal and close bound the wait for it.
      const stored = withinStep(storeCookies(jar, lines, wire.url), step, request, options);
      await stored.catch(async (error) => {
        await discardBody(response);
        throw error;
      });
    }
    const init = {
      statusCode: response.status,
      headers: response.headers,
      url: wire.url,
      request,
      timings: clock,
    };
    if (follows(response.status, hop, options) && response.location !== null) {
      await discardBody(response);
      return receivedResponse({ ...init, content: EMPTY, elapsedMs: performance.now() - since });
    }
    if (!options.stream && options.onDownloadProgress === undefined) {
      // A body of known length within the limit is read natively, with no
      // async frame of readBody's between this one and the runtime's read.
      const native = readWhole(response, options.maxResponseBytes);
      const content = native !== undefined
        ? checkedLength(await native, options.maxResponseBytes)
        : await readBody(response, options.maxResponseBytes);
      const now = performance.now();
      clock.end(now);
      return receivedResponse({ ...init, content, elapsedMs: now - since });
    }
    streamed = streamedCall({
      wire: response,
      abort: step,
      init: { ...init, elapsedMs: performance.now() - since },
      toClientError: (error) => toClientError(error, sending),
      since,
      clock,
    }, options.stream ? options : { ...options, readTimeout: null });
    if (options.stream) {
      // A small error body comes with its head: read, raiseForStatus() quotes its reason.
      const held = holdErrorBody(streamed);
      if (held !== undefined) await held;
    }
  } catch (error) {
    throw toClientError(error, sending);
  }
  // A body read whole with download progress is read as a streamed one is,
  // through its one stream: its failures are mapped there, and a progress
  // callback's own error passes as it is.
  return options.stream ? streamed : await streamed.read();
}

const EMPTY = new Uint8Array(0);

/**
 * Whether the call of `context` has a retry left for a resumed body, and
 * if so takes it: a resume is one more exchange of the call, so it counts
 * as one of `maxRetries` (the attempt the retry decision reads).
 */
function takeRetry(context: RequestContext, maxRetries: number): boolean {
  if (context.attempt >= maxRetries) return false;
  context.incrementAttempt();
  return true;
}

/**
 * send/chain.ts, loaded by a process's first exchange through a middleware
 * ({@linkcode oneExchange}): a client without one (nor a cookie jar) never
 * needs it.
 */
let chain: typeof import("./chain.ts") | undefined;

/** The chain's end: the transport's exchange, and the one mapping of its failures. */
const END: ChainEnd = { exchange, clientError: toClientError };

/**
 * True when the client follows an answer with `status` to `hop`'s next hop,
 * given a Location: a redirect status, redirects on, and a body the next hop
 * can send again (not a stream, sent once, unless the hop turns into a GET).
 * The transport's answer and a middleware's are judged alike; the status
 * comes first, so that most answers never have their headers read.
 */
function follows(status: number, hop: HttpRequest, options: SendOptions): boolean {
  return options.maxRedirects > 0 && REDIRECT_STATUSES.has(status) &&
    (!isOneShot(hop.body) || turnsIntoGet(status, hop.method));
}

/**
 * True when a redirect with `status` turns `method` into a GET without a
 * body, as httpx and requests do: 303 any method but HEAD, 302 any method
 * but HEAD and QUERY, 301 a POST. 307 and 308, and 301 and 302 for the
 * others, keep the method and body. QUERY (RFC 10008) is not a POST: RFC
 * 9110 lets a 301 or 302 rewrite only a POST, and resending a safe QUERY
 * with its body is what its sender asked for; its 303 means "GET the
 * results there".
 */
function turnsIntoGet(status: number, method: string): boolean {
  return (status === 301 && method === "POST") ||
    (status === 302 && method !== "HEAD" && method !== "QUERY") ||
    (status === 303 && method !== "HEAD");
}

// What ends an exchange, as the library's exceptions: the transport's and
// the body read's failures, a step's timeout, the client's close, the
// caller's signal.

/**
 * The library's exception for `error`, thrown by the transport or the body
 * read in `step` of `request`: a
 * {@linkcode TimeoutException} once the step's timeout expired, a
 * {@linkcode ConnectionException} for a refused, reset or cut connection
 * (its message naming the cause: {@linkcode connectionCause}),
 * an {@linkcode HttpClientException} for a close or an abort.
 */
export function toClientError(error: unknown, sending: Sending): unknown {
  const { request, step, options } = sending;
  if (error instanceof HttpClientException) return error;
  // A runtime permission error (Deno's NotCapable, PermissionDenied) is the
  // caller's environment, not the network: it reaches the caller as it is,
  // and the retry decision never sees a ConnectionException to retry.
  if (isPermissionError(error)) return error;
  // So is a call this runtime can never make (a file path without a file
  // system, a default cookie jar whose library it could not load).
  if (error instanceof RuntimeLimitError) return error;
  const target = describeCall(request);
  // A browser's decoder failure names no coding (a page may not see it).
  if (isBrowserDecoderFailure(error)) {
    return new DecodingException(`Response body could not be decoded: ${target}`, {
      request,
      cause: error,
    });
  }
  // The policy's refusal, thrown as it is or wrapped by the runtime (Node's lookup's error).
  const blocked = blockedIn(error);
  if (blocked !== undefined) {
    const { host, address, rule } = blocked;
    return new BlockedDestinationException(`${blocked.message}: ${target}`, {
      host,
      address,
      rule,
    }, { request });
  }
  if (error instanceof Failure) {
    const { cause, detail } = error;
    switch (error.kind) {
      // A progress callback's own error fails the call as it is.
      case "progress":
        return cause;
      // A body source tied to the call's own signal or timeout fails with it:
      // the call's end is named, not the source's echo of it.
      case "source":
        return stepEndedError(request, step, options, cause) ?? requestBodyError(cause, request);
      case "too-large":
        return new HttpClientException(
          `Response body exceeds maxResponseBytes (${detail}): ${target} ` +
            "(read it with stream(), or raise withMaxResponseBytes)",
          { request, cause: error },
        );
      // Neither is transient, so neither is retried: the same bytes would come again.
      case "decode":
        return new DecodingException(
          `Response body could not be decoded (${detail}): ${target}`,
          { request, cause },
        );
      case "malformed":
        return new HttpClientException(`Malformed response (${detail}): ${target}`, {
          request,
          cause,
        });
    }
  }
  const ended = stepEndedError(request, step, options, error);
  if (ended !== undefined) return ended;
  if (error instanceof Failure) {
    // A route the runtime cannot take is not retried: it would be the same.
    const Exception = error.kind === "proxy" ? ConnectionException : HttpClientException;
    return new Exception(`Connection failed: ${error.message}: ${target}`, {
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
