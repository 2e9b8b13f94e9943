// The jar a client keeps when `withCookies()` is given none: tough-cookie's
// CookieJar in memory (RFC 6265 with the public-suffix list, through tldts),
// loaded by a dynamic import() on the first cookie the client receives, so
// a client without cookies, or one whose servers never set any, neither
// loads nor evaluates it. This file is the one place the Deno build imports
// an npm package (scripts/check_layout.ts allows it here and nowhere else).

import type { CookieJarLike } from "./cookie_jar.ts";
import { RuntimeLimitError, runtimeName } from "../transport/runtime_name.ts";

/** Loads tough-cookie's module; a test gives one that fails. */
export type CookieLibrary = () => Promise<{ CookieJar: new () => CookieJarLike }>;

/**
 * The default jar's library could not be loaded: a runtime that resolves no
 * package name (a browser without a bundler, say). Unlike a cookie the jar
 * refuses, this is not dropped: every cookie would be, silently.
 */
export class CookieLibraryError extends RuntimeLimitError {}

/**
 * A cookie jar in memory, one per client: tough-cookie's, with its defaults
 * (public suffixes refused; `Secure` cookies stored and sent over https,
 * and over http to loopback and `localhost`, which browsers treat as secure
 * contexts too).
 */
export class MemoryCookieJar implements CookieJarLike {
  /** tough-cookie's jar, once a cookie has been received. */
  #jar: Promise<CookieJarLike> | undefined;
  readonly #load: CookieLibrary;

  constructor(load: CookieLibrary = () => import("tough-cookie")) {
    this.#load = load;
  }

  getCookieString(url: string): Promise<string> {
    // Nothing was ever stored: no need to load the library to say so.
    return this.#jar === undefined
      ? Promise.resolve("")
      : this.#jar.then((jar) => jar.getCookieString(url));
  }

  setCookie(cookie: string, url: string): Promise<unknown> {
    this.#jar ??= this.#load().then(({ CookieJar }) => new CookieJar(), (cause) => {
      throw new CookieLibraryError(
        `Invalid cookies: ${runtimeName()} could not load the tough-cookie package of the ` +
          `default jar (${cause instanceof Error ? cause.name : typeof cause}); ` +
          "give withCookies() a jar of your own",
        { cause },
      );
    });
    return this.#jar.then((jar) => jar.setCookie(cookie, url));
  }
}
