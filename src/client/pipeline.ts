// The hook layers of one attempt: plain functions over the hook lists, which
// the builder has already normalised into arrays.

import type {
  ErrorHookInterface,
  RequestHookInterface,
  ResponseHookInterface,
  RetryInfo,
} from "../hooks/hook_interfaces.ts";
import { HttpRequest } from "../models/request.ts";
import { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/context.ts";
import { describeType } from "../models/_validate.ts";

/**
 * Runs the request hooks in order, each on the previous one's request. While
 * the hooks return requests (not promises) the result is not a promise
 * either: no turn of the microtask queue per call.
 */
export function runRequestHooks(
  hooks: readonly RequestHookInterface[],
  request: HttpRequest,
  context: RequestContext,
): HttpRequest | Promise<HttpRequest> {
  return runChain(
    "Request",
    HttpRequest,
    hooks,
    request,
    (hook, value) => hook.beforeRequest(value, context),
  );
}

/** Runs the response hooks in order, each on the previous one's response; as {@linkcode runRequestHooks}. */
export function runResponseHooks(
  hooks: readonly ResponseHookInterface[],
  response: HttpResponse,
  context: RequestContext,
): HttpResponse | Promise<HttpResponse> {
  return runChain(
    "Response",
    HttpResponse,
    hooks,
    response,
    (hook, value) => hook.afterResponse(value, context),
  );
}

/**
 * Passes `value` through each hook from `start` on; a hook must return an
 * instance of `type` or a promise of one. Synchronous until a hook returns
 * a promise.
 */
function runChain<T, H extends object>(
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
      return runChain(kind, type, hooks, next, call, i + 1);
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
export async function runErrorHooks(
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
export async function runRetryHooks(
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
