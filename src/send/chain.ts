// The middleware chain of one exchange (API.md "Middleware"): the links a
// client runs, outermost first, around the transport's exchange, the public
// `Exchange` each link is given (the library's own links and a user's get
// the same one). The client puts the cookie jar's link (cookies/jar.ts)
// first. Loaded with a process's first exchange through a middleware.

import type {
  BodyObserver,
  Exchange,
  ExchangeOutcome,
  ExchangeReason,
  Logger,
  MiddlewareFunction,
  Next,
} from "../hooks/hook_interfaces.ts";
import type { RequestContext } from "../models/context.ts";
import { HttpRequest } from "../models/request.ts";
import { ExchangeClock } from "../models/timings.ts";
import {
  headOf,
  HttpResponse,
  receivedResponse,
  type StreamedBody,
  streamedBodyOf,
  streamedResponse,
} from "../models/response.ts";
import { describeType } from "../models/_validate.ts";
import { type CredentialNames, isCredentialHeader } from "../masking/credentials.ts";
import type { CookieJarLike } from "../cookies/jar.ts";
import {
  type AbortSources,
  attemptTimeout,
  type CallTimeouts,
  startStepTimeout,
  Step,
  stepEnded,
  withinStep,
} from "./deadline.ts";
import type { ProgressCallback } from "../transport/body.ts";
import type { Abort, Transport } from "../transport/types.ts";

/** What an exchange, and the redirects and auth above it, need besides the request. */
export interface SendOptions extends AbortSources, CallTimeouts {
  /** The transport. */
  readonly transport: Transport;
  /** How many redirects to follow (0: a redirect is read and returned like any response). */
  readonly maxRedirects: number;
  /** The largest body read, in bytes (`Infinity`: no limit). */
  readonly maxResponseBytes: number;
  /** Lower-case names of further credential headers, which a redirect drops when it leaves the origin. */
  readonly credentialHeaders?: CredentialNames | undefined;
  /** True for a streamed call: the response comes at its head, its body unread. */
  readonly stream?: boolean | undefined;
  /** A streamed body's longest wait for the next chunk, in seconds (`null`: none). */
  readonly readTimeout?: number | null | undefined;
  /** Told how far each request body has been handed to the transport. */
  readonly onUploadProgress?: ProgressCallback | undefined;
  /** Told how far each response body has been read. */
  readonly onDownloadProgress?: ProgressCallback | undefined;
  /**
   * The middleware every exchange passes through, outermost first (the
   * cookie jar's, when the client keeps cookies, then `withMiddleware`'s).
   */
  readonly middleware: readonly MiddlewareFunction[];
  /** The client certificate (PEM) of the client's TLS settings, told to the middleware. */
  readonly clientCertificate?: string | undefined;
  /** The client's logger (its logging hooks'), told to the middleware. */
  readonly logger?: Logger | undefined;
  /**
   * The cookie jar every response head the transport receives, a
   * redirect's too, hands its Set-Cookie lines to, before its body is read
   * and within the step's timeout (the chain's first link adds its cookies
   * to each request).
   */
  readonly cookies?: CookieJarLike | undefined;
  /**
   * The client's network policy's check of a URL a link answers without
   * the network (`Pool.checkDestination`), told to the middleware; absent
   * without a policy.
   */
  readonly checkDestination?:
    | ((url: string, abort: Abort) => Promise<void> | undefined)
    | undefined;
  /** Where the links hand the work they leave running, for the client's close to wait for. */
  readonly backgroundWork?: BackgroundWork | undefined;
  /** The retries: a body that breaks off resumes at most `maxRetries` times, unless `resume` is false. */
  readonly retry?: { readonly maxRetries: number; readonly resume?: boolean } | undefined;
}

/**
 * Where the links hand the work they leave running past their exchanges
 * (`Exchange.waitUntil`: a cache's store writes and revalidations): the
 * client's close waits for it, each at most `maxWaitMs`.
 */
export interface BackgroundWork {
  /** Keeps `work` until it settles; a close waits for it at most `maxWaitMs`. */
  keep(work: Promise<unknown>, maxWaitMs: number): void;
}

