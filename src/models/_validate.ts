// Checks shared by the request model, the client configuration and toCurl,
// so the same bad input gets the same TypeError wherever it enters.

/** RFC 9110 token characters: the only ones allowed in a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Throws a TypeError naming the header when `name` is not an HTTP token or
 * `value` is not a string HTTP can carry (no CR, LF or NUL, nothing above
 * U+00FF). The value itself is never quoted: it may be a credential.
 */
export function validateHeader(field: string, name: string, value: unknown): void {
  if (!TOKEN.test(name)) {
    throw new TypeError(`Invalid header name in ${field}: ${JSON.stringify(name)}`);
  }
  if (typeof value !== "string") {
    throw new TypeError(
      `Invalid value for header "${name}" in ${field}: expected a string, got ${
        describeType(value)
      }`,
    );
  }
  const bad = value.search(FORBIDDEN_IN_VALUE);
  if (bad !== -1) {
    throw new TypeError(
      `Invalid value for header "${name}" in ${field}: character ${
        codeName(value.charCodeAt(bad))
      } at index ${bad} is not allowed`,
    );
  }
}

/** What a header value cannot carry: CR, LF, NUL, and anything above U+00FF. */
const FORBIDDEN_IN_VALUE = /[\r\n\0\u0100-\uffff]/;

/** Validates every entry of a header record (own enumerable keys). */
export function validateHeaders(field: string, headers: unknown): Record<string, string> {
  if (!isPlainRecord(headers)) {
    throw new TypeError(`Invalid ${field}: expected an object of header names to strings`);
  }
  for (const [name, value] of Object.entries(headers)) validateHeader(field, name, value);
  return headers as Record<string, string>;
}

/** A timeout in seconds: a finite number above zero. */
export function validateTimeout(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(
      `Invalid ${field}: expected a finite number of seconds above 0, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** A count such as a retry or redirect limit: a whole number, 0 or more; RangeError otherwise. */
export function validateCount(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`Invalid ${field}: expected a whole number of 0 or more, got ${value}`);
  }
  return value;
}

/** A wait or margin in seconds: a finite number, 0 or more; RangeError otherwise. */
export function validateSeconds(field: string, value: number): number {
  if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
    throw new RangeError(
      `Invalid ${field}: expected a finite number of seconds, 0 or more, got ${value}`,
    );
  }
  return value;
}

/** A credential or name that must be given: a non-empty string; TypeError otherwise. */
export function requireText(field: string, value: unknown): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`Invalid ${field}: expected a non-empty string`);
  }
  return value;
}

/** A Basic-auth username: non-empty and without `:` (RFC 7617); TypeError otherwise. */
export function validateUsername(field: string, value: unknown): string {
  if (typeof value !== "string" || value === "" || value.includes(":")) {
    throw new TypeError(`Invalid ${field}: the username must be a non-empty string without ':'`);
  }
  return value;
}

/** True for `{}`-style objects (not arrays, Maps, class instances with other prototypes). */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The type of a value as a message should name it. */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return (value as object).constructor?.name ?? "an object";
  return typeof value;
}

/** A short, secret-free picture of a non-string value for a message. */
function describeValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || value == null) {
    return String(value);
  }
  return describeType(value);
}

function codeName(code: number): string {
  if (code === 0x0d) return "CR";
  if (code === 0x0a) return "LF";
  if (code === 0x00) return "NUL";
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}
