// Pure helpers for URLs: joining, query strings and URL-encoded forms, the
// path of a log line. No models, no I/O.

/** One scalar query value; `null` and `undefined` are left out of the URL. */
export type QueryScalar = string | number | boolean | null | undefined;

/** A query value: a scalar, or an array whose items repeat the key (`a=1&a=2`). */
export type QueryValue = QueryScalar | readonly QueryScalar[];

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

/** True when `url` starts with a scheme (`https:`, `ftp:` …), so no base applies. */
export function isAbsoluteUrl(url: string): boolean {
  return ABSOLUTE.test(url);
}

/** The URL `text` parses to when it is an absolute `http:` or `https:` one, else `null`. */
export function parseHttpUrl(text: string): URL | null {
  const parsed = URL.parse(text);
  return parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    ? null
    : parsed;
}

/** The schemes of a proxy's URL: an HTTP proxy's, and a SOCKS5 proxy's (`socks5h:` resolves remotely). */
const PROXY_SCHEMES = new Set(["http:", "https:", "socks5:", "socks5h:"]);

/**
 * The URL `text` parses to when it is a proxy's (an absolute `http:`,
 * `https:`, `socks5:` or `socks5h:` URL with a host), and its origin as
 * `scheme://host[:port]`, lower-case; else `null`.
 */
export function parseProxyUrl(text: string): { parsed: URL; origin: string } | null {
  const parsed = URL.parse(text);
  if (parsed === null || !PROXY_SCHEMES.has(parsed.protocol) || parsed.hostname === "") return null;
  return { parsed, origin: `${parsed.protocol}//${parsed.host}`.toLowerCase() };
}

/** The `scheme://authority` texts seen that are origins as URL parsing writes them. */
const ORIGINS = new Set<string>();
/** How many origins {@linkcode originOf} keeps; past it, it starts over. */
const ORIGINS_KEPT = 64;

/**
 * True when a request that went to `from` and goes on to `to` leaves its
 * origin: another origin, or https down to http. A redirect's hop and a
 * next page that does drop the call's credentials.
 */
export function leavesOrigin(from: URL, to: URL): boolean {
  return from.origin !== to.origin || (from.protocol === "https:" && to.protocol === "http:");
}

/**
 * The origin of an absolute http(s) URL, as `new URL(url).origin` gives
 * it (and throws). Calls to the same few servers repeat the parse of the
 * same authority: a `scheme://authority` text that is an origin as URL
 * parsing writes it is kept, and a URL that starts with a kept one followed
 * by "/", "?", "#", "\" or its end has that origin without a parse.
 */
export function originOf(url: string): string {
  const start = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : -1;
  if (start === -1) return new URL(url).origin;
  let end = start;
  // The authority of an http(s) URL ends at "/", "?", "#" or "\" (by char code: no string per character).
  while (end < url.length && !AUTHORITY_ENDS.includes(url.charCodeAt(end))) end++;
  const key = url.slice(0, end);
  if (ORIGINS.has(key)) return key;
  const origin = new URL(url).origin;
  // Only a text that is its own origin is kept: other texts (an empty
  // authority, whose host follows the slashes after it, user-info, a default
  // port, upper case) are parsed each time, so no two URLs share a wrong origin.
  if (origin === key) {
    if (ORIGINS.size >= ORIGINS_KEPT) ORIGINS.clear();
    ORIGINS.add(key);
  }
  return origin;
}

const AUTHORITY_ENDS = [0x2f, 0x3f, 0x23, 0x5c];

/**
 * Joins `url` to `baseUrl`: an absolute URL is kept
 * as it is; with a base, `/path`, `path` and `/path/` all give `<base>/path`,
 * with no doubled and no trailing slash, whatever the base ends with.
 *
 * @returns The absolute URL, or `undefined` when `url` is relative and
 * there is no base.
 */
export function resolveUrl(baseUrl: string | undefined, url: string): string | undefined {
  if (isAbsoluteUrl(url)) return url;
  if (baseUrl === undefined) return undefined;
  const split = url.search(/[?#]/);
  const path = trimSlashes(split === -1 ? url : url.slice(0, split), true);
  const rest = split === -1 ? "" : url.slice(split);
  const base = trimSlashes(baseUrl, false);
  return path === "" ? base + rest : `${base}/${path}${rest}`;
}

/**
 * `text` without the `/` run at its end, and at its start when `leading`.
 * A loop, not `/^\/+|\/+$/`: that regex retries at every `/` of an inner
 * run, quadratic in the run's length.
 */
function trimSlashes(text: string, leading: boolean): string {
  let start = 0;
  let end = text.length;
  if (leading) { while (start < end && text.charCodeAt(start) === 0x2f) start++; }
  while (end > start && text.charCodeAt(end - 1) === 0x2f) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Encodes query parameters in insertion order: arrays repeat the key,
 * `null` and `undefined` are left out, other values are `String()`ed.
 */
export function encodeParams(params: Readonly<Record<string, QueryValue>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== null && item !== undefined) search.append(key, String(item));
    }
  }
  return search.toString();
}

/** `url` with the encoded `params` appended to its query (before any fragment). */
export function appendParams(
  url: string,
  params: Readonly<Record<string, QueryValue>> | undefined,
): string {
  const query = params === undefined ? "" : encodeParams(params);
  if (query === "") return url;
  const hash = url.indexOf("#");
  const [head, fragment] = hash === -1 ? [url, ""] : [url.slice(0, hash), url.slice(hash)];
  const separator = !head.includes("?") ? "?" : head.endsWith("?") || head.endsWith("&") ? "" : "&";
  return head + separator + query + fragment;
}

/**
 * An absolute http(s) URL whose path and query WHATWG parsing leaves as they
 * are: no backslash, fragment, `%` or character it would percent-encode in
 * the path, no `.` or `..` segment, and none it would encode in the query.
 */
const PLAIN_URL =
  /^https?:\/\/[^/?#\\]+((?:\/(?!\.\.?(?:[/?]|$))[\w\-.~!$&'()*+,;=:@]*)*)(?:\?([\w\-.~!$&()*+,;=:@/?%]*))?$/;

/**
 * The path and query of `url` as `URL` gives them (`pathname + search`); a
 * relative `url` is read as a path, one that does not parse is returned as
 * it is. The common case, an absolute URL whose path and query parsing would
 * not change, is read off the string without a parse (its host unchecked).
 */
export function pathAndQuery(url: string): string {
  const plain = PLAIN_URL.exec(url);
  if (plain !== null) {
    const query = plain[2];
    return (plain[1] || "/") + (query ? `?${query}` : "");
  }
  // Without a base first: against an http: base, `http:/user:pw@host/` would read as a path.
  const parsed = URL.parse(url) ?? URL.parse(url, "http://relative.invalid");
  return parsed === null ? url : parsed.pathname + parsed.search;
}

/** A form field value; numbers and booleans are sent as `String(value)`. */
export type FormValue = string | number | boolean;

/**
 * A file to upload: a `Blob` or `File`, raw bytes, or a path on disk
 * (read when the request is sent).
 */
export type FileValue = Blob | Uint8Array | string;

/** The URL-encoded form text of `data`, in insertion order: its params' encoding. */
export const encodeForm: (data: Readonly<Record<string, FormValue>>) => string = encodeParams;
