// The fields of a request and the checks its constructor runs on them, so the
// same bad input gets the same TypeError naming the field.

import type { HttpMethod } from "./http_method.ts";
import { describeType, isPlainRecord, validateUrlText, validateUsername } from "./_validate.ts";
import type { QueryScalar, QueryValue } from "../http/url.ts";
import type { FormValue } from "../http/url.ts";

export type { FormValue, QueryScalar, QueryValue };

/**
 * A file to upload: a `Blob` or `File`, raw bytes, or a path on disk
 * (read when the request is sent).
 */
export type FileValue = Blob | Uint8Array | string;

/**
 * A raw request body, sent as it is. A string, bytes, an `ArrayBuffer` or a
 * `Blob` can be sent again (on a retry, a 401 refresh, a 307 or 308
 * redirect); a `ReadableStream` is read once, as it is sent: a call with one
 * is never retried, and a 307, 308 or 401 that would need it again is
 * returned as the response. Without a Content-Type of its own, the request
 * is sent with `text/plain;charset=UTF-8` for a string, the Blob's `type`
 * when it has one, else `application/octet-stream`.
 *
 * @example Upload a stream and a string
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   async (request) => new Response(`${request.headers.get("content-type")} ${await request.text()}`),
 * );
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * const upload = new Blob(["chunk 1, ", "chunk 2"]).stream();
 * assert.equal((await client.put("/file", { body: upload })).text, "application/octet-stream chunk 1, chunk 2");
 * assert.equal((await client.post("/note", { body: "hi" })).text, "text/plain;charset=UTF-8 hi");
 * ```
 */
export type RequestBody = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>;

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
   * A raw body, sent as it is: a string (as UTF-8), bytes, an `ArrayBuffer`,
   * a `Blob`, or a `ReadableStream` of bytes (read once). Bytes are copied
   * when the request is built, so later changes to them are not sent.
   */
  body?: RequestBody | undefined;
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

/**
 * The keys an {@linkcode HttpRequestInit} may have: the one list the
 * constructor checks an init against, so a misspelt key (`bdy`, `json`) is
 * refused instead of dropped. A new field of the init is added here (the
 * compiler holds the list to {@linkcode HttpRequestInit}).
 */
export const REQUEST_INIT_KEYS: ReadonlySet<string> = new Set(
  Object.keys(
    {
      headers: true,
      params: true,
      data: true,
      jsonData: true,
      files: true,
      body: true,
      timeout: true,
      auth: true,
    } as const satisfies Record<keyof HttpRequestInit, true>,
  ),
);

/**
 * The keys of {@linkcode HttpRequest.with}'s changes and of the constructor's
 * init: the init's, and the method and URL (so a `toObject()` result is an
 * init; the constructor's arguments win over its `method` and `url`).
 */
export const REQUEST_FIELD_KEYS: ReadonlySet<string> = new Set([
  ...REQUEST_INIT_KEYS,
  "method",
  "url",
]);

/** A URL given as a string or `URL`, as text with no control character nor a space at either end. */
export function checkUrl(url: unknown): string {
  if (typeof url !== "string" && !(url instanceof URL)) {
    throw new TypeError(`Invalid url: expected a string or URL, got ${describeType(url)}`);
  }
  return validateUrlText("url", String(url));
}

/**
 * Throws when more than one of `body`, `data` and `jsonData` is given, when
 * `files` comes without `data` beside another body, or when a GET or HEAD
 * has a body, which `fetch` cannot send.
 */
export function checkBody(method: HttpMethod, init: HttpRequestInit): void {
  const { body, data, jsonData, files } = init;
  // Every request passes here: the usual one body is told apart with no list built.
  const kind = body !== undefined
    ? "body"
    : data !== undefined
    ? "data"
    : jsonData !== undefined
    ? "jsonData"
    : undefined;
  if (kind === undefined && files === undefined) return;
  const other = kind === "body" && data !== undefined
    ? "data"
    : kind !== "jsonData" && jsonData !== undefined
    ? "jsonData"
    : undefined;
  if (other !== undefined) {
    throw new TypeError(`Invalid body: give either ${kind} or ${other}, not both`);
  }
  if (files !== undefined && kind !== undefined && kind !== "data") {
    throw new TypeError(`Invalid body: files go with data only, not with ${kind}`);
  }
  if (method === "GET" || method === "HEAD") {
    throw new TypeError(
      `Invalid body: a ${method} request cannot have body, data, jsonData or files`,
    );
  }
}

/**
 * The raw body a request keeps: strings, Blobs and streams as given (none
 * can change), bytes and `ArrayBuffer`s copied, so later changes to the
 * caller's memory are not sent (as `fetch` copies them).
 */
export function checkRawBody(body: unknown): RequestBody {
  if (typeof body === "string" || body instanceof Blob || body instanceof ReadableStream) {
    return body;
  }
  if (body instanceof Uint8Array) return new Uint8Array(body);
  if (body instanceof ArrayBuffer) return body.slice(0);
  throw new TypeError(
    `Invalid body: expected a string, Uint8Array, ArrayBuffer, Blob or ReadableStream, got ${
      describeType(body)
    }`,
  );
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