/**
 * The chain's end, which the exchange layer gives it (the chain calls up
 * into nothing): the transport's exchange of a request in a step, and the
 * mapping of what it throws to the library's exceptions.
 */
export interface ChainEnd {
  /** Sends `sent` through the transport in the step of `sending`; failures name its request. */
  exchange(sending: Sending, sent: HttpRequest, clock: ExchangeClock): Promise<HttpResponse>;
  /** The library's exception for what a transport (or a destination check) threw in `sending`. */
  clientError(error: unknown, sending: Sending): unknown;
}

/**
 * One sending of a call's request, as the redirect layer makes it for the
 * auth layer's step: what each of its exchanges (a hop, a link's own send)
 * needs besides the request it sends.
 */
export interface Sending {
  /** The call's options. */
  readonly options: SendOptions;
  /** The call's context. */
  readonly context: RequestContext;
  /** The step its exchanges run in: their timeout, the caller's signal, the client's close. */
  readonly step: Step;
  /** The request its failures name: the first hop, whatever redirects followed. */
  readonly request: HttpRequest;
  /** When it started, on the `performance.now()` clock: a response's `elapsedMs` counts from it. */
  readonly since: number;
}

/** What one exchange's links share: its state, and what each link's {@linkcode Exchange} reads. */
export class ExchangeRun implements Sending {
  /** Where this exchange's time goes: its start, the traffic controls' waits, the transport's phases. */
  readonly clock: ExchangeClock = new ExchangeClock(performance.now());
  #ended = false;
  #listeners: ((outcome: ExchangeOutcome) => void)[] | undefined = undefined;
  #controller: AbortController | undefined = undefined;
  #onStepAbort: (() => void) | undefined = undefined;

  readonly options: SendOptions;
  readonly context: RequestContext;
  readonly step: Step;
  /** The request its failures name (the call's, or a background send's). */
  readonly request: HttpRequest;
  readonly since: number;

  constructor(
    readonly links: readonly MiddlewareFunction[],
    sending: Sending,
    readonly end: ChainEnd,
    readonly attempt: number,
    readonly reason: ExchangeReason,
    /** The index of the first link this run sends through ({@linkcode ExchangeRun.settle} checks its result). */
    readonly first = 0,
  ) {
    ({
      options: this.options,
      context: this.context,
      step: this.step,
      request: this.request,
      since: this.since,
    } = sending);
  }

  /** The signal the links read, made when first asked for: most exchanges never need one. */
  get signal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = this.#controller = new AbortController();
    if (this.#ended) return controller.signal;
    this.#watchStep();
    return controller.signal;
  }

