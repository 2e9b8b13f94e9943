// A token from a step, a manager or a provider is data, not a caller's
// mistake: one a header cannot carry fails the token fetch with an
// AuthenticationException instead of a TypeError at the next request.
// The check is the one every header value goes through, so the two refuse
// the same characters.

import { validateHeader } from "../models/_validate.ts";

/** True when `token` can be a header value (alone or after a scheme and a space). */
export function fitsInHeader(token: string): boolean {
  try {
    validateHeader("token", "Authorization", token);
    return true;
  } catch {
    return false;
  }
}
