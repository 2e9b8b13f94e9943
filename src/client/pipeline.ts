// The hook layers of one attempt: plain functions over the hook lists, which
// the builder has already normalised into arrays.

import type {
  ErrorHookInterface,
  RequestHookInterface,
  ResponseHookInterface,
} from "../hooks/hook_interfaces.ts";
import { HttpRequest } from "../models/request.ts";
import { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/request_context.ts";
import { describeType } from "../models/_validate.ts";

/** Runs the request hooks in order, each on the previous one's request. */
export function runRequestHooks(
  hooks: readonly RequestHookInterface[],
  request: HttpRequest,
  context: RequestContext,
): Promise<HttpRequest> {
  return runChain(
    "Request",
    HttpRequest,
    hooks,
    request,
    (hook, value) => hook.beforeRequest(value, context),
  );
}

/** Runs the response hooks in order, each on the previous one's response. */
export function runResponseHooks(
  hooks: readonly ResponseHookInterface[],
  response: HttpResponse,
  context: RequestContext,
): Promise<HttpResponse> {
  return runChain(
    "Response",
    HttpResponse,
    hooks,
    response,
    (hook, value) => hook.afterResponse(value, context),
  );
}

/** Passes `value` through each hook; a hook must return an instance of `type`. */
async function runChain<T, H extends object>(
  kind: string,
  type: abstract new (...args: never[]) => T,
  hooks: readonly H[],
  value: T,
  call: (hook: H, value: T) => T | Promise<T>,
): Promise<T> {
  for (let i = 0; i < hooks.length; i++) {
    const hook = hooks[i]!;
    const result = call(hook, value);
    const next = result instanceof type ? result : await result;
    if (!(next instanceof type)) {
      const name = hook.constructor === Object ? "" : ` ${hook.constructor.name}`;
      throw new TypeError(
        `${kind} hook #${i + 1}${name} returned ${describeType(next)}, expected an ${type.name}`,
      );
    }
    value = next;
  }
  return value;
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
