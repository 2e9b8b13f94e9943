// How a token request reaches the transport of the client whose call needs
// the token, without a public API: the auth layer binds a sender to the
// call's RequestContext (and to a failed response it asks the hook to
// refresh after); TokenAuthHook finds it there and hands it to its
// TokenManager for the synchronous start of getToken()/refreshToken(); the
// manager keeps it for the run and hands it to each step for the
// synchronous start of its fetch(), where clientCredentialsStep takes it.
// A manager used on its own has none: its steps send as they always did.

import {
  bindContextTokenSender,
  contextTokenSender,
  RequestContext,
  type TokenSender,
} from "../models/request_context.ts";

/** Senders bound to responses, which are rare: only an auth error to refresh after gets one. */
const bound = new WeakMap<object, TokenSender>();

/**
 * Binds `sender` to `key`: a call's RequestContext keeps it in a field of
 * its own (one is bound on every call, so it must cost no more than a
 * store); a response to refresh after, in a weak map.
 */
export function bindTokenSender(key: object, sender: TokenSender | undefined): void {
  if (sender === undefined) return;
  if (key instanceof RequestContext) bindContextTokenSender(key, sender);
  else bound.set(key, sender);
}

/** The sender bound to `key`, if any. */
export function tokenSenderOf(key: unknown): TokenSender | undefined {
  if (key instanceof RequestContext) return contextTokenSender(key);
  return typeof key === "object" && key !== null ? bound.get(key) : undefined;
}

let current: TokenSender | undefined;

/** Runs `start` with `sender` as the current one: only its synchronous part sees it. */
export function withTokenSender<T>(sender: TokenSender | undefined, start: () => T): T {
  const previous = current;
  current = sender;
  try {
    return start();
  } finally {
    current = previous;
  }
}

/** The current sender, read at the synchronous start of a token fetch. */
export function currentTokenSender(): TokenSender | undefined {
  return current;
}
