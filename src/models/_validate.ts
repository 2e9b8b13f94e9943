// Checks shared by the request model, the client configuration and toCurl,
// so the same bad input gets the same TypeError wherever it enters.

import { durationSeconds } from "./duration.ts";

/** RFC 9110 token characters: the only ones allowed in a header name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Throws a TypeError naming the header when `name` is not an HTTP token or
 * `value` is not a string HTTP can carry (no control character but HTAB,
 * nothing above U+00FF). The message gives the code and index of the first
 * bad character, never the value: it may be a credential.
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

/**
 * What a header value cannot carry: the controls U+0000 to U+001F but HTAB,
 * DEL, and anything above U+00FF. `fetch` would refuse them only when
 * sending, as a network error that a GET retries.
 */
// deno-lint-ignore no-control-regex -- the controls are what the class finds
const FORBIDDEN_IN_VALUE = /[\0-\x08\n-\x1f\x7f\u0100-\uffff]/;

/**
 * Returns `url`, or throws a TypeError naming `field` when it holds a
 * control character (U+0000 to U+001F, DEL) anywhere or a space at either
 * end. The URL parser would drop a tab, CR or LF silently (`/a\r\nX-B: 1`
 * goes out as `/aX-B:%201`) and trim the ends, so the URL sent would not be
 * the one given. The message gives the code and index of the character,
 * never the URL: it may carry credentials.
 */
export function validateUrlText(field: string, url: string): string {
  const bad = url.search(FORBIDDEN_IN_URL);
  if (bad !== -1) {
    throw new TypeError(
      `Invalid ${field}: character ${codeName(url.charCodeAt(bad))} at index ${bad} is not allowed`,
    );
  }
  const space = url.startsWith(" ") ? 0 : url.endsWith(" ") ? url.length - 1 : -1;
  if (space !== -1) {
    throw new TypeError(
      `Invalid ${field}: character U+0020 at index ${space} is not allowed at the start or end`,
    );
  }
  return url;
}

/** What a URL cannot carry: the controls U+0000 to U+001F and DEL. */
// deno-lint-ignore no-control-regex -- the controls are what the class finds
const FORBIDDEN_IN_URL = /[\0-\x1f\x7f]/;

/** Validates every entry of a header record (own enumerable keys). */
export function validateHeaders(field: string, headers: unknown): Record<string, string> {
  if (!isPlainRecord(headers)) {
    throw new TypeError(`Invalid ${field}: expected an object of header names to strings`);
  }
  for (const [name, value] of Object.entries(headers)) validateHeader(field, name, value);
  return headers as Record<string, string>;
}

/**
 * A timeout in seconds: a finite number above zero, or a duration string
 * (`"250ms"`); a plain number above 3,600 is refused (see `durationSeconds`).
 */
export function validateTimeout(field: string, given: unknown): number {
  const value = durationSeconds(field, given, "a finite number of seconds above 0");
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    // A number, boolean, null or undefined as it is; anything else by its type, secret-free.
    const got = typeof value === "number" || typeof value === "boolean" || value == null
      ? String(value)
      : describeType(value);
    throw new TypeError(
      `Invalid ${field}: expected a finite number of seconds above 0, got ${got}`,
    );
  }
  return value;
}

/**
 * A timeout that can be turned off: `null`, or a finite number of seconds
 * above zero or a duration string (TypeError otherwise, as
 * {@linkcode validateTimeout}).
 */
export function validateNullableTimeout(field: string, value: unknown): number | null {
  return value === null ? null : validateTimeout(field, value);
}

/** A count such as a retry or redirect limit: a whole number, 0 or more; RangeError otherwise. */
export function validateCount(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`Invalid ${field}: expected a whole number of 0 or more, got ${value}`);
  }
  return value;
}

/**
 * A wait or margin in seconds: a finite number, 0 or more (RangeError
 * otherwise), or a duration string; a plain number above 3,600 is a
 * TypeError (see `durationSeconds`).
 */
export function validateSeconds(field: string, given: unknown): number {
  const value = durationSeconds(field, given, "a finite number of seconds, 0 or more");
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

/**
 * Throws a TypeError naming `field` and the first key of `value` (own or
 * inherited enumerable) that `known` lacks, and listing the known ones: an
 * options object's misspelt key (a JavaScript caller's `{ maxRetry }`) is
 * refused, never dropped silently.
 */
export function checkKnownKeys(field: string, value: unknown, known: ReadonlySet<string>): void {
  if (typeof value !== "object" || value === null) {
    throw new TypeError(`Invalid ${field}: expected an object, got ${describeType(value)}`);
  }
  for (const key in value) {
    if (!known.has(key)) {
      throw new TypeError(
        `Invalid ${field}: unknown key ${JSON.stringify(key)} (known: ${[...known].join(", ")})`,
      );
    }
  }
}

/**
 * The keys of an options type `T`, for {@linkcode checkKnownKeys}: the
 * compiler holds `shape` to every key of `T` and no other, so a new option
 * cannot be left out of the list.
 */
export function keysOf<T>(shape: Record<keyof T, true>): ReadonlySet<string> {
  return new Set(Object.keys(shape));
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

function codeName(code: number): string {
  if (code === 0x0d) return "CR";
  if (code === 0x0a) return "LF";
  if (code === 0x00) return "NUL";
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * `value` when it is an object with one of `methods` (what tells a client of
 * the redis package from one of ioredis), else a TypeError naming `field`.
 */
export function validateRedisClient<T>(field: string, value: T, methods: readonly string[]): T {
  const client = value as Record<string, unknown> | null;
  if (
    typeof client === "object" && client !== null &&
    methods.some((method) => typeof client[method] === "function")
  ) return value;
  throw new TypeError(
    `Invalid ${field}: expected a client of the redis or ioredis package, got ${
      describeType(value)
    }`,
  );
}

/**
 * `value` when it is a positive number (an integer when `integer`), else a
 * TypeError naming `field`.
 */
export function validatePositive(field: string, value: unknown, integer = true): number {
  const valid = typeof value === "number" && value > 0 &&
    (integer ? Number.isSafeInteger(value) : Number.isFinite(value));
  if (valid) return value;
  throw new TypeError(
    `Invalid ${field}: expected a positive ${integer ? "integer" : "number"}, got ${
      typeof value === "number" ? value : describeType(value)
    }`,
  );
}
