// The attempts of one call, the top of the send path: per attempt, the
// request hooks, the send (through the auth layer, which applies the
// client's auth hook when it has one), the response hooks; on an exception
// the error hooks; then the retry decision and its wait (deadline.ts's
// retryWait).

import type {
  ErrorHookInterface,
  RequestHookInterface,
  ResponseHookInterface,
  RetryInfo,
} from "../hooks/hook_interfaces.ts";
import type { RetryBudgetHook, RetryPolicy } from "../config/config.ts";
import { ConnectionException, HttpClientException, TimeoutException } from "../errors.ts";
import { bindRequestCredentials, HttpRequest } from "../models/request.ts";
import { type CredentialNames, isCredentialHeader } from "../masking/credentials.ts";
import { leavesOrigin } from "../http/url.ts";
import { bindResponseContext, HttpResponse, streamedBodyOf } from "../models/response.ts";
import { RequestContext } from "../models/context.ts";
import { describeType } from "../models/_validate.ts";
import { parseRetryAfter } from "../http/headers.ts";
import { isOneShot } from "../http/raw_body.ts";
import { callExpired, endedByTotalTimeout, retryWait } from "./deadline.ts";
import type { SendOptions } from "./chain.ts";
import { type AuthOptions, sendAuthenticated } from "./auth.ts";
import { channelsLookUp, isTraced, requestChannel, traced, TraceMessage } from "./channels.ts";

/** Everything one call needs besides its request. */
export interface LifecycleOptions extends SendOptions, AuthOptions {
  readonly requestHooks: readonly RequestHookInterface[];
  readonly responseHooks: readonly ResponseHookInterface[];
  readonly errorHooks: readonly ErrorHookInterface[];
  readonly retry: RetryPolicy;
  /**
   * The read timeout of streamed responses in seconds (`null`: none); kept
   * for them, unused by buffered calls.
   */
  readonly readTimeout: number | null;
  /** Told when a call starts and when it ends (the client waits for its calls on `await using`). */
  readonly calls?: CallCounter | undefined;
  /**
   * The URL whose origin the call's credentials belong to, when not the
   * call's own (pagination's pages after the first): sent to another origin
   * (or from https to http), the call goes without credential headers and
   * `auth`, unless the auth origins name its origin.
   */
  readonly credentialsOf?: string | undefined;
}

/** Counts the calls in flight. */
export interface CallCounter {
  started(): void;
  ended(): void;
}

/**
 * Runs one call through the lifecycle: per attempt, the request hooks, the
 * send (through the auth layer, with its hook's refreshes when the client
 * has one), the response hooks; on an exception the error hooks; then the retry
 * decision and its wait. One {@linkcode RequestContext} serves every
 * attempt. Each attempt starts the hooks from the prepared request. With a
 * total timeout, nothing is tried once it has passed, and a retry wait that
 * would end past it fails the call at once.
 */
export function executeCall(
  prepared: HttpRequest,
  callOptions: LifecycleOptions,
): Promise<HttpResponse> {
  const lookingUp = channelsLookUp();
  if (lookingUp !== undefined) return lookingUp.then(() => executeCall(prepared, callOptions));
  // Published on `fetchline:request` only while someone listens (channels.ts).
  const channel = requestChannel();
  const attempts = () => attemptCall(prepared, callOptions);
  return isTraced(channel) ? traced(channel, new TraceMessage(prepared), attempts) : attempts();
}

