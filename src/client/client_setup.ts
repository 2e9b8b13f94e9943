// What a client sets up once, on its first request: the options every call
// of it shares, over the transport its scope gives (a pool made with the
// client's pool options, proxy and TLS settings, maybe shared with the
// client it was derived from, or its custom fetch), and its middleware
// chain, the cookie jar first.

import type { HttpClientConfig } from "../config/config.ts";
import type { Transport } from "../transport/types.ts";
import { MemoryCookieJar } from "../cookies/memory_jar.ts";
import { chainLinks } from "./middleware.ts";
import type { CallsInFlight, LifecycleOptions } from "./lifecycle.ts";
import { authScope } from "./auth_scope.ts";
import { tokenSender } from "./token_sender.ts";

/**
 * The options every call of a client shares. A jar of the client's own
 * (`withCookies()`) is made here, so a derived client starts with an empty
 * one and never shares a session by accident.
 */
export function clientSetup(
  config: HttpClientConfig,
  owner: object,
  closed: AbortSignal,
  calls: CallsInFlight,
  transport: Transport,
): LifecycleOptions {
  const cookies = config.cookies === true ? new MemoryCookieJar() : config.cookies;
  const options: LifecycleOptions = {
    transport,
    timeout: config.timeout,
    readTimeout: config.readTimeout,
    totalTimeout: config.totalTimeout,
    maxRedirects: config.maxRedirects,
    maxResponseBytes: config.maxResponseBytes,
    closed,
    owner,
    requestHooks: config.requestHooks,
    responseHooks: config.responseHooks,
    errorHooks: config.errorHooks,
    retry: config.retry,
    authHook: config.authHook,
    middleware: chainLinks(config.middleware, cookies),
    cookies,
    ...authScope(config),
    calls,
  };
  return config.authHook === undefined
    ? options
    : { ...options, tokenSender: tokenSender(options, config) };
}
