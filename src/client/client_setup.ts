// What a client sets up once, on its first request: the transport (a pool
// made with the client's pool options, or its custom fetch) and the options
// every call of it shares.

import type { HttpClientConfig } from "../config/client_config.ts";
import { runtime } from "../transport/runtime.ts";
import { fetchTransport } from "../transport/fetch_transport.ts";
import type { Pool, Transport } from "../transport/types.ts";
import type { CallsInFlight, LifecycleOptions } from "./lifecycle.ts";
import { authScope } from "./auth_scope.ts";

/**
 * The options every call of a client shares, and the pool they send
 * through (none with a custom fetch), which the client closes.
 */
export function clientSetup(
  config: HttpClientConfig,
  owner: object,
  closed: AbortSignal,
  calls: CallsInFlight,
): { options: LifecycleOptions; pool: Pool | undefined } {
  let transport: Transport;
  let pool: Pool | undefined;
  if (config.fetch !== undefined) transport = fetchTransport(config.fetch);
  else {
    pool = runtime.createPool(config.pool);
    transport = pool.transport;
  }
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
    ...authScope(config),
    calls,
  };
  return { options, pool };
}
