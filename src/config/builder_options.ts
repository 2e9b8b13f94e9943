// The option objects of the builder methods that add hooks made here.

import type { Logger } from "../hooks/hook_interfaces.ts";
import type { TokenAuthHookOptions } from "../auth/token_auth_hook.ts";
import type { TokenManagerInterface } from "../auth/auth_interfaces.ts";

/** Options of {@linkcode HttpClientConfigBuilder.withTokenAuth}. */
export interface TokenAuthOptions extends TokenAuthHookOptions {
  /** Gets and refreshes the tokens. */
  tokenManager: TokenManagerInterface;
}

/** Options of {@linkcode HttpClientConfigBuilder.withLogging}. */
export interface LoggingOptions {
  /** Log request and response headers (sensitive ones masked). Default false. */
  logHeaders?: boolean | undefined;
  /** Log request bodies, and the bodies of failed responses. Default false. */
  logBody?: boolean | undefined;
  /** Further header names to mask, in any letter case. */
  sensitiveKeys?: Iterable<string> | undefined;
  /** Where to write. Default `console`. */
  logger?: Logger | undefined;
}
