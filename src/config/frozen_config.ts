// The last step of every configuration, the builder's `build()` and
// `createClient()`'s alike. `createClient()` calls it without the builder, so
// a bundle that only creates clients does not carry the builder's methods
// and what they construct (the logging hooks, the token auth hook).

import { withRedactedView } from "./_config_view.ts";
import { checkNetwork } from "./network_checks.ts";
import type { HttpClientConfig } from "./http_client_config.ts";

/** The frozen configuration, refusing network settings this client could not apply. */
export function frozenConfig(config: HttpClientConfig): HttpClientConfig {
  checkNetwork(config);
  return Object.freeze(withRedactedView({
    ...config,
    requestHooks: Object.freeze([...config.requestHooks]),
    responseHooks: Object.freeze([...config.responseHooks]),
    errorHooks: Object.freeze([...config.errorHooks]),
  }));
}