/** {@linkcode executeCall}'s attempts. */
async function attemptCall(
  prepared: HttpRequest,
  callOptions: LifecycleOptions,
): Promise<HttpResponse> {
  // A total timeout ends the call at `endsAt`: every step and wait of it ends by then.
  const total = callOptions.totalTimeout;
  const options = total === null
    ? callOptions
    : { ...callOptions, endsAt: performance.now() + total * 1000 };
  const { retry, calls } = options;
  calls?.started();
  // A streamed response returned unread: the call ends with its body.
  let handedOver = false;
  try {
    // The client's credential names go with the request and every copy of it: views mask them.
    if (options.credentialHeaders !== undefined) {
      bindRequestCredentials(prepared, options.credentialHeaders);
    }
    const context = new RequestContext(prepared, { maxRetries: retry.maxRetries });
    retry.budget?.sent(prepared);
    const before = (hook: RequestHookInterface, request: HttpRequest) =>
      hook.beforeRequest(request, context);
    const after = (hook: ResponseHookInterface, response: HttpResponse) =>
      hook.afterResponse(response, context);
    for (;;) {
      let received: HttpResponse | undefined;
      // What the attempt ended with: told to the retry decision, then to the hooks.
      let outcome: { response: HttpResponse } | { error: unknown };
      try {
        context.request = prepared;
        // Hooks that return values (not promises) cost no await: each is a
        // turn of the microtask queue.
        const requested = runHooks("Request", HttpRequest, options.requestHooks, prepared, before);
        const hooked = withoutForeignCredentials(
          requested instanceof Promise ? await requested : requested,
          options,
        );
        context.request = hooked;
        received = await sendAuthenticated(hooked, context, options);
        const responded = runHooks(
          "Response",
          HttpResponse,
          options.responseHooks,
          received,
          after,
        );
        const response = responded instanceof Promise ? await responded : responded;
        // A hook that returned another response leaves no streamed body open.
        if (response !== received) await giveBack(options, received);
        outcome = { response };
      } catch (error) {
        await giveBack(options, received);
        await runErrorHooks(options.errorHooks, error, context);
        outcome = { error };
      }
      let delay: number | undefined;
      if ("response" in outcome && announcesReset(outcome.response)) {
        rateLimitHeaders ??= await import("../http/rate_limit_headers.ts");
      }
      try {
        delay = retryDelay(retry, outcome, context, options);
      } catch (error) {
        // The caller's shouldRetry threw: it fails the call, no streamed body left open.
        if ("response" in outcome) await giveBack(options, outcome.response);
        await runErrorHooks(options.errorHooks, error, context);
        throw error;
      }
      if (delay !== undefined && retry.budget !== undefined) {
        delay = await withinBudget(retry.budget, context, delay);
      }
      if (delay === undefined) {
        if ("error" in outcome) {
          bindErrorCredentials(outcome.error, options.credentialHeaders);
          throw outcome.error;
        }
        const { response } = outcome;
        bindResponseContext(response, context, options.credentialHeaders);
        if (calls !== undefined && options.stream) {
          handedOver = streamedBodyOf(response)?.whenSettled?.(() => calls.ended()) ?? false;
        }
        return response;
      }
      // Retried on the head: a streamed body is given back unread.
      if ("response" in outcome) await giveBack(options, received, outcome.response);
      try {
        const info: RetryInfo = { delayMs: delay, ...outcome };
        const hooks = "response" in outcome ? options.responseHooks : options.errorHooks;
        await retryWait(delay, context.request, options, () => runRetryHooks(hooks, context, info));
      } catch (error) {
        await runErrorHooks(options.errorHooks, error, context);
        throw error;
      }
      context.incrementAttempt();
    }
  } finally {
    if (!handedOver) calls?.ended();
  }
}

/**
 * Gives back the streamed bodies of `responses` unread, in a streamed
 * call: those it does not return (a no-op for a body already read).
 */
async function giveBack(
  options: LifecycleOptions,
  ...responses: (HttpResponse | undefined)[]
): Promise<void> {
  if (options.stream) await Promise.all(responses.map((response) => response?.cancel()));
}

/**
 * `delay` when the retry budget lets the retry go out, else `undefined`
 * with `context.metadata.retryBudgetExhausted` set. The budget bounds its
 * own wait for a shared store (its `storeTimeout`); what it throws lets
 * the retry go out, as a store that fails does.
 */
