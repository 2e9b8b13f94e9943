// The options every call of a client shares, made from its configuration on
// the first request, with the transport: the pool is made here.

import type { HttpClientConfig } from "../config/client_config.ts";
import { fetchTransport } from "../transport/fetch_transport.ts";
import { runtime } from "../transport/runtime.ts";
import type { Pool, Transport } from "../transport/types.ts";
import { authScope } from "./auth_scope.ts";
import type { CallsInFlight, LifecycleOptions } from "./lifecycle.ts";

/** What a client holds that its calls share besides its configuration. */
export interface ClientState {
  /** Aborted when the client is closed. */
  readonly closed: AbortSignal;
  /** The client, which the calls' steps are registered under. */
  readonly owner: object;
  readonly calls: CallsInFlight;
}

/**
 * The options every call of a client with `config` shares; `onPool` is
 * given the pool made for them (none when the configuration gives its own
 * `fetch`).
 */
export function sharedCallOptions(
  config: HttpClientConfig,
  state: ClientState,
  onPool: (pool: Pool) => void,
): LifecycleOptions {
  let transport: Transport;
  if (config.fetch !== undefined) transport = fetchTransport(config.fetch);
  else {
    const pool = runtime.createPool(config.pool);
    onPool(pool);
    transport = pool.transport;
  }
  return {
    transport,
    timeout: config.timeout,
    readTimeout: config.readTimeout,
    totalTimeout: config.totalTimeout,
    maxRedirects: config.maxRedirects,
    maxResponseBytes: config.maxResponseBytes,
    closed: state.closed,
    owner: state.owner,
    requestHooks: config.requestHooks,
    responseHooks: config.responseHooks,
    errorHooks: config.errorHooks,
    retry: config.retry,
    authHook: config.authHook,
    ...authScope(config),
    calls: state.calls,
  };
}
