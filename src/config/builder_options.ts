// The option objects of the builder methods that add hooks made here, their
// checks, and the hooks they make.

import type { Logger } from "../hooks/hook_interfaces.ts";
import {
  TOKEN_AUTH_HOOK_OPTIONS,
  TokenAuthHook,
  type TokenAuthHookOptions,
} from "../auth/hooks.ts";
import type { TokenManagerInterface } from "../auth/hooks.ts";
import {
  LoggingErrorHook,
  LoggingRequestHook,
  LoggingResponseHook,
} from "../hooks/logging_hooks.ts";
import { LOGGING_KEYS } from "../hooks/logging_hooks.ts";
import { checkKnownKeys, keysOf } from "../models/_validate.ts";

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

const TOKEN_AUTH_KEYS = keysOf<TokenAuthOptions>({
  ...TOKEN_AUTH_HOOK_OPTIONS,
  tokenManager: true,
});

/** The auth hook of `withTokenAuth(options)`; a key that is not an option is a TypeError naming it. */
export function tokenAuthHook(options: TokenAuthOptions): TokenAuthHook {
  checkKnownKeys("token auth options", options, TOKEN_AUTH_KEYS);
  const { tokenManager, ...hookOptions } = options;
  return new TokenAuthHook(tokenManager, hookOptions);
}

/** The three hooks of `withLogging(options)`; a key that is not an option is a TypeError naming it. */
export function loggingHooks(
  options: LoggingOptions,
): [LoggingRequestHook, LoggingResponseHook, LoggingErrorHook] {
  checkKnownKeys("logging options", options, LOGGING_KEYS);
  const { logger, sensitiveKeys } = options;
  return [
    new LoggingRequestHook(options),
    new LoggingResponseHook(options),
    new LoggingErrorHook({ logger, sensitiveKeys }),
  ];
}
