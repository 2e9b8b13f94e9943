// Where a client's credentials may go, worked out once from its
// configuration: the origins its auth hook runs for, and the headers that
// carry credentials, which a redirect drops when it leaves the origin.

import type { HttpClientConfig } from "../config/config.ts";
import type { RequestHookInterface } from "../hooks/hook_interfaces.ts";
import type { AuthOptions } from "./auth_flow.ts";
import type { SendOptions } from "./exchange.ts";

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
  const declared = new Set<string>();
  const hooks: readonly RequestHookInterface[] = config.authHook === undefined
    ? config.requestHooks
    : [...config.requestHooks, config.authHook];
  for (const hook of hooks) {
    const names: unknown = hook.credentialHeaders;
    if (!Array.isArray(names)) continue;
    for (const name of names) if (typeof name === "string") declared.add(name.toLowerCase());
  }
  return {
    authOrigins,
    // An explicit list is the whole list: a client that names its API's origin must not send
    // its credentials to any other URL it is called with (a webhook a user gave, say).
    authOwnOrigin: baseUrl === undefined && config.authOrigins === undefined,
    credentialHeaders: declared.size === 0 ? undefined : declared,
  };
}
