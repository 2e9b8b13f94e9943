import type {
  ErrorHookInterface,
  RequestHookInterface,
  ResponseHookInterface,
} from "../hooks/hook_interfaces.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { RequestContext } from "../models/context.ts";
import { runErrorHooks, runRequestHooks, runResponseHooks, runRetryHooks } from "./pipeline.ts";
import type { RetryInfo } from "../hooks/hook_interfaces.ts";
import { retryDelayForError, retryDelayForResponse } from "./retry.ts";
import type { RetryPolicy } from "../config/retry_policy.ts";
import { endedByTotalTimeout, retryPastDeadlineError, stepEndedError } from "./call_errors.ts";
import {
  callExpired,
  startStepTimeout,
  waitPassesDeadline,
  withCallDeadline,
} from "./deadline/call_deadline.ts";
import { sendWithRedirects } from "./redirects.ts";
import { Step, untilAborted } from "./deadline/abort.ts";
import { sendAuthenticated } from "./auth_flow.ts";
import type { AuthOptions } from "./auth_flow.ts";
import type { SendOptions } from "./exchange.ts";
import { whenBodySettled } from "./streamed_call.ts";

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
}

/** Counts the calls in flight. */
export interface CallCounter {
  started(): void;
  ended(): void;
}

/** Counts a client's calls in flight, and tells when none is left. */
export class CallsInFlight implements CallCounter {
  #count = 0;
  #waiters: (() => void)[] = [];

  started(): void {
    this.#count++;
  }

  ended(): void {
    if (--this.#count === 0 && this.#waiters.length > 0) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Resolves once no call is in flight. */
  idle(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/**
 * Runs one call through the lifecycle: per attempt, the request hooks, the
 * send (through the auth layer, with its refreshes, when the client has an
 * auth hook; else straight to the redirect layer, at no cost for auth),
 * the response hooks; on an exception the error hooks; then the retry
 * decision and its wait. One {@linkcode RequestContext} serves every
 * attempt. Each attempt starts the hooks from the prepared request. With a
 * total timeout, nothing is tried once it has passed, and a retry wait that
 * would end past it fails the call at once.
 */
export async function executeCall(
  prepared: HttpRequest,
  callOptions: LifecycleOptions,
): Promise<HttpResponse> {
  const options = withCallDeadline(callOptions);
  const { retry, calls } = options;
  calls?.started();
  // A streamed response returned unread: the call ends with its body.
  let handedOver = false;
  try {
    const context = new RequestContext(prepared, { maxRetries: retry.maxRetries });
    for (;;) {
      let delay: number | undefined;
      let received: HttpResponse | undefined;
      // What is retried: told to the response hooks or the error hooks.
      let retried: { response: HttpResponse } | { error: unknown };
      try {
        context.request = prepared;
        // Hooks that return values (not promises) cost no await: each is a
        // turn of the microtask queue.
        const requested = runRequestHooks(options.requestHooks, prepared, context);
        const hooked = requested instanceof Promise ? await requested : requested;
        context.request = hooked;
        const { authHook } = options;
        received = authHook === undefined
          ? await sendWithRedirects(hooked, options, context)
          : await sendAuthenticated(hooked, authHook, context, options);
        const responded = runResponseHooks(options.responseHooks, received, context);
        const response = responded instanceof Promise ? await responded : responded;
        // A hook that returned another response leaves no streamed body open (a no-op once read).
        if (options.stream && response !== received) await received.cancel();
        delay = context.attempt < retry.maxRetries
          ? retryDelayForResponse(retry, response, context.attempt)
          : undefined;
        if (delay === undefined) {
          if (calls !== undefined && options.stream) {
            handedOver = whenBodySettled(response, () => calls.ended());
          }
          return response;
        }
        // Retried on the head: a streamed body is given back unread.
        if (options.stream) await Promise.all([received.cancel(), response.cancel()]);
        retried = { response };
      } catch (error) {
        if (options.stream) await received?.cancel();
        await runErrorHooks(options.errorHooks, error, context);
        const over = endedByTotalTimeout(error) || callExpired(options);
        delay = context.attempt < retry.maxRetries && !over
          ? retryDelayForError(retry, error, context.request, context.attempt)
          : undefined;
        if (delay === undefined) throw error;
        retried = { error };
      }
      try {
        const info: RetryInfo = { delayMs: delay, ...retried };
        const hooks = "response" in retried ? options.responseHooks : options.errorHooks;
        await wait(delay, context.request, options, () => runRetryHooks(hooks, context, info));
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
 * Waits `ms` before a retry, once `announce` has told the hooks; a wait past
 * the deadline fails at once, untold. The hooks are told within the call: an
 * `onRetry` that never settles is left behind at the call's total timeout,
 * its signal or the client's close, as the wait itself is.
 */
async function wait(
  ms: number,
  request: HttpRequest,
  options: LifecycleOptions,
  announce: () => Promise<void>,
): Promise<void> {
  if (waitPassesDeadline(options, ms)) throw retryPastDeadlineError(request, ms, options);
  const step = new Step(options);
  try {
    startStepTimeout(step, null, options);
    await untilAborted(announce(), step, () => stepEndedError(request, step, options));
    // The hooks took some of the time the wait had.
    if (waitPassesDeadline(options, ms)) throw retryPastDeadlineError(request, ms, options);
    await options.retry.sleep(ms, step.signal());
  } catch (error) {
    throw stepEndedError(request, step, options, error) ?? error;
  } finally {
    step.release();
  }
}
