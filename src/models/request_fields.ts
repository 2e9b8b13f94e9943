// The fields of a request and the checks its constructor runs on them, so the
// same bad input gets the same TypeError naming the field.

import type { HttpMethod } from "./http_method.ts";
import { describeType, isPlainRecord, validateUrlText, validateUsername } from "./_validate.ts";
import type { QueryScalar, QueryValue } from "../http/url.ts";
import type { FormValue } from "../http/form.ts";

export type { FormValue, QueryScalar, QueryValue };

/**
 * A file to upload: a `Blob` or `File`, raw bytes, or a path on disk
 * (read when the request is sent).
 */
export type FileValue = Blob | Uint8Array | string;

/** The optional fields of an {@linkcode HttpRequest}. */
export interface HttpRequestInit {
  /** Request headers; names are sent as given, compared without regard to case. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Query parameters, appended to the URL in insertion order. */
  params?: Readonly<Record<string, QueryValue>> | undefined;
  /** A form body (`application/x-www-form-urlencoded`), or form fields beside `files`. */
  data?: Readonly<Record<string, FormValue>> | undefined;
  /** A JSON body: any JSON-serializable value. */
  jsonData?: unknown;
  /** Files for a `multipart/form-data` body. */
  files?: Readonly<Record<string, FileValue>> | undefined;
  /**
   * The timeout of one attempt in seconds, overriding the client's for this
   * request: `null` turns it off, `undefined` (not given) keeps the client's.
   */
  timeout?: number | null | undefined;
  /** Basic credentials: `[username, password]`. */
  auth?: readonly [username: string, password: string] | undefined;
}

/** Every field of an {@linkcode HttpRequest}, as {@linkcode HttpRequest.toObject} returns them. */
export interface HttpRequestFields extends HttpRequestInit {
  /** The method. */
  method: HttpMethod;
  /** The URL, relative or absolute. */
  url: string;
}

/** A URL given as a string or `URL`, as text with no control character nor a space at either end. */
export function checkUrl(url: unknown): string {
  if (typeof url !== "string" && !(url instanceof URL)) {
    throw new TypeError(`Invalid url: expected a string or URL, got ${describeType(url)}`);
  }
  return validateUrlText("url", String(url));
}

/**
 * Throws when a body is given twice (`data` and `jsonData`) or on GET or
 * HEAD, which `fetch` cannot send with a body.
 */
export function checkBody(
  method: HttpMethod,
  data: HttpRequestInit["data"],
  jsonData: unknown,
  files: HttpRequestInit["files"],
): void {
  if (data !== undefined && jsonData !== undefined) {
    throw new TypeError("Invalid body: give either data or jsonData, not both");
  }
  if (
    (method === "GET" || method === "HEAD") &&
    (data !== undefined || jsonData !== undefined || files !== undefined)
  ) {
    throw new TypeError(`Invalid body: a ${method} request cannot have data, jsonData or files`);
  }
}

function checkRecord(field: string, value: unknown): Record<string, unknown> {
  if (!isPlainRecord(value)) {
    throw new TypeError(`Invalid ${field}: expected a plain object, got ${describeType(value)}`);
  }
  return { ...value };
}

function isQueryScalar(value: unknown): boolean {
  return value == null || ["string", "number", "boolean"].includes(typeof value);
}

/** A copy of query parameters, each a scalar or an array of them (the arrays copied and frozen). */
export function checkParams(params: unknown): Record<string, QueryValue> {
  const copy = checkRecord("params", params);
  for (const [key, value] of Object.entries(copy)) {
    const ok = Array.isArray(value) ? value.every(isQueryScalar) : isQueryScalar(value);
    if (!ok) {
      throw new TypeError(
        `Invalid params.${key}: expected a string, number, boolean, null or an array of them, got ${
          describeType(value)
        }`,
      );
    }
    if (Array.isArray(value)) copy[key] = Object.freeze([...value]);
  }
  return copy as Record<string, QueryValue>;
}

/** A copy of form fields, each a string, number or boolean. */
export function checkForm(data: unknown): Record<string, FormValue> {
  const copy = checkRecord("data", data);
  for (const [key, value] of Object.entries(copy)) {
    if (!["string", "number", "boolean"].includes(typeof value)) {
      throw new TypeError(
        `Invalid data.${key}: expected a string, number or boolean, got ${describeType(value)}`,
      );
    }
  }
  return copy as Record<string, FormValue>;
}

/** A copy of the files to upload, each a Blob, bytes or a non-empty path. */
export function checkFiles(files: unknown): Record<string, FileValue> {
  const copy = checkRecord("files", files);
  for (const [key, value] of Object.entries(copy)) {
    const ok = value instanceof Blob || value instanceof Uint8Array ||
      (typeof value === "string" && value !== "");
    if (!ok) {
      throw new TypeError(
        `Invalid files.${key}: expected a Blob, File, Uint8Array or a file path, got ${
          describeType(value)
        }`,
      );
    }
  }
  return copy as Record<string, FileValue>;
}

/** A copy of Basic credentials: two strings, the username non-empty and without `:`. */
export function checkAuth(auth: unknown): readonly [string, string] {
  if (
    !Array.isArray(auth) || auth.length !== 2 || !auth.every((part) => typeof part === "string")
  ) {
    throw new TypeError("Invalid auth: expected [username, password] as two strings");
  }
  const [username, password] = auth as [string, string];
  return [validateUsername("auth", username), password];
}
