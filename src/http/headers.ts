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

/** A header record whose repeated headers are lists (undici's): each list joined by ", ", as `Headers.get` does. */
export function joinHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const record: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) record[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return record;
}