async function withinBudget(
  budget: RetryBudgetHook,
  context: RequestContext,
  delay: number,
): Promise<number | undefined> {
  let taken: unknown;
  try {
    const answer = budget.withdraw(context.request);
    taken = answer instanceof Promise ? await answer : answer;
  } catch {
    taken = true;
  }
  if (taken !== false) return delay;
  context.metadata.retryBudgetExhausted = true;
  return undefined;
}

/**
 * `request` without its credential headers and `auth` when the call's
 * credentials belong to another origin (`credentialsOf`) than the one it
 * goes to, and the auth origins do not name that one: whoever set them (the
 * call, the client's defaults, a request hook such as `AuthorizationHook`).
 */
function withoutForeignCredentials(request: HttpRequest, options: LifecycleOptions): HttpRequest {
  const { credentialsOf } = options;
  if (credentialsOf === undefined) return request;
  const to = new URL(request.url);
  if (!leavesOrigin(new URL(credentialsOf), to) || options.authOrigins?.has(to.origin)) {
    return request;
  }
  const names = options.credentialHeaders;
  const headers = request.headers &&
    Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !isCredentialHeader(name, names)),
    );
  return request.with({ headers, auth: undefined });
}

/**
 * Binds the client's credential names to the request an exception of the
 * call carries (and its response's), so that its views mask them.
 */
function bindErrorCredentials(error: unknown, names: CredentialNames | undefined): void {
  if (names === undefined || typeof error !== "object" || error === null) return;
  const { request, response } = error as { request?: unknown; response?: unknown };
  if (request instanceof HttpRequest) bindRequestCredentials(request, names);
  if (response instanceof HttpResponse) bindRequestCredentials(response.request, names);
}

// The hook layers of one attempt: plain functions over the hook lists, which
// the builder has already normalised into arrays.

/**
 * Passes `value` through each hook from `start` on (the request hooks, each
 * on the previous one's request; the response hooks, likewise); a hook must
 * return an instance of `type` or a promise of one. While the hooks return
 * values (not promises) the result is not a promise either: no turn of the
 * microtask queue per call.
 */
function runHooks<T, H extends object>(
  kind: string,
  type: abstract new (...args: never[]) => T,
  hooks: readonly H[],
  value: T,
  call: (hook: H, value: T) => T | Promise<T>,
  start = 0,
): T | Promise<T> {
  for (let i = start; i < hooks.length; i++) {
    const hook = hooks[i]!;
    const result: unknown = call(hook, value);
    if (result instanceof type) {
      value = result;
      continue;
    }
    if (typeof (result as PromiseLike<T> | undefined)?.then !== "function") {
      throw wrongType(kind, type, hook, i, result);
    }
    return Promise.resolve(result as PromiseLike<T>).then((next) => {
      if (!(next instanceof type)) throw wrongType(kind, type, hook, i, next);
      return runHooks(kind, type, hooks, next, call, i + 1);
    });
  }
  return value;
}

function wrongType(
  kind: string,
  type: abstract new (...args: never[]) => unknown,
  hook: object,
  index: number,
  result: unknown,
): TypeError {
  const name = hook.constructor === Object ? "" : ` ${hook.constructor.name}`;
  return new TypeError(
    `${kind} hook #${index + 1}${name} returned ${describeType(result)}, expected an ${type.name}`,
  );
}

/**
 * Runs the error hooks in order. An error hook that throws does not replace
 * the call's exception: the rest still run and the original reaches the
 * caller.
 */
async function runErrorHooks(
  hooks: readonly ErrorHookInterface[],
  error: unknown,
  context: RequestContext,
): Promise<void> {
  for (const hook of hooks) {
    try {
      await hook.onError(error, context);
    } catch {
      // Deliberately ignored: see above.
    }
  }
}

/**
 * Tells the hooks that have an `onRetry` that a retry is coming, in order.
 * As with error hooks, one that throws does not stop the retry.
 */
