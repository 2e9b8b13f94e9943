// What a client needs of a cookie jar, and the check of one given to the
// builder: the promise forms of tough-cookie's two methods, so a user's own
// tough-cookie jar (with the store of their choice) fits as it is.

import { describeType } from "../models/_validate.ts";

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
