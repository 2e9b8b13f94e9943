// A cookie jar as a client uses it (tough-cookie's `CookieJar` fits as it
// is), and all of the jar on the send path: the check of one given to the
// builder, the cookies a request takes from it, the Set-Cookie lines a
// response hands to it, and the default jar's one error, known here without
// tough-cookie's loader (the default jar is memory_jar.ts, which the client
// loads with the first cookie it receives).

import { describeCall, HttpClientException, RuntimeLimitError } from "../errors.ts";
import type { HttpRequest } from "../models/request.ts";
import { describeType } from "../models/_validate.ts";
import { utf8Length } from "../http/raw_body.ts";
import { appendParams } from "../http/url.ts";
import type { MiddlewareFunction } from "../hooks/hook_interfaces.ts";

/**
 * A cookie jar as a client uses it: tough-cookie's `CookieJar` is one, with
 * whatever store it was made with. The client asks it for the `Cookie`
 * header of every request it sends (each redirect hop too), and hands it
 * every `Set-Cookie` line it receives, with the URL of the hop; the jar
 * applies the cookie rules (domain, path, `Secure`, expiry, public
 * suffixes). A cookie larger than browsers keep (name and value over 4096
 * bytes) is never handed to it, and an attribute over 1024 bytes is taken
 * out of its line first. How many cookies it keeps is the jar's own
 * matter: tough-cookie's keeps all it is given.
 *
 * @example Keep the cookies of a session in your own jar
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import type { CookieJarLike } from "@fetchline/fetchline";
 * import { CookieJar } from "tough-cookie";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   (request) =>
 *     new URL(request.url).pathname === "/login"
 *       ? new Response("in", { headers: { "set-cookie": "sid=s3cr3t; Path=/; HttpOnly" } })
 *       : new Response(request.headers.get("cookie")),
 * );
 * const origin = `http://127.0.0.1:${server.addr.port}`;
 * const jar: CookieJarLike = new CookieJar();
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withBaseUrl(origin).withCookies(jar).build(),
 * );
 * await client.post("/login");
 * assert.equal((await client.get("/me")).text, "sid=s3cr3t");
 * assert.equal(await jar.getCookieString(origin), "sid=s3cr3t");
 * ```
 */
export interface CookieJarLike {
  /**
   * The `Cookie` header value for a request to `url` (`""` when no cookie
   * matches).
   */
  getCookieString(url: string): Promise<string>;
  /**
   * Stores the cookie of one `Set-Cookie` line received from `url`. A
   * rejection means the jar refused the cookie (tough-cookie refuses
   * `Domain=com`, for one): it is dropped, as a browser drops it, and the
   * call goes on.
   */
  setCookie(cookie: string, url: string): Promise<unknown>;
}

/** The jar of `withCookies()`: an object with both methods, `true` for the client's own, `undefined` for none. */
export function checkCookieJar(jar: unknown): CookieJarLike | true | undefined {
  if (jar === undefined) return true;
  if (jar === null) return undefined;
  const methods = jar as Partial<Record<keyof CookieJarLike, unknown>>;
  if (typeof methods.getCookieString !== "function" || typeof methods.setCookie !== "function") {
    throw new TypeError(
      `Invalid cookies: expected a jar with getCookieString() and setCookie(), got ${
        describeType(jar)
      }`,
    );
  }
  return jar as CookieJarLike;
}

/**
 * The default jar's library could not be loaded: a runtime that resolves no
 * package name (a browser without a bundler, say), or a build without it.
 * Unlike a cookie the jar refuses, this is not dropped: every cookie would
 * be, silently.
 */
export class CookieLibraryError extends RuntimeLimitError {}

// The size of a cookie a client keeps, as browsers bound it (RFC 6265bis
// §5.6, Chromium, Firefox), in UTF-8 bytes: a larger cookie would go with
// every later request to its host, and servers refuse a request whose
// Cookie header is so large.
const MAX_COOKIE_BYTES = 4096; // of its name and value: a larger cookie is ignored whole
const MAX_ATTRIBUTE_BYTES = 1024; // of an attribute's value: a larger attribute is ignored alone

/**
 * The Set-Cookie `line` a jar is given: `undefined` for a cookie too large;
 * else the line without its attributes (`; Name=value`) too large, which the
 * cookie is then kept without (an over-long `Path` gives the default path,
 * as in a browser).
 */
function boundedSetCookie(line: string): string | undefined {
  // A line this short (at most 3 bytes a character) holds nothing too large.
  if (line.length * 3 <= MAX_ATTRIBUTE_BYTES) return line;
  const parts = line.split(";");
  const pair = parts[0] as string;
  const equals = pair.indexOf("=");
  const name = equals === -1 ? "" : pair.slice(0, equals);
  const value = equals === -1 ? pair : pair.slice(equals + 1);
  if (utf8Length(name.trim()) + utf8Length(value.trim()) > MAX_COOKIE_BYTES) return undefined;
  const attributes = parts.slice(1).filter((attribute) => {
    const at = attribute.indexOf("=");
    return at === -1 || utf8Length(attribute.slice(at + 1).trim()) <= MAX_ATTRIBUTE_BYTES;
  });
  return attributes.length === parts.length - 1 ? line : [pair, ...attributes].join(";");
}

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
  try {
    const cookies = await jar.getCookieString(url);
    if (typeof cookies !== "string" || cookies === "") return request;
    // A value no header may carry (a line break) throws here: the jar's failure, never sent.
    return request.with({ headers: mergeCookieHeader(request.headers ?? {}, cookies) });
  } catch (cause) {
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
function mergeCookieHeader(
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
 * within the sizes browsers keep (a cookie too large is never given to the
 * jar). A line the jar refuses is dropped, as a browser drops it; a default
 * jar that cannot load its library fails the call instead.
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

/**
 * The cookie jar as the chain's first link: each exchange's request takes
 * the jar's cookies for its URL (a `Cookie` header of the request's own
 * wins for the names it sets), so every middleware sees them. The
 * exchange hands each head's Set-Cookie lines to the jar, as received.
 */
export function cookieLink(jar: CookieJarLike): MiddlewareFunction {
  return async (request, next) => {
    const url = appendParams(request.url, request.params);
    return next(await addJarCookies(request, url, jar));
  };
}