async function runRetryHooks(
  hooks: readonly (ResponseHookInterface | ErrorHookInterface)[],
  context: RequestContext,
  info: RetryInfo,
): Promise<void> {
  for (const hook of hooks) {
    if (typeof hook.onRetry !== "function") continue;
    try {
      await hook.onRetry(context, info);
    } catch {
      // Deliberately ignored: see above.
    }
  }
}

// The retry decisions of a call: whether to retry after a response or an
// error, and how long to wait. The policy itself is configuration
// (config/config.ts).

/**
 * How long to wait before the next attempt, in milliseconds, or `undefined`
 * for none. None once the retries are spent, nor for a request whose body
 * was a stream (sent once), nor after an exception that is not the
 * library's own (a hook's, a runtime permission error) or that ended the
 * call (its total timeout, the caller's signal, the client's close). Else
 * the policy decides (a method and status it retries, within
 * `maxRetryAfter`; a connection failure or timeout), unless the caller's
 * `shouldRetry` says `true` or `false`.
 */
function retryDelay(
  policy: RetryPolicy,
  outcome: { response: HttpResponse } | { error: unknown },
  context: RequestContext,
  options: LifecycleOptions,
): number | undefined {
  const { attempt } = context;
  if (attempt >= policy.maxRetries) return undefined;
  const decide = policy.shouldRetry;
  let request: HttpRequest;
  let retried: boolean;
  let delay: () => number;
  if ("response" in outcome) {
    const { response } = outcome;
    request = response.request;
    retried = policy.methods.has(request.method) && policy.statusCodes.has(response.statusCode);
    // Most responses are not retried: nothing more is read of them.
    if (!retried && decide === undefined) return undefined;
    const announced = announcedWait(response);
    if (announced !== undefined && announced > policy.maxRetryAfter * 1000) retried = false;
    delay = () => announced ?? backoffDelay(policy, attempt);
  } else {
    const { error } = outcome;
    request = context.request;
    if (
      !(error instanceof HttpClientException) || endedByTotalTimeout(error) ||
      callExpired(options) || options.signal?.aborted || options.closed.aborted
    ) {
      return undefined;
    }
    retried = (error instanceof ConnectionException || error instanceof TimeoutException) &&
      policy.methods.has(request.method);
    delay = () => backoffDelay(policy, attempt);
  }
  if (isOneShot(request.body)) return undefined;
  if (decide === undefined) return retried ? delay() : undefined;
  const delayMs = delay();
  const answer: unknown = decide({ attempt, method: request.method, request, ...outcome, delayMs });
  if (answer !== undefined && typeof answer !== "boolean") {
    throw new TypeError(
      `Invalid shouldRetry result: expected true, false or undefined, got ${describeType(answer)}`,
    );
  }
  return (answer ?? retried) ? delayMs : undefined;
}

/**
 * The wait `response` asks for, in ms: its `Retry-After`; else, for a 429
 * or 503, the reset its rate-limit headers announce (`RateLimit`,
 * `RateLimit-Reset`, `X-RateLimit-Reset`: http/rate_limit_headers.ts);
 * else `undefined`.
 */
function announcedWait(response: HttpResponse): number | undefined {
  const retryAfter = parseRetryAfter(response.header("retry-after"));
  if (retryAfter !== undefined) return retryAfter;
  return announcesReset(response) ? rateLimitHeaders!.rateLimitWait(response, true) : undefined;
}

/** A 429 or 503: its rate-limit headers may announce a reset. */
function announcesReset(response: HttpResponse): boolean {
  return response.statusCode === 429 || response.statusCode === 503;
}

/**
 * http/rate_limit_headers.ts, loaded by a call's first 429 or 503 (before
 * its retry decision): the other calls never need it.
 */
let rateLimitHeaders: typeof import("../http/rate_limit_headers.ts") | undefined;

/** Exponential backoff with full jitter: uniform in [0, min(cap, base · 2^attempt)). */
function backoffDelay(policy: RetryPolicy, attempt: number): number {
  return policy.random() * Math.min(policy.maxBackoff, policy.backoff * 2 ** attempt) * 1000;
}
