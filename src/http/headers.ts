// Pure helpers for header records and values, HTTP-dates and Retry-After
// among them: no models, no I/O.

/** The media type of a `Content-Type` value, its parameters left out, in lower case (`""` for none). */
export function mediaType(contentType: string | undefined): string {
  return contentType?.split(";", 1)[0]?.trim().toLowerCase() ?? "";
}

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

const isBlank = (code: number) => code === 0x20 || code === 0x09;

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

// HTTP-dates in the three formats RFC 9110 has recipients accept, and no
// other: `Date.parse` also reads `2001`, `1.5` or `-1` as dates, which would
// turn a bad `Retry-After` into a wait of 0.

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAY_NAME = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY_NAME = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTH = `(?<month>${MONTHS.join("|")})`;
const TIME = "(?<hour>\\d\\d):(?<minute>\\d\\d):(?<second>\\d\\d)";

/** The formats, anchored and of fixed shape, so each match is one linear pass. */
const FORMATS = [
  // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
  new RegExp(`^${DAY_NAME}, (?<day>\\d\\d) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  // Obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
  new RegExp(`^${LONG_DAY_NAME}, (?<day>\\d\\d)-${MONTH}-(?<shortYear>\\d\\d) ${TIME} GMT$`),
  // Obsolete asctime: `Sun Nov  6 08:49:37 1994`
  new RegExp(`^${DAY_NAME} ${MONTH} (?<day>\\d\\d| \\d) ${TIME} (?<year>\\d{4})$`),
];

/**
 * The time of an HTTP-date in milliseconds since the epoch, or `undefined`
 * when `value` is not one: another format, or a day or time out of range
 * (`30 Feb`, `24:00:00`). A two-digit year is read as the nearest one not
 * more than 50 years after `now`. The day name is not checked against the
 * date, as recipients need not.
 */
export function parseHttpDate(value: string, now: number = Date.now()): number | undefined {
  for (const format of FORMATS) {
    const fields = format.exec(value)?.groups;
    if (fields === undefined) continue;
    const year = fields.year === undefined
      ? fullYear(Number(fields.shortYear), now)
      : Number(fields.year);
    const [month, day] = [MONTHS.indexOf(fields.month!), Number(fields.day)];
    const [hour, minute, second] = [fields.hour!, fields.minute!, fields.second!].map(Number);
    // A second of 60 is a leap second.
    if (hour! > 23 || minute! > 59 || second! > 60) return undefined;
    // setUTCFullYear, unlike Date.UTC, takes years below 100 as they are.
    const midnight = new Date(0);
    midnight.setUTCFullYear(year, month, day);
    // A day the month has not (`30 Feb`) rolls over into the next month: refused.
    if (midnight.getUTCMonth() !== month || midnight.getUTCDate() !== day) return undefined;
    return midnight.getTime() + ((hour! * 60 + minute!) * 60 + second!) * 1000;
  }
  return undefined;
}

/** The year ending in `twoDigits` that is the latest not more than 50 years after `now`'s. */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = current - (current % 100) + twoDigits;
  return year > current + 50 ? year - 100 : year;
}

/**
 * `Retry-After` as milliseconds from now: delay-seconds (digits only) or an
 * HTTP-date, 0 for a date past. Any other value (`-1`, `1.5`, `1e3`, a date
 * in another format) is `undefined`, so the usual backoff applies.
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = trimHeaderValue(value);
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = parseHttpDate(trimmed, now);
  return date === undefined ? undefined : Math.max(0, date - now);
}
