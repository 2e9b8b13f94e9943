// Pure helpers for header records and values: no models, no I/O.

/** The value of header `name` in `headers`, compared without regard to case. */
export function headerValue(
  headers: Readonly<Record<string, string>> | undefined,
  name: string,
): string | undefined {
  const lower = name.toLowerCase();
  for (const key in headers) if (key.toLowerCase() === lower) return headers[key];
  return undefined;
}

/**
 * A header value without the leading and trailing spaces and tabs `fetch`
 * strips. A loop, not `/^[ \t]+|[ \t]+$/`: that regex retries at every
 * character of an inner run of blanks, quadratic in the run's length.
 */
export function trimHeaderValue(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isBlank(value.charCodeAt(start))) start++;
  while (end > start && isBlank(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** `base` merged with `extra`, compared without regard to case; `extra` wins. */
export function mergeHeaders(
  base: Readonly<Record<string, string>> | undefined,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const overridden: string[] = [];
  for (const name in extra) overridden.push(name.toLowerCase());
  // A list is the fastest for the few names of a usual request; past a few,
  // a set keeps the merge linear in the number of headers.
  const set = overridden.length > 8 ? new Set(overridden) : undefined;
  const merged: Record<string, string> = {};
  for (const name in base) {
    const lower = name.toLowerCase();
    if (!(set?.has(lower) ?? overridden.includes(lower))) merged[name] = base[name] as string;
  }
  for (const name in extra) merged[name] = extra[name] as string;
  return merged;
}

/** The `Authorization` value for HTTP Basic: `Basic base64(utf8("user:pass"))` (RFC 7617). */
export function basicAuthorization(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/**
 * Where a header record keeps its Set-Cookie lines apart when there were
 * several: a key that is not enumerable, so the record reads, spreads and
 * serializes as the plain record of joined values it is.
 */
export const SET_COOKIE_LINES: unique symbol = Symbol("set-cookie lines");

/** A header record that may carry its Set-Cookie lines apart ({@linkcode SET_COOKIE_LINES}). */
export type JoinedHeaders = Record<string, string> & { [SET_COOKIE_LINES]?: readonly string[] };

/**
 * A header record whose repeated headers are lists (undici's): each list
 * joined by ", ", as `Headers.get` does; several Set-Cookie lines, which a
 * comma cannot join, are also kept apart.
 */
export function joinHeaders(
  headers: Record<string, string | string[] | undefined>,
): JoinedHeaders {
  const record: JoinedHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (!Array.isArray(value)) record[name] = value;
    else {
      record[name] = value.join(", ");
      if (name === "set-cookie") keepSetCookieLines(record, value);
    }
  }
  return record;
}

/** Keeps `lines` apart in `record` (see {@linkcode SET_COOKIE_LINES}). */
export function keepSetCookieLines(record: JoinedHeaders, lines: readonly string[]): void {
  Object.defineProperty(record, SET_COOKIE_LINES, { value: lines });
}

/**
 * The headers of a response as the transports give them: a `Headers` (fetch's,
 * whose guard makes them immutable), or a record with lower-case names that
 * nothing else holds (several Set-Cookie lines kept apart in it).
 */
export type WireHeaders = Headers | Readonly<JoinedHeaders>;

/**
 * The values of header `lower` (a lower-case name) kept apart: each
 * Set-Cookie line on its own; any other header as the one value its lines
 * make joined with ", " (HTTP allows that join for every header but
 * Set-Cookie, and `fetch` gives no other form), or none when absent.
 */
export function headerValuesOf(
  headers: WireHeaders,
  lower: string,
): string[] {
  if (headers instanceof Headers) {
    // getSetCookie() is missing only from the Headers of an old custom fetch.
    if (lower === "set-cookie" && typeof headers.getSetCookie === "function") {
      return headers.getSetCookie();
    }
    const value = headers.get(lower);
    return value === null ? [] : [value];
  }
  const lines = lower === "set-cookie" ? headers[SET_COOKIE_LINES] : undefined;
  if (lines !== undefined) return [...lines];
  const value = headers[lower];
  return value === undefined ? [] : [value];
}
