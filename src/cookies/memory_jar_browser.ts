// The browser counterpart of `memory_jar.ts`: the npm package's browser
// build (`browser/`, for pages and web workers) compiles this file in its
// place, so no bundle of it carries tough-cookie and its public-suffix list.
// A browser's fetch keeps cookies itself, and `build()` refuses
// `withCookies()` there (config/network.ts); this jar is reached only
// where that check lets it through (a custom `withFetch`, or a runtime that
// is not a browser given the browser build), and it fails the call on the
// first cookie rather than drop every cookie in silence, as the default jar
// does where tough-cookie cannot be loaded.

import { type CookieJarLike, CookieLibraryError } from "./jar.ts";
import { runtimeName } from "../errors.ts";

/** The default jar of the browser build: no cookie to send, and an error on the first received. */
export class MemoryCookieJar implements CookieJarLike {
  getCookieString(_url: string): Promise<string> {
    return Promise.resolve("");
  }

  setCookie(_cookie: string, _url: string): Promise<unknown> {
    return Promise.reject(
      new CookieLibraryError(
        `Invalid cookies: ${runtimeName()} runs the npm package's browser build, which has no ` +
          "default jar (tough-cookie); give withCookies() a jar of your own",
      ),
    );
  }
}
