// The cookie jar's side of the send path (its middleware link is in
// client/middleware.ts): the cookies a request takes from the jar, and the
// Set-Cookie lines a response hands to it.

import { describeCall, HttpClientException } from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import type { CookieJarLike } from "./cookie_jar.ts";
import { CookieLibraryError } from "./cookie_library_error.ts";
import { boundedSetCookie } from "./cookie_size.ts";

/**
 * `request` with the jar's cookies for `url` (its URL with its params) in
 * its `Cookie` header. A `Cookie` header of the request's own is kept and
 * wins for the names it sets; the jar's other cookies are appended to it. A
 * jar that fails fails the call with an {@linkcode HttpClientException}.
 */
export async function addJarCookies(
  request: HttpRequest,
  url: string,
  jar: CookieJarLike,
): Promise<HttpRequest> {
  let cookies: string;
  try {
    cookies = await jar.getCookieString(url);
  } catch (cause) {
    throw new HttpClientException(`Cookie jar failed: ${describeCall(request)}`, {
      request,
      cause,
    });
  }
  if (typeof cookies !== "string" || cookies === "") return request;
  try {
    return request.with({ headers: mergeCookieHeader(request.headers ?? {}, cookies) });
  } catch (cause) {
    // A value no header may carry (a line break): the jar's failure, never sent.
    throw new HttpClientException(`Cookie jar failed: ${describeCall(request)}`, {
      request,
      cause,
    });
  }
}

/**
 * `headers` with `cookies` (a `Cookie` value) added: as the header when there
 * is none, else appended to the one there, but for the names it already has.
 */
export function mergeCookieHeader(
  headers: Readonly<Record<string, string>>,
  cookies: string,
): Record<string, string> {
  let name: string | undefined;
  for (const key in headers) if (key.toLowerCase() === "cookie") name = key;
  const own = name === undefined ? "" : headers[name] ?? "";
  if (own === "") return { ...headers, [name ?? "cookie"]: cookies };
  const given = new Set(own.split(";").map(cookieName));
  const added = cookies.split(";").filter((pair) => !given.has(cookieName(pair)));
  if (added.length === 0) return { ...headers };
  return { ...headers, [name!]: `${own}; ${added.map((pair) => pair.trim()).join("; ")}` };
}

/** The name of a `name=value` pair of a Cookie header (a pair without `=` has the empty name). */
function cookieName(pair: string): string {
  const equals = pair.indexOf("=");
  return equals === -1 ? "" : pair.slice(0, equals).trim();
}

/**
 * Hands the Set-Cookie `lines` of a response from `url` to the jar, in the
 * order received (a later line replaces an earlier one of the same cookie),
 * within the sizes browsers keep ({@linkcode boundedSetCookie}: a cookie
 * too large is never given to the jar). A line the jar refuses (its rejection) is dropped, as a browser drops it;
 * a default jar that cannot load its library fails the call instead.
 */
export async function storeCookies(
  jar: CookieJarLike,
  lines: readonly string[],
  url: string,
): Promise<void> {
  for (const received of lines) {
    const line = boundedSetCookie(received);
    if (line === undefined) continue;
    try {
      await jar.setCookie(line, url);
    } catch (error) {
      if (error instanceof CookieLibraryError) throw error;
      // Refused (a public suffix, another domain, a malformed line): not stored.
    }
  }
}
