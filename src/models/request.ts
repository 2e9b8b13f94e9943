// A request: its method, its fields and the checks its constructor runs on
// them (so the same bad input gets the same TypeError naming the field), and
// the immutable HttpRequest made of them.

import {
  defineRedactedInspect,
  jsonView,
  MASK,
  maskDeepForView,
  maskFieldsForView,
  maskHeadersForView,
  maskParamsForView,
  redactUrl,
} from "../masking/views.ts";
import type { CredentialNames } from "../masking/credentials.ts";
import {
  checkKnownKeys,
  describeType,
  isPlainRecord,
  keysOf,
  validateHeaders,
  validateNullableTimeout,
  validateUrlText,
  validateUsername,
} from "./_validate.ts";
import type { Duration } from "./duration.ts";
import type { FileValue, FormValue, QueryScalar, QueryValue } from "../http/url.ts";
import { describeRawBody, type RequestBody } from "../http/raw_body.ts";
import { type JsonStyle, serializeJson } from "../json/serialize_json.ts";
import { mergeHeaders } from "../http/headers.ts";
import { curlCommand } from "../curl/curl.ts";

export type { FileValue, FormValue, QueryScalar, QueryValue, RequestBody };

/**
 * The HTTP methods the client sends. A member is its own value
 * (`HttpMethod.GET === "GET"`). `QUERY` (RFC 10008) is a safe, idempotent
 * method with a body: a GET whose query is too large or too structured for
 * the URL. It is retried like GET, and a 301 or 302 keeps it and its body
 * (a 303 turns it into a GET, as every method but HEAD).
 *
 * @example Use a member or its string
 * ```ts
 * import { HttpMethod, HttpRequest } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * assert.equal(HttpMethod.POST, "POST");
 * assert.equal(new HttpRequest("post", "http://127.0.0.1/").method, HttpMethod.POST);
 * ```
 */
export const HttpMethod = {
  GET: "GET",
  POST: "POST",
  PUT: "PUT",
  PATCH: "PATCH",
  DELETE: "DELETE",
  HEAD: "HEAD",
  OPTIONS: "OPTIONS",
  QUERY: "QUERY",
} as const;

/**
 * One of the method names: `"GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS" | "QUERY"`.
 *
 * @example Type a method
 * ```ts
 * import type { HttpMethod } from "@fetchline/fetchline";
 *
 * const method: HttpMethod = "DELETE";
 * ```
 */
export type HttpMethod = typeof HttpMethod[keyof typeof HttpMethod];

const METHODS: ReadonlySet<string> = new Set(Object.values(HttpMethod));

/**
 * Reads a method name in any letter case; anything else is a TypeError.
 *
 * @param value The name given by the user.
 * @returns The upper-case member.
 */
export function parseMethod(value: unknown): HttpMethod {
  const upper = typeof value === "string" ? value.toUpperCase() : undefined;
  if (upper === undefined || !METHODS.has(upper)) {
    const shown = typeof value === "string" ? JSON.stringify(value) : typeof value;
    throw new TypeError(
      `Invalid method: expected one of ${[...METHODS].join(", ")}, got ${shown}`,
    );
  }
  return upper as HttpMethod;
}

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
   * The timeout of one attempt in seconds or with its unit (`"250ms"`),
   * overriding the client's for this request: `null` turns it off,
   * `undefined` (not given) keeps the client's.
   */
  timeout?: number | Duration | null | undefined;
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
export const REQUEST_INIT_KEYS: ReadonlySet<string> = keysOf<HttpRequestInit>({
  headers: true,
  params: true,
  data: true,
  jsonData: true,
  files: true,
  body: true,
  timeout: true,
  auth: true,
});

/**
 * The keys of {@linkcode HttpRequest.with}'s changes and of the constructor's
 * init: the init's, and the method and URL (so a `toObject()` result is an
 * init; the constructor's arguments win over its `method` and `url`).
 */
const REQUEST_FIELD_KEYS: ReadonlySet<string> = new Set([
  ...REQUEST_INIT_KEYS,
  "method",
  "url",
]);