  /** Listens for the step's end (its timeout, the caller's signal, close()), once. */
  #watchStep(): void {
    if (this.#onStepAbort !== undefined) return;
    const onStepAbort = this.#onStepAbort = () => {
      const failure = stepEnded(this.request, this.step, this.options);
      this.#controller?.abort(failure);
      this.ended({ error: failure });
    };
    this.step.onAbort(onStepAbort);
  }

  onEnd(listener: (outcome: ExchangeOutcome) => void): void {
    if (typeof listener !== "function") {
      throw new TypeError(`Invalid callback: expected a function, got ${describeType(listener)}`);
    }
    if (this.#ended) throw new Error("The exchange is over: onEnd() comes too late");
    (this.#listeners ??= []).push(listener);
    this.#watchStep();
  }

  /**
   * The exchange is over with `outcome`: each listener is told once (a
   * listener's own error goes to the client's logger, never to the caller:
   * the exchange is over for it too).
   */
  ended(outcome: ExchangeOutcome): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#onStepAbort !== undefined) this.step.offAbort(this.#onStepAbort);
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    this.#listeners = undefined;
    for (const listener of listeners) {
      try {
        listener(outcome);
      } catch (error) {
        this.options.logger?.warn(`An exchange's onEnd callback failed: ${describeType(error)}`);
      }
    }
  }

  /**
   * Tells the end of the exchange that the chain settled to: a response's
   * once its streamed body is done (at once for a buffered one), or the
   * failure.
   */
  settle(result: Promise<unknown>): Promise<HttpResponse> {
    return result.then((response) => {
      // The first link's result, checked here rather than in a `then` of its own (runChain).
      if (!(response instanceof HttpResponse)) {
        const error = invalidResult(response);
        this.ended({ error });
        throw error;
      }
      // Nobody listens (most exchanges): nothing to tell, nothing to detach.
      if (this.#listeners === undefined && this.#onStepAbort === undefined) this.#ended = true;
      else if (!streamedBodyOf(response)?.whenSettled?.(() => this.ended({ response }))) {
        this.ended({ response });
      }
      return response;
    }, (error) => {
      this.ended({ error });
      throw error;
    });
  }

  /** Sends `request` through the links from `from` and the transport, read whole, in a step of its own. */
  async background(from: number, request: HttpRequest): Promise<HttpResponse> {
    const own: SendOptions = {
      ...this.options,
      signal: undefined,
      stream: false,
      totalTimeout: null,
      endsAt: undefined,
      onUploadProgress: undefined,
      onDownloadProgress: undefined,
    };
    const step = new Step(own);
    const since = performance.now();
    // It serves others than the call of `request` (dedupe's callers, the
    // cache's later readers): that call's own timeout, when shorter than the
    // client's, ends that call's wait, not this exchange.
    const seconds = attemptTimeout(request, own);
    const client = own.timeout;
    const longer = seconds === null || client === null ? null : Math.max(seconds, client);
    startStepTimeout(step, longer, own, since);
    const sending = { options: own, context: this.context, step, request, since };
    const run = new ExchangeRun(this.links, sending, this.end, this.attempt, this.reason, from);
    try {
      const sent = run.settle(runChain(run, request, from));
      return await withinStep(sent, step, request, own);
    } finally {
      step.release();
    }
  }

  /**
   * Sends `request` through the links from `from` in a step of its own
   * that `signal` also ends (one of several sends of a link: a hedge), as
   * the exchange's end ends it.
   */
  async #withSignal(from: number, request: HttpRequest, signal: AbortSignal) {
    const { step: parent, options } = this;
    const callSignal = options.signal;
    const own = { ...options, signal: callSignal ? AbortSignal.any([callSignal, signal]) : signal };
    const step = new Step(own);
    step.seconds = parent.seconds;
    step.total = parent.total;
    const follow = () => parent.timedOut ? step.expire() : step.abort();
    parent.onAbort(follow);
    if (parent.aborted) follow();
    const { context, since } = this;
    const sending = { options: own, context, step, request: this.request, since };
    const run = new ExchangeRun(this.links, sending, this.end, this.attempt, this.reason, from);
    const done = () => (parent.offAbort(follow), step.release());
    try {
      // Settled through the run, so that its links' onEnd() hear its end (a hedge's place given back).
      const sent = run.settle(runChain(run, request, from));
      const response = await withinStep(sent, step, this.request, own);
      if (!streamedBodyOf(response)?.whenSettled?.(done)) done();
      return response;
    } catch (error) {
      done();
      throw error;
    }
  }

  /** `next` for the link at `index`. */
  next(index: number): Next {
    return (request, options) => {
      const signal = options?.signal;
      if (signal === undefined) return runChain(this, request, index + 1);
      if (!(signal instanceof AbortSignal)) {
        return Promise.reject(
          new TypeError(`Invalid signal: expected an AbortSignal, got ${describeType(signal)}`),
        );
      }
      return this.#withSignal(index + 1, request, signal);
    };
  }

  /** Checks `url` against the client's network policy, within the exchange. */
  checkDestination(url: string): Promise<void> | undefined {
    const { step, options, request, end } = this;
    const check = options.checkDestination;
    if (check === undefined) return undefined;
    const failed = (error: unknown) => {
      throw end.clientError(error, this);
    };
    let pending: Promise<void> | undefined;
    try {
      pending = check(url, step);
    } catch (error) {
      return Promise.reject(error).catch(failed);
    }
    if (pending === undefined) return undefined;
    return withinStep(pending, step, request, options).catch(failed);
  }
}

