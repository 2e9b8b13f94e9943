// The default jar's one error, apart from the jar (memory_jar.ts, or the
// browser build's memory_jar_browser.ts), so the send path (jar_cookies.ts)
// knows it in every build without bringing in tough-cookie's loader.

import { RuntimeLimitError } from "../transport/failures.ts";

/**
 * The default jar's library could not be loaded: a runtime that resolves no
 * package name (a browser without a bundler, say), or a build without it.
 * Unlike a cookie the jar refuses, this is not dropped: every cookie would
 * be, silently.
 */
export class CookieLibraryError extends RuntimeLimitError {}
