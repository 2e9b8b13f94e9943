// The auth layer of one attempt, and where a client's credentials may go.

import type { AuthHookInterface } from "../auth/hooks.ts";
import { bindTokenSender } from "../auth/hooks.ts";
import { configCredentials, type HttpClientConfig } from "../config/config.ts";
import { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { RequestContext, TokenSender } from "../models/context.ts";
import { describeType } from "../models/_validate.ts";
import { headerValue } from "../http/headers.ts";
import { isOneShot } from "../http/raw_body.ts";
import { originOf } from "../http/url.ts";
import { Step, withinStep } from "./deadline.ts";
import { attemptTimeout, startStepTimeout } from "./deadline.ts";
import type { SendOptions } from "./chain.ts";
import { type HopAuth, sendWithRedirects } from "./redirects.ts";

// Where a client's credentials may go, worked out once from its
// configuration: the origins its auth hook runs for, and the headers that
// carry credentials, which a redirect drops when it leaves the origin.

/** What {@linkcode authScope} works out. */
export type AuthScope =
  & Required<Pick<AuthOptions, "authOrigins" | "authOwnOrigin">>
  & Pick<SendOptions, "credentialHeaders">;

/**
 * The auth scope of `config`. The auth hook runs for the origins of
 * `withAuthOrigins`, else the base URL's origin, else (no base URL) the
 * origin of each call's own request, so a redirect never carries
 * credentials to another origin unless `withAuthOrigins` names it. The
 * credential headers are those the hooks declare (`credentialHeaders`),
 * lower-case; `undefined` when none is declared.
 */
export function authScope(config: HttpClientConfig): AuthScope {
  const { baseUrl } = config;
  const authOrigins = config.authOrigins ??
    new Set(baseUrl === undefined ? [] : [new URL(baseUrl).origin]);
  return {
    authOrigins,
    // An explicit list is the whole list: a client that names its API's origin must not send
    // its credentials to any other URL it is called with (a webhook a user gave, say).
    authOwnOrigin: baseUrl === undefined && config.authOrigins === undefined,
    credentialHeaders: configCredentials(config),
  };
}

// The auth layer of one attempt: apply the auth hook where it is allowed,
// send through the redirect layer (which asks this layer to apply the hook
// again on a hop that leaves the origin), and refresh and resend after an
// authentication error that came from where the credentials went. Each
// sending runs in a step started before the auth hook, so the token fetch
// (or the refresh before a resend, or the auth of a redirect hop), the
// redirects and the body read share one timeout, the caller's signal and
// the client's close. A hook's own error reaches the caller as it is.

/** The client's auth settings. */
export interface AuthOptions {
  /** The auth hook, if any. */
  readonly authHook?: AuthHookInterface | undefined;
  /** The origins the hook runs for (besides the call's own, with `authOwnOrigin`). */
  readonly authOrigins?: ReadonlySet<string> | undefined;
  /** True when the hook also runs for the origin of the call's own request (no base URL). */
  readonly authOwnOrigin?: boolean | undefined;
  /** Sends the hook's token requests through the client's transport. */
  readonly tokenSender?: TokenSender | undefined;
  /** The URL whose origin the call's credentials belong to, when not the call's own. */
  readonly credentialsOf?: string | undefined;
}

/** A request after the auth hook, and the lower-case names of the headers the hook added. */
type Authenticated = { request: HttpRequest; added: ReadonlySet<string> };

const NONE: ReadonlySet<string> = new Set();

/**
 * The auth layer of one attempt, between the attempts and the redirects:
 * sends the hooked request through {@linkcode sendWithRedirects}, with
 * credentials where the client's auth hook applies (a client without one
 * goes straight through, once). While the hook calls a response an auth
 * error, the credentials were sent to the origin that gave it, and the
 * retry strategy allows: invalidate, refresh, resend (not counted as a
 * retry). A request whose body was a stream cannot be sent again: its auth
 * error is returned as the response, after invalidating the credentials so
 * the next call gets fresh ones. Sets `context.request` to the request
 * sent. The client's token sender is bound to `context` and to a response
 * refreshed after, where a token hook finds it.
 */
export async function sendAuthenticated(
  hooked: HttpRequest,
  context: RequestContext,
  options: SendOptions & AuthOptions,
): Promise<HttpResponse> {
  const hook = options.authHook;
  let scope: AuthOrigin | undefined;
  const seconds = attemptTimeout(hooked, options);
  let failed: HttpResponse | undefined;
  for (let authRetries = 0;; authRetries++) {
    const step = new Step(options);
    startStepTimeout(step, seconds, options);
    try {
      let first: Authenticated = { request: hooked, added: NONE };
      let hops: HopAuth | undefined;
      // Whether the hop that answered carried the hook's credentials.
      let credentialed = false;
      if (hook !== undefined) {
        const until = <T>(pending: Promise<T>): Promise<T> =>
          withinStep(pending, step, hooked, options);
        // The token hook finds the client's sender on the call's context, or on the 401 it refreshes after.
        bindTokenSender(failed ?? context, options.tokenSender);
        if (failed !== undefined) {
          const previous = failed;
          let refreshed: boolean;
          try {
            hook.invalidateAuth(previous);
            refreshed = await until(hook.refreshAuth(previous));
          } catch (error) {
            if (options.stream) await previous.cancel();
            throw error;
          }
          // No refresh: the 401 is the response, its body unread still.
          if (!refreshed) return previous;
          // Resent: the streamed body of the 401 is given back unread.
          if (options.stream) await previous.cancel();
        }
        // Worked out once a call, with the hook's first application.
        const allowed = scope ??= authOrigin(hooked, options);
        // A hook that answers at once (an API key) costs no promise.
        const applied = authenticate(hook, allowed, hooked, context, allowed.origin);
        first = applied instanceof Promise ? await until(applied) : applied;
        context.request = first.request;
        credentialed = first.added.size > 0;
        hops = {
          headers: first.added,
          resend: authRetries > 0,
          async reapply(hop) {
            const result = await until(Promise.resolve(authenticate(hook, allowed, hop, context)));
            credentialed = result.added.size > 0;
            return result;
          },
        };
      }
      const response = await sendWithRedirects(first.request, options, context, hops, step);
      let refresh = false;
      try {
        if (
          hook !== undefined && credentialed && hook.isAuthError(response) &&
          hook.retryStrategy.shouldRetry(response, authRetries)
        ) {
          if (isOneShot(first.request.body)) hook.invalidateAuth(response);
          else refresh = true;
        }
      } catch (error) {
        // A hook that throws on the head leaves no streamed body open.
        if (options.stream) await response.cancel();
        throw error;
      }
      if (!refresh) return response;
      failed = response;
    } finally {
      step.release();
    }
  }
}

/** Where the auth hook may run in a call: the hooked request's origin, and the origins allowed. */
interface AuthOrigin {
  readonly origin: string;
  allowed(origin: string): boolean;
}

/**
 * The hooked request's origin, and which origins the hook may run for in
 * its call: the auth origins, and the call's own (its request's, or that of
 * the URL its credentials belong to: pagination's later pages) when the
 * client has no base URL nor auth origins.
 */
function authOrigin(hooked: HttpRequest, options: AuthOptions): AuthOrigin {
  const origin = originOf(hooked.url);
  const origins = options.authOrigins ?? NONE;
  if (!options.authOwnOrigin) return { origin, allowed: (at) => origins.has(at) };
  const own = options.credentialsOf === undefined ? origin : originOf(options.credentialsOf);
  return { origin, allowed: (at) => at === own || origins.has(at) };
}

/**
 * Applies the hook where it should authenticate and the origin (`origin`,
 * `request`'s, when known) is allowed; names the headers it added. Not a
 * promise while the hook returns a request, not a promise.
 */
function authenticate(
  hook: AuthHookInterface,
  scope: AuthOrigin,
  request: HttpRequest,
  context: RequestContext,
  origin = originOf(request.url),
): Authenticated | Promise<Authenticated> {
  if (!scope.allowed(origin) || !hook.shouldAuthenticate(request)) return { request, added: NONE };
  const result = hook.beforeRequest(request, context);
  if (result instanceof HttpRequest) {
    return { request: result, added: addedHeaders(request, result) };
  }
  return Promise.resolve(result).then((hooked: unknown) => {
    if (!(hooked instanceof HttpRequest)) {
      throw new TypeError(
        `Auth hook ${hook.constructor.name} returned ${
          describeType(hooked)
        }, expected an HttpRequest`,
      );
    }
    return { request: hooked, added: addedHeaders(request, hooked) };
  });
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