/** A URL given as a string or `URL`, as text with no control character nor a space at either end. */
function checkUrl(url: unknown): string {
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
function checkBody(method: HttpMethod, init: HttpRequestInit): void {
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
function checkRawBody(body: unknown): RequestBody {
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

/** A frozen copy of `value`, a plain object each of whose values `ok` accepts; else a TypeError naming the key. */
function checkEntries<T>(
  field: string,
  value: unknown,
  ok: (item: unknown) => boolean,
  expected: string,
): Readonly<Record<string, T>> {
  if (!isPlainRecord(value)) {
    throw new TypeError(`Invalid ${field}: expected a plain object, got ${describeType(value)}`);
  }
  const copy = { ...value };
  for (const [key, item] of Object.entries(copy)) {
    if (!ok(item)) {
      throw new TypeError(
        `Invalid ${field}.${key}: expected ${expected}, got ${describeType(item)}`,
      );
    }
    // A params array is copied and frozen too.
    if (Array.isArray(item)) copy[key] = Object.freeze([...item]);
  }
  return Object.freeze(copy as Record<string, T>);
}

const isFormValue = (value: unknown) => ["string", "number", "boolean"].includes(typeof value);
const isQueryScalar = (value: unknown) => value == null || isFormValue(value);
const isQueryValue = (value: unknown) =>
  Array.isArray(value) ? value.every(isQueryScalar) : isQueryScalar(value);
const isFileValue = (value: unknown) =>
  value instanceof Blob || value instanceof Uint8Array ||
  (typeof value === "string" && value !== "");

/** A copy of Basic credentials: two strings, the username non-empty and without `:`. */
function checkAuth(auth: unknown): readonly [string, string] {
  if (
    !Array.isArray(auth) || auth.length !== 2 || !auth.every((part) => typeof part === "string")
  ) {
    throw new TypeError("Invalid auth: expected [username, password] as two strings");
  }
  const [username, password] = auth as [string, string];
  return [validateUsername("auth", username), password];
}

/** The style of a request's JSON text (the private field's reader, set by the class). */
let jsonStyleOf: (request: HttpRequest) => JsonStyle;

/**
 * Binds to `request` the credential names of the client sending it (the
 * send path does, for the requests a call hands back): its views mask them.
 */
export let bindRequestCredentials: (
  request: HttpRequest,
  names: CredentialNames | undefined,
) => void;

/** The credential names bound to `request`, if any. */
export let credentialsOf: (request: HttpRequest) => CredentialNames | undefined;

/**
 * An immutable HTTP request. The instance and its `headers`, `params`,
 * `data`, `files` and `auth` are frozen; changed copies come from
 * {@linkcode HttpRequest.withHeaders} and {@linkcode HttpRequest.with}.
 *
 * Bad input throws a `TypeError` naming the field: an unknown method or init
 * key, a bad URL, two bodies, a bad timeout, a JSON body with a `BigInt`, a
 * cycle or `NaN`, a header HTTP forbids, a body on GET or HEAD. `jsonData` is
 * serialized once and a `Uint8Array` or `ArrayBuffer` body copied once, here
 * (later changes to what was given are not sent); a `Blob` is kept as it is,
 * a `ReadableStream` read once, when sent.
 *
 * @example Build a request and a changed copy
 * ```ts
 * import { HttpRequest } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("POST", "/users", { jsonData: { name: "Ada" } });
 * const signed = request.withHeaders({ "X-Trace": "1" });
 * assert.equal(request.headers, undefined);
 * assert.deepEqual(signed.headers, { "X-Trace": "1" });
 * assert.throws(() => {
 *   (request as { url: string }).url = "/other";
 * }, TypeError);
 * ```
 */
export class HttpRequest implements HttpRequestFields {
  /** The method, upper-case. */
  readonly method: HttpMethod;
  /** The URL, relative or absolute, as given. */
  readonly url: string;
  /** Request headers, or `undefined` when none were given. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Query parameters. */
  readonly params?: Readonly<Record<string, QueryValue>>;
  /** Form fields. */
  readonly data?: Readonly<Record<string, FormValue>>;
  /** The JSON body as given. */
  readonly jsonData?: unknown;
  /** Files to upload. */
  readonly files?: Readonly<Record<string, FileValue>>;
  /** The raw body: a string, a Blob or a stream as given, bytes as a copy taken here. */
  readonly body?: RequestBody;
  /** The timeout of one attempt in seconds; `null`: none; `undefined`: the client's. */
  readonly timeout?: number | null;
  /** Basic credentials. */
  readonly auth?: readonly [username: string, password: string];
  readonly #jsonText: string | undefined;
  /** How `jsonText` is spaced: the client's `withJsonStyle`, kept by every copy. */
  readonly #jsonStyle: JsonStyle;
  /**
   * The credential names of the client that sends it (its declared and added
   * headers), bound by the send path as a call starts and kept by copies:
   * the views and the logging hooks mask them.
   */
  #credentials: CredentialNames | undefined = undefined;

  static {
    jsonStyleOf = (request) => request.#jsonStyle;
    bindRequestCredentials = (request, names) => {
      request.#credentials = names;
    };
    credentialsOf = (request) => request.#credentials;
  }

  /**
   * Creates a request.
   *
   * @param method A method name in any letter case.
   * @param url A relative or absolute URL.
   * @param init Headers, params, a body, a timeout, credentials.
   */
  // Any name (checked at run time), the union's offered as completions all the same.
  constructor(
    method: HttpMethod | (string & Record<never, never>),
    url: string | URL,
    init?: HttpRequestInit,
  );
  constructor(
    method: HttpMethod | (string & Record<never, never>),
    url: string | URL,
    init: HttpRequestInit = {},
    copy?: typeof COPY,
    source?: HttpRequest,
    checkedHeaders?: Readonly<Record<string, string>>,
    jsonStyle?: JsonStyle,
  ) {
    // Only copyOf() passes COPY: the fields a copy keeps from its source are
    // checked and frozen already, and are taken as they are.
    const from = copy === COPY ? source : undefined;
    // `method` and `url` are let through (and the arguments win), so `toObject()` is an init.
    if (from === undefined) checkKnownKeys("init", init, REQUEST_FIELD_KEYS);
    this.method = from !== undefined && method === from.method ? from.method : parseMethod(method);
    this.url = from !== undefined && url === from.url ? url : checkUrl(url);
    // Each field is read once, so a getter cannot change it after its check.
    const { headers, params, data, jsonData, files, body, timeout, auth } = init;
    const sameBody = from !== undefined && this.method === from.method && body === from.body &&
      data === from.data && jsonData === from.jsonData && files === from.files;
    if (!sameBody) checkBody(this.method, { body, data, jsonData, files });
    if (headers !== undefined) {
      this.headers = from !== undefined && (headers === checkedHeaders || headers === from.headers)
        ? headers
        // Copied before the check, so a getter cannot change a value after it.
        : Object.freeze(
          validateHeaders("headers", isPlainRecord(headers) ? { ...headers } : headers),
        );
    }
    if (params !== undefined) {
      this.params = params === from?.params ? params : checkEntries(
        "params",
        params,
        isQueryValue,
        "a string, number, boolean, null or an array of them",
      );
    }
    if (data !== undefined) {
      this.data = data === from?.data
        ? data
        : checkEntries("data", data, isFormValue, "a string, number or boolean");
    }
    if (files !== undefined) {
      this.files = files === from?.files
        ? files
        : checkEntries("files", files, isFileValue, "a Blob, File, Uint8Array or a file path");
    }
    if (body !== undefined) this.body = body === from?.body ? body : checkRawBody(body);
    if (jsonData !== undefined) this.jsonData = jsonData;
    const style = this.#jsonStyle = jsonStyle ?? (from === undefined ? "python" : from.#jsonStyle);
    if (from !== undefined) this.#credentials = from.#credentials;
    // A copy with the same jsonData and style sends the same bytes: no second serialization.
    this.#jsonText = jsonData === undefined
      ? undefined
      : from !== undefined && jsonData === from.jsonData && style === from.#jsonStyle
      ? from.#jsonText
      : serializeJson(jsonData, "jsonData", style);
    if (timeout !== undefined) {
      // A copy's timeout is in seconds already: one past an hour was given with its unit.
      this.timeout = timeout === from?.timeout
        ? timeout
        : validateNullableTimeout("timeout", timeout);
    }
    if (auth !== undefined) this.auth = auth === from?.auth ? auth : Object.freeze(checkAuth(auth));
    Object.freeze(this);
  }

  /**
   * The JSON text of `jsonData`, from the serializer `toCurl` shares: in
   * Python's style, or `JSON.stringify`'s in a request a client with
   * `withJsonStyle("compact")` sent (and the copies made of it).
   */
  get jsonText(): string | undefined {
    return this.#jsonText;
  }

  /**
   * Returns a new request whose headers are these merged with `headers`,
   * compared without regard to case; the given ones win with their spelling.
   *
   * @param headers Headers to add or override.
   * @returns The new request; this one is unchanged.
   */
  withHeaders(headers: Readonly<Record<string, string>>): HttpRequest {
    // Checked as copied, so a getter cannot change a value after its check.
    const extra = validateHeaders("headers", isPlainRecord(headers) ? { ...headers } : headers);
    const merged = Object.freeze(mergeHeaders(this.headers, extra));
    return copyOf(this, { headers: merged }, merged);
  }

  /**
   * Returns a new request with the given fields replaced; a field given as
   * `undefined` is removed.
   *
   * @param changes The fields to replace.
   * @returns The new request; this one is unchanged.
   */
  with(changes: Partial<HttpRequestFields>): HttpRequest {
    checkKnownKeys("changes", changes, REQUEST_FIELD_KEYS);
    return copyOf(this, changes);
  }

  /**
   * Returns the fields as a plain object with exactly the keys `method, url,
   * headers, params, data, jsonData, files, timeout, auth`, and `body` too
   * on a request that has a raw body.
   *
   * @returns The plain object; unset fields are `undefined`.
   */
  toObject(): HttpRequestFields {
    const { method, url, headers, params, data, jsonData, files, timeout, auth, body } = this;
    const fields = { method, url, headers, params, data, jsonData, files, timeout, auth };
    return body === undefined ? fields : { ...fields, body };
  }

  /** This request as a cURL command, credentials included: {@linkcode toCurl}`(request)` of `utils.ts`. */
  toCurl(): string {
    return curlCommand(this);
  }

  /**
   * A one-line description with no credential: `HttpRequest(GET https://…)`,
   * the URL's user-info and credential-like query values masked (a password
   * as `user:***@`, a user name alone as `***@`, `?access_token=***`).
   *
   * @returns The description.
   */
  toString(): string {
    return `HttpRequest(${this.method} ${redactUrl(this.url)})`;
  }

  /**
   * The masked view `console.log()` shows, for `JSON.stringify()`: the
   * fields of {@linkcode HttpRequest.toObject}, the URL masked as in
   * `toString()`, credential-like headers, params, form fields and JSON keys
   * and `auth` masked, and a raw `body` by its kind and size only.
   *
   * @returns The view; no credential is in it.
   *
   * @example Serialize a request for a log
   * ```ts
   * import { HttpRequest } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const request = new HttpRequest("GET", "http://127.0.0.1/items?page=2&access_token=t0ken", {
   *   headers: { Authorization: "Bearer t0ken", Accept: "application/json" },
   *   params: { api_key: "k3y" },
   * });
   * assert.deepEqual(JSON.parse(JSON.stringify(request)), {
   *   method: "GET",
   *   url: "http://127.0.0.1/items?page=2&access_token=***",
   *   headers: { Authorization: "***", Accept: "application/json" },
   *   params: { api_key: "***" },
   * });
   * ```
   */
  toJSON(): Record<string, unknown> {
    return jsonView(this);
  }
}

defineRedactedInspect(HttpRequest, (request) => ({
  ...request.toObject(),
  url: redactUrl(request.url),
  headers: request.headers && maskHeadersForView(request.headers, credentialsOf(request)),
  params: request.params && maskParamsForView(request.params),
  data: request.data && maskFieldsForView(request.data),
  jsonData: maskDeepForView(request.jsonData, false),
  // A user name without a password is often a token itself (`https://TOKEN@host`).
  auth: request.auth && [request.auth[1] === "" ? MASK : request.auth[0], MASK],
  ...(request.body !== undefined && { body: describeRawBody(request.body) }),
}));

/**
 * Renders a request as a cURL command that replays it: the same method,
 * URL, headers and body bytes the client sends (the JSON text from the
 * client's own serializer). `curl -X '<METHOD>'`, the headers (`-H 'Name:
 * value'`, and the Content-Type the client adds to a JSON or raw body),
 * `-u 'user:pass'`, the body (`--data` for JSON and forms, `-F
 * 'field=@path'` per file beside `--form-string 'k=v'` fields,
 * `--data-raw` for a text body), `--max-time <seconds>` and the URL with
 * its params last, joined by a backslash, a newline and two spaces.
 *
 * Every value is single-quoted, and none can be reinterpreted by curl's own
 * syntax (no `@file` read, no `;type=` slipped into `-F`, `-` as `./-`,
 * `--globoff` for a URL with `[ ] { }`, `--head` for HEAD). A raw body that
 * is not text (bytes that are not UTF-8, a Blob, a stream, text with NUL)
 * is rendered `--data-binary @-`, read from standard input, never other
 * bytes; file contents, session cookies and TLS settings are not included.
 * docs/requests.md, "A request as a cURL command", gives every rule and limitation.
 *
 * @param request The request.
 * @returns The command.
 * @throws {TypeError} For a value holding NUL (no shell argument can), or a
 * multipart field name that is empty or holds `=` (curl cannot send it),
 * naming the field.
 *
 * @example Render a JSON request
 * ```ts
 * import { HttpRequest } from "@fetchline/fetchline";
 * import { toCurl } from "@fetchline/fetchline/utils";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("POST", "https://api.example.com/users", {
 *   jsonData: { name: "O'Brien" },
 *   timeout: 30,
 * });
 * assert.equal(
 *   toCurl(request),
 *   [
 *     "curl -X 'POST'",
 *     "-H 'Content-Type: application/json'",
 *     `--data '{"name": "O'"'"'Brien"}'`,
 *     "--max-time 30.0",
 *     "'https://api.example.com/users'",
 *   ].join(" \\\n  "),
 * );
 * assert.equal(request.toCurl(), toCurl(request));
 * ```
 */
export function toCurl(request: HttpRequest): string {
  return curlCommand(request);
}

/** The constructor's hidden arguments: a request copies only by copyOf(). */
const COPY: unique symbol = Symbol("copy");
const HttpRequestCopy = HttpRequest as new (
  method: HttpMethod,
  url: string,
  init: HttpRequestInit,
  copy: typeof COPY,
  from: HttpRequest,
  checkedHeaders: Readonly<Record<string, string>> | undefined,
  jsonStyle?: JsonStyle,
) => HttpRequest;

/**
 * `from` with `changes` over its fields (one given as `undefined` is
 * removed), `changes` read once; the fields still identical to `from`'s,
 * and `checkedHeaders` (a frozen record checked already), are not checked again.
 */
function copyOf(
  from: HttpRequest,
  changes: Partial<HttpRequestFields>,
  checkedHeaders?: Readonly<Record<string, string>>,
  jsonStyle?: JsonStyle,
): HttpRequest {
  const init = { ...from.toObject(), ...changes };
  const { method = from.method, url = from.url } = init;
  return new HttpRequestCopy(method, url, init, COPY, from, checkedHeaders, jsonStyle);
}

/**
 * `request` whose JSON body is written in `style`, as are those of the
 * copies made of it (`with()`, `withHeaders()`): the request itself when it
 * is already. How a client's `withJsonStyle` reaches the bytes it sends and
 * the `toCurl()` of the request it sent.
 */
export function inJsonStyle(request: HttpRequest, style: JsonStyle): HttpRequest {
  return jsonStyleOf(request) === style ? request : copyOf(request, {}, undefined, style);
}

/**
 * `request.withHeaders({ [name]: value })` for a header the caller has
 * checked already (a hook's own name, and a value it made or checked when
 * it was given): the same request, without checking the header again.
 */
export function withCheckedHeader(request: HttpRequest, name: string, value: string): HttpRequest {
  const merged = Object.freeze(mergeHeaders(request.headers, { [name]: value }));
  return copyOf(request, { headers: merged }, merged);
}
