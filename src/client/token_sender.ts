// The seam between an auth hook's token fetch and the client it runs for:
// the token request is one more call of the client, through the same
// lifecycle, without the parts that belong to the user's calls.

import type { HttpClientConfig } from "../config/config.ts";
import { retryPolicy } from "../config/retry_policy.ts";
import type { TokenSender } from "../models/context.ts";
import type { HttpRequest } from "../models/request.ts";
import { executeCall } from "./lifecycle.ts";
import type { LifecycleOptions } from "./lifecycle.ts";
import { prepareRequest } from "./prepare.ts";
import { tokenLoggers } from "../hooks/logging_hooks.ts";

/**
 * Sends an auth hook's token requests (clientCredentialsStep's) through the
 * client's pool (its proxy and TLS settings) and its logging hooks, which
 * log it as any request, secrets masked. The client's other hooks do not
 * run on it: they are written for the calls of the API (a hook that signs
 * or rewrites requests must not touch a token request), and neither do its
 * auth hook, default headers or retries. Nor its cookie jar: the grant
 * authenticates the application, not a user's session, so the session's
 * cookies stay away from the token endpoint, and a cookie it sets stays out
 * of the session (as with a TokenManager used on its own, and one shared by
 * clients of different users). The client's close aborts it; a
 * call's own signal does not, as the token may serve several calls (the
 * call stops waiting for it instead). The sender carries the client's
 * `closed` signal, so the calls of other clients sharing its token run
 * fetch anew when it closes.
 */
export function tokenSender(options: LifecycleOptions, config: HttpClientConfig): TokenSender {
  const retry = retryPolicy({ maxRetries: 0 }, config.retry);
  const tokenOptions: LifecycleOptions = {
    ...options,
    requestHooks: options.requestHooks.filter((hook) => tokenLoggers.has(hook)),
    responseHooks: options.responseHooks.filter((hook) => tokenLoggers.has(hook)),
    errorHooks: options.errorHooks.filter((hook) => tokenLoggers.has(hook)),
    authHook: undefined,
    middleware: [],
    cookies: undefined,
    retry,
    calls: undefined,
  };
  const prepare = { headers: {}, retry };
  const send = (request: HttpRequest) => {
    try {
      return executeCall(prepareRequest(request, prepare), tokenOptions);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return Object.assign(send, { closed: options.closed });
}
