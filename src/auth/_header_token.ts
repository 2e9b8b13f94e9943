// A token from a step, a manager or a provider is data, not a caller's
// mistake: one a header cannot carry fails the token fetch with an
// AuthenticationException instead of a TypeError at the next request.
// The check is the one every header value goes through, so the two refuse
// the same characters.

import { validateHeader } from "../models/_validate.ts";

/**
 * The TypeError a value of header `name` gets for `token` (it names the
 * header and the character, never the value), or `undefined` when the
 * token fits.
 */
export function unfitTokenError(name: string, token: string): TypeError | undefined {
  try {
    validateHeader("token", name, token);
    return undefined;
  } catch (error) {
    return error as TypeError;
  }
}

/** True when `token` can be a header value (alone or after a scheme and a space). */
export function fitsInHeader(token: string): boolean {
  return unfitTokenError("Authorization", token) === undefined;
}
