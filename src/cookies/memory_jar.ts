// The jar a client keeps when `withCookies()` is given none: tough-cookie's
// CookieJar in memory (RFC 6265 with the public-suffix list, through tldts),
// loaded by a dynamic import() on the first cookie the client receives, so
// a client without cookies, or one whose servers never set any, neither
// loads nor evaluates it. This file is the one place the Deno build imports
// an npm package (scripts/check_layout.ts allows it here and nowhere else).

import type { CookieJarLike } from "./cookie_jar.ts";

/**
 * A cookie jar in memory, one per client: tough-cookie's, with its defaults
 * (public suffixes refused; `Secure` cookies stored and sent over https,
 * and over http to loopback and `localhost`, which browsers treat as secure
 * contexts too).
 */
export class MemoryCookieJar implements CookieJarLike {
  /** tough-cookie's jar, once a cookie has been received. */
  #jar: Promise<CookieJarLike> | undefined;

  getCookieString(url: string): Promise<string> {
    // Nothing was ever stored: no need to load the library to say so.
    return this.#jar === undefined
      ? Promise.resolve("")
      : this.#jar.then((jar) => jar.getCookieString(url));
  }

  setCookie(cookie: string, url: string): Promise<unknown> {
    this.#jar ??= import("tough-cookie").then(({ CookieJar }) => new CookieJar());
    return this.#jar.then((jar) => jar.setCookie(cookie, url));
  }
}