/**
 * Runs `request` through the links of `run` from `from`, each given the
 * next as `next` and its {@linkcode Exchange}, and the transport's exchange
 * last. A link's request and response are checked: a middleware that
 * passes or returns something else fails the call with a `TypeError`
 * naming it (the run's first link's response by {@linkcode ExchangeRun.settle},
 * which has a `then` anyway: one promise less for every exchange through a
 * middleware; the slot's own cost is under what the A/B resolves, bench/RESULTS.md
 * "telemetry"). On a streamed call, a response a link got from `next` and did
 * not return has its body cancelled ({@linkcode DroppedBodies}).
 */
export function runChain(run: ExchangeRun, request: unknown, from = 0): Promise<HttpResponse> {
  if (!(request instanceof HttpRequest)) {
    return Promise.reject(
      new TypeError(
        `Invalid request passed to next(): expected an HttpRequest, got ${describeType(request)}`,
      ),
    );
  }
  const { links } = run;
  if (from === links.length) {
    return run.end.exchange(run, request, run.clock);
  }
  const link = links[from]!;
  const exchange = new LinkExchange(run, from);
  if (run.options.stream !== true) {
    try {
      const result = Promise.resolve(link(request, run.next(from), exchange));
      // The run's first link is checked by its settle(), in the `then` that tells its end: a
      // promise less for every exchange through a middleware (a link's slot: see runChain's doc).
      return from === run.first ? result as Promise<HttpResponse> : result.then(checked);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  const dropped = new DroppedBodies();
  const next = run.next(from);
  let result: Promise<HttpResponse>;
  try {
    result = Promise.resolve(
      link(request, (sent, options) => dropped.watch(next(sent, options)), exchange),
    )
      .then(checked);
  } catch (error) {
    result = Promise.reject(error);
  }
  return dropped.cancelAfter(result);
}

function checked(response: unknown): HttpResponse {
  if (response instanceof HttpResponse) return response;
  throw invalidResult(response);
}

/** The failure of a link that returned `result`, not a response. */
function invalidResult(result: unknown): TypeError {
  return new TypeError(
    `Invalid middleware result: expected a promise of an HttpResponse, got ${describeType(result)}`,
  );
}

/**
 * The responses a link of a streamed call got from its `next`: once the link
 * has settled, each one it did not return (nor a response of its own that
 * carries the same body: the cache's, the recorder's) is cancelled, its
 * connection given back ("bodies of discarded responses are cancelled"),
 * whether the link threw after `next()` or returned another response of a
 * second `next()`. A `next()` still pending then is cancelled when it comes.
 */
class DroppedBodies {
  readonly #received: HttpResponse[] = [];
  #settled = false;
  #kept: HttpResponse | undefined = undefined;

  /** Watches `sent`, a `next()` of the link, and gives it to the link unchanged. */
  watch(sent: Promise<HttpResponse>): Promise<HttpResponse> {
    sent.then((response) => {
      if (!this.#settled) this.#received.push(response);
      else if (this.#dropped(response)) void response.cancel().catch(() => {});
    }, () => {});
    return sent;
  }

  /** What `result` settles to, once the responses it dropped are cancelled. */
  async cancelAfter(result: Promise<HttpResponse>): Promise<HttpResponse> {
    try {
      return this.#kept = await result;
    } finally {
      this.#settled = true;
      const dropped = this.#received.filter((response) => this.#dropped(response));
      if (dropped.length > 0) {
        await Promise.all(dropped.map((response) => response.cancel().catch(() => {})));
      }
    }
  }

  #dropped(response: HttpResponse): boolean {
    const kept = this.#kept;
    return kept === undefined || (response !== kept && !sameBody(response, kept));
  }
}

/** True when `a` and `b` hold one streamed body (the one observes the other's). */
function sameBody(a: HttpResponse, b: HttpResponse): boolean {
  const body = sourceOf(a);
  return body !== undefined && body === sourceOf(b);
}

function sourceOf(response: HttpResponse): StreamedBody | undefined {
  const body = streamedBodyOf(response);
  return body?.source ?? body;
}

/** The public {@linkcode Exchange} of the link at `index` of `run`. */
class LinkExchange implements Exchange {
  constructor(readonly run: ExchangeRun, readonly index: number) {}

  get context(): RequestContext {
    return this.run.context;
  }

  get attempt(): number {
    return this.run.attempt;
  }

  get reason(): ExchangeReason {
    return this.run.reason;
  }

  get streamed(): boolean {
    return this.run.options.stream === true;
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }

  remainingMs(): number {
    const { step, since, options } = this.run;
    const now = performance.now();
    if (step.total && options.endsAt !== undefined) return Math.max(0, options.endsAt - now);
    return step.seconds > 0 ? Math.max(0, since + step.seconds * 1000 - now) : Infinity;
  }

  get maxResponseBytes(): number {
    return this.run.options.maxResponseBytes;
  }

  isCredential(name: string): boolean {
    return isCredentialHeader(name, this.run.options.credentialHeaders);
  }

  get logger(): Logger | undefined {
    return this.run.options.logger;
  }

  get clientCertificate(): string | undefined {
    return this.run.options.clientCertificate;
  }

  onEnd(callback: (outcome: ExchangeOutcome) => void): void {
    this.run.onEnd(callback);
  }

  background(request: HttpRequest): Promise<HttpResponse> {
    return this.run.background(this.index + 1, request);
  }

  observe(response: HttpResponse, observer: BodyObserver): HttpResponse {
    return observed(response, observer);
  }

  waitUntil(work: Promise<unknown>, maxWaitMs: number): void {
    if (!(work instanceof Promise)) {
      throw new TypeError(`Invalid work: expected a Promise, got ${describeType(work)}`);
    }
    if (typeof maxWaitMs !== "number" || !(maxWaitMs >= 0) || maxWaitMs === Infinity) {
      throw new RangeError(
        `Invalid maxWaitMs: expected a finite number of milliseconds >= 0, got ${
          typeof maxWaitMs === "number" ? maxWaitMs : describeType(maxWaitMs)
        }`,
      );
    }
    this.run.options.backgroundWork?.keep(work, maxWaitMs);
  }

  checkDestination(url: string): Promise<void> | undefined {
    return this.run.checkDestination(url);
  }

  waiting(name: string | undefined): void {
    this.run.step.waitingOn = name;
    this.run.clock.waiting(name !== undefined);
  }
}

/**
 * `response` with its streamed body watched by `observer` as the caller
 * reads it (a stream taken passes each chunk on as it is pulled, nothing
 * read ahead; a body read whole is one chunk); a buffered response is told
 * at once and returned as it is. The watched response's body is the
 * original's passed on (its `source`): its end is the exchange's, as the
 * original's was.
 */
function observed(response: HttpResponse, observer: BodyObserver): HttpResponse {
  const body = streamedBodyOf(response);
  if (body === undefined) {
    observer.onChunk?.(response.content);
    observer.onEnd?.();
    return response;
  }
  const init = headOf(response);
  return streamedResponse(init, {
    take: () => {
      // Pulled only when the caller reads (no high-water mark): nothing is read ahead.
      const reader = body.take().getReader();
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          let read: ReadableStreamReadResult<Uint8Array>;
          try {
            read = await reader.read();
          } catch (error) {
            observer.onError?.(error);
            throw error;
          }
          if (read.done) {
            observer.onEnd?.();
            controller.close();
          } else {
            observer.onChunk?.(read.value);
            controller.enqueue(read.value);
          }
        },
        cancel(reason) {
          observer.onCancel?.();
          return reader.cancel(reason);
        },
      }, { highWaterMark: 0 });
    },
    read: async () => {
      let read: HttpResponse;
      try {
        read = await body.read();
      } catch (error) {
        observer.onError?.(error);
        throw error;
      }
      observer.onChunk?.(read.content);
      observer.onEnd?.();
      return receivedResponse({ ...init, content: read.content });
    },
    cancel: () => {
      observer.onCancel?.();
      return body.cancel();
    },
    maxResponseBytes: body.maxResponseBytes,
    held: () => body.held?.(),
    whenSettled: (listener) => body.whenSettled?.(listener) ?? false,
    source: body.source ?? body,
  });
}
