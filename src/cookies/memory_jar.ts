// The jar a client keeps when `withCookies()` is given none: tough-cookie's
// CookieJar in memory (RFC 6265 with the public-suffix list, through tldts),
// loaded by a dynamic import() on the first cookie the client receives, so
// a client without cookies, or one whose servers never set any, neither
// loads nor evaluates it. This file is the one place the Deno build imports
// an npm package (scripts/check_layout.ts allows it here and nowhere else).

import type { CookieJarLike } from "./cookie_jar.ts";
import { runtimeName } from "../transport/failures.ts";
import { CookieLibraryError } from "./cookie_library_error.ts";
import { CookieEviction, type CookieStore, type StoredCookie } from "./cookie_eviction.ts";

/** What the jar uses of tough-cookie's `CookieJar`. */
interface ToughJar {
  readonly store: CookieStore;
  getCookieString(url: string): Promise<string>;
  setCookie(cookie: string, url: string): Promise<StoredCookie | undefined>;
}

/** What the jar uses of tough-cookie's module. */
interface ToughCookie {
  CookieJar: new () => ToughJar;
  getPublicSuffix(domain: string, options: { allowSpecialUseDomain: boolean }): string | undefined;
}

/** Loads tough-cookie's module; a test gives one that fails. */
export type CookieLibrary = () => Promise<ToughCookie>;

/**
 * A cookie jar in memory, one per client: tough-cookie's, with its defaults
 * (public suffixes refused; `Secure` cookies stored and sent over https,
 * and over http to loopback and `localhost`, which browsers treat as secure
 * contexts too), keeping at most 180 cookies per site and 3000 in all
 * (see cookie_eviction.ts).
 */
export class MemoryCookieJar implements CookieJarLike {
  /** tough-cookie's jar and its bounds, once a cookie has been received. */
  #jar: Promise<{ jar: ToughJar; eviction: CookieEviction }> | undefined;
  readonly #load: CookieLibrary;

  constructor(load: CookieLibrary = () => import("tough-cookie")) {
    this.#load = load;
  }

  getCookieString(url: string): Promise<string> {
    // Nothing was ever stored: no need to load the library to say so.
    return this.#jar === undefined
      ? Promise.resolve("")
      : this.#jar.then(({ jar }) => jar.getCookieString(url));
  }

  setCookie(cookie: string, url: string): Promise<unknown> {
    this.#jar ??= this.#load().then(({ CookieJar, getPublicSuffix }) => {
      const jar = new CookieJar();
      // A site is a registrable domain (example.co.uk), or the host where there is none (an address).
      const siteOf = (domain: string) => {
        try {
          return getPublicSuffix(domain, { allowSpecialUseDomain: true }) ?? domain;
        } catch {
          return domain;
        }
      };
      return { jar, eviction: new CookieEviction(jar.store, siteOf) };
    }, (cause) => {
      throw new CookieLibraryError(
        `Invalid cookies: ${runtimeName()} could not load the tough-cookie package of the ` +
          `default jar (${cause instanceof Error ? cause.name : typeof cause}); ` +
          "give withCookies() a jar of your own",
        { cause },
      );
    });
    return this.#jar.then(async ({ jar, eviction }) => {
      const stored = await jar.setCookie(cookie, url);
      if (stored !== undefined) await eviction.stored(stored);
      return stored;
    });
  }
}
