import { parseMethod } from "./http_method.ts";
import type { HttpMethod } from "./http_method.ts";
import {
  defineRedactedInspect,
  jsonView,
  MASK,
  maskDeepForView,
  maskFieldsForView,
  maskHeadersForView,
  maskParamsForView,
  redactUrl,
} from "./_redact.ts";
import {
  describeType,
  isPlainRecord,
  validateHeaders,
  validateTimeout,
  validateUrlText,
  validateUsername,
} from "./_validate.ts";
import { serializeJson } from "../json/serialize_json.ts";
import { mergeHeaders } from "../http/headers.ts";
import type { QueryScalar, QueryValue } from "../http/url.ts";
import type { FormValue } from "../http/form.ts";

export type { FormValue, QueryScalar, QueryValue };
import { toCurl } from "../curl/to_curl.ts";

/** The request a copy is made from, while HttpRequest's #copy() runs the constructor. */
let copyFrom: HttpRequest | undefined;
/** A frozen, checked header record the copy takes as it is. */
let checkedHeaders: Readonly<Record<string, string>> | undefined;

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
  /** The timeout in seconds, overriding the client's for this request. */
  timeout?: number | undefined;
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
 * An immutable HTTP request. The instance and its `headers`, `params`,
 * `data`, `files` and `auth` are frozen; changed copies come from
 * {@linkcode HttpRequest.withHeaders} and {@linkcode HttpRequest.with}.
 *
 * Bad input throws a `TypeError` naming the field: an unknown method, a URL
 * that is not a string or `URL`, a URL with a control character (CR, LF,
 * tab…) or a space at either end, both `data` and `jsonData`, a timeout that
 * is not a finite number of seconds above 0, a JSON body with a `BigInt`, a
 * cycle or `NaN`, a header name HTTP forbids, a header value with a control
 * character but HTAB or a character above U+00FF, and a body on GET or HEAD
 * (`fetch` cannot send one). `jsonData` is serialized once, here: later
 * changes to the object given are not sent.
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
  /** The timeout in seconds. */
  readonly timeout?: number;
  /** Basic credentials. */
  readonly auth?: readonly [username: string, password: string];
  readonly #jsonText: string | undefined;

  /**
   * Creates a request.
   *
   * @param method A method name in any letter case.
   * @param url A relative or absolute URL.
   * @param init Headers, params, a body, a timeout, credentials.
   */
  constructor(method: HttpMethod | string, url: string | URL, init: HttpRequestInit = {}) {
    // Set by #copy() for the duration of this call only.
    const from = copyFrom;
    const checked = checkedHeaders;
    copyFrom = undefined;
    checkedHeaders = undefined;
    this.method = parseMethod(method);
    if (typeof url !== "string" && !(url instanceof URL)) {
      throw new TypeError(`Invalid url: expected a string or URL, got ${describeType(url)}`);
    }
    // A copy keeps the URL it did not change: checked already.
    this.url = from !== undefined && url === from.url ? url : validateUrlText("url", String(url));
    const { headers, params, data, jsonData, files, timeout, auth } = init;
    if (data !== undefined && jsonData !== undefined) {
      throw new TypeError("Invalid body: give either data or jsonData, not both");
    }
    if (
      (this.method === "GET" || this.method === "HEAD") &&
      (data !== undefined || jsonData !== undefined || files !== undefined)
    ) {
      throw new TypeError(
        `Invalid body: a ${this.method} request cannot have data, jsonData or files`,
      );
    }
    // A copy keeps the fields it did not change as they are: checked and frozen already.
    if (headers !== undefined) {
      this.headers = headers === checked || headers === from?.headers
        ? headers
        : Object.freeze({ ...validateHeaders("headers", headers) });
    }
    if (params !== undefined) {
      this.params = params === from?.params ? params : Object.freeze(checkParams(params));
    }
    if (data !== undefined) this.data = data === from?.data ? data : Object.freeze(checkForm(data));
    if (files !== undefined) {
      this.files = files === from?.files ? files : Object.freeze(checkFiles(files));
    }
    if (jsonData !== undefined) this.jsonData = jsonData;
    // A copy with the same jsonData sends the same bytes: no second serialization.
    this.#jsonText = jsonData === undefined
      ? undefined
      : from !== undefined && jsonData === from.jsonData
      ? from.#jsonText
      : serializeJson(jsonData);
    if (timeout !== undefined) this.timeout = validateTimeout("timeout", timeout);
    if (auth !== undefined) this.auth = auth === from?.auth ? auth : Object.freeze(checkAuth(auth));
    Object.freeze(this);
  }

  /** The JSON text of `jsonData`, from the serializer `toCurl` shares. */
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
    return this.#copy({ headers: merged }, merged);
  }

  /**
   * Returns a new request with the given fields replaced; a field given as
   * `undefined` is removed.
   *
   * @param changes The fields to replace.
   * @returns The new request; this one is unchanged.
   */
  with(changes: Partial<HttpRequestFields>): HttpRequest {
    return this.#copy(changes, undefined);
  }

  /** A copy with `changes`; `headers`, when given, is a frozen record already checked. */
  #copy(
    changes: Partial<HttpRequestFields>,
    headers: Readonly<Record<string, string>> | undefined,
  ): HttpRequest {
    // The constructor reads only the init fields of `merged`.
    const merged = { ...this.toObject(), ...changes };
    copyFrom = this;
    checkedHeaders = headers;
    try {
      return new HttpRequest(merged.method ?? this.method, merged.url ?? this.url, merged);
    } finally {
      copyFrom = undefined;
      checkedHeaders = undefined;
    }
  }

  /**
   * Returns the fields as a plain object with exactly the keys `method, url,
   * headers, params, data, jsonData, files, timeout, auth`.
   *
   * @returns The plain object; unset fields are `undefined`.
   */
  toObject(): HttpRequestFields {
    return {
      method: this.method,
      url: this.url,
      headers: this.headers,
      params: this.params,
      data: this.data,
      jsonData: this.jsonData,
      files: this.files,
      timeout: this.timeout,
      auth: this.auth,
    };
  }

  /**
   * Renders this request as a cURL command; the same string as
   * {@linkcode toCurl}`(request)` from `utils.ts`, with its rules and
   * limitations. The command holds the request's credentials, as asked.
   *
   * @returns The command.
   */
  toCurl(): string {
    return toCurl(this);
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
   * The masked view `console.log()` shows, for `JSON.stringify()`: the fields
   * of {@linkcode HttpRequest.toObject} with the URL masked as in
   * {@linkcode HttpRequest.toString}, credential-like headers, params, form
   * fields and JSON keys masked, the password of `auth` masked (its user name
   * too when the password is empty), and bytes or
   * Blobs shown by their size.
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
  headers: request.headers && maskHeadersForView(request.headers),
  params: request.params && maskParamsForView(request.params),
  data: request.data && maskFieldsForView(request.data),
  jsonData: maskDeepForView(request.jsonData, false),
  // A user name without a password is often a token itself (`https://TOKEN@host`).
  auth: request.auth && [request.auth[1] === "" ? MASK : request.auth[0], MASK],
}));

function checkRecord(field: string, value: unknown): Record<string, unknown> {
  if (!isPlainRecord(value)) {
    throw new TypeError(`Invalid ${field}: expected a plain object, got ${describeType(value)}`);
  }
  return { ...value };
}

function isQueryScalar(value: unknown): boolean {
  return value == null || ["string", "number", "boolean"].includes(typeof value);
}

function checkParams(params: unknown): Record<string, QueryValue> {
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

function checkForm(data: unknown): Record<string, FormValue> {
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

function checkFiles(files: unknown): Record<string, FileValue> {
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

function checkAuth(auth: unknown): readonly [string, string] {
  if (
    !Array.isArray(auth) || auth.length !== 2 || !auth.every((part) => typeof part === "string")
  ) {
    throw new TypeError("Invalid auth: expected [username, password] as two strings");
  }
  const [username, password] = auth as [string, string];
  return [validateUsername("auth", username), password];
}
