// The auth layer of one attempt (API.md lifecycle steps 2, 4 and 5): apply
// the auth hook where it is allowed, hand the redirect layer what it must
// strip and re-apply, and refresh and resend after an authentication error.

import type { AuthHookInterface } from "../auth/auth_interfaces.ts";
import { headerValue, HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { RequestContext } from "../models/request_context.ts";
import { describeType } from "../models/_validate.ts";
import { sendRequest } from "./send.ts";
import type { SendOptions } from "./send.ts";

/** The client's auth settings. */
export interface AuthOptions {
  /** The auth hook, if any. */
  readonly authHook?: AuthHookInterface | undefined;
  /** The origins the hook runs for; `undefined` means any. */
  readonly authOrigins?: ReadonlySet<string> | undefined;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Sends the hooked request with credentials where the auth `hook` applies
 * (a client without an auth hook calls {@linkcode sendRequest} itself).
 * While the hook calls a response an auth error and its retry strategy
 * allows: invalidate, refresh, resend (not counted as a retry). Sets
 * `context.request` to the request sent.
 */
export async function sendAuthenticated(
  hooked: HttpRequest,
  hook: AuthHookInterface,
  context: RequestContext,
  options: SendOptions & AuthOptions,
): Promise<HttpResponse> {
  const origins = options.authOrigins;
  const reapply = (hop: HttpRequest) => authenticate(hook, origins, hop, context);
  for (let authRetries = 0;; authRetries++) {
    const { request, added } = await authenticate(hook, origins, hooked, context);
    context.request = request;
    const response = await sendRequest(request, options, { headers: added, reapply });
    if (
      added.size === 0 || !hook.isAuthError(response) ||
      !hook.retryStrategy.shouldRetry(response, authRetries)
    ) {
      return response;
    }
    hook.invalidateAuth(response);
    if (!(await hook.refreshAuth(response))) return response;
  }
}

/** Applies the hook where it should authenticate and the origin is allowed; names the headers it added. */
async function authenticate(
  hook: AuthHookInterface,
  origins: ReadonlySet<string> | undefined,
  request: HttpRequest,
  context: RequestContext,
): Promise<{ request: HttpRequest; added: ReadonlySet<string> }> {
  const allowed = origins === undefined || origins.has(new URL(request.url).origin);
  if (!allowed || !hook.shouldAuthenticate(request)) return { request, added: NONE };
  const result = await hook.beforeRequest(request, context);
  if (!(result instanceof HttpRequest)) {
    throw new TypeError(
      `Auth hook ${hook.constructor.name} returned ${
        describeType(result)
      }, expected an HttpRequest`,
    );
  }
  return { request: result, added: addedHeaders(request, result) };
}

function addedHeaders(before: HttpRequest, after: HttpRequest): ReadonlySet<string> {
  if (before.headers === after.headers) return NONE;
  const added = new Set<string>();
  const headers = after.headers ?? {};
  for (const name in headers) {
    const value = headers[name];
    // Most headers keep their spelling: the case-insensitive search is for the rest.
    if (before.headers?.[name] !== value && headerValue(before.headers, name) !== value) {
      added.add(name.toLowerCase());
    }
  }
  return added;
}
