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
} from "../masking/views.ts";
import { checkKnownKeys, isPlainRecord } from "./_validate.ts";
import { validateHeaders, validateNullableTimeout } from "./_validate.ts";
import {
  checkAuth,
  checkBody,
  checkFiles,
  checkForm,
  checkParams,
  checkRawBody,
  checkUrl,
  REQUEST_FIELD_KEYS,
} from "./request_fields.ts";
import type {
  FileValue,
  FormValue,
  HttpRequestFields,
  HttpRequestInit,
  QueryValue,
  RequestBody,
} from "./request_fields.ts";
import { describeRawBody } from "../http/raw_body.ts";
import { serializeJson } from "../json/serialize_json.ts";
import { mergeHeaders } from "../http/headers.ts";
import { curlCommand } from "../curl/curl_command.ts";

/** A copy of a request with a header record checked and frozen already ({@linkcode withCheckedHeader}). */
let copyWithHeaders: (from: HttpRequest, headers: Readonly<Record<string, string>>) => HttpRequest;

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

  /**
   * Creates a request.
   *
   * @param method A method name in any letter case.
   * @param url A relative or absolute URL.
   * @param init Headers, params, a body, a timeout, credentials.
   */
  constructor(method: HttpMethod | string, url: string | URL, init: HttpRequestInit = {}) {
    // Only #copy() makes a RequestCopy: the fields it keeps from its source
    // are checked and frozen already, and are taken as they are.
    const copy = init instanceof RequestCopy ? init : undefined;
    const from = copy?.from;
    // `method` and `url` are let through (and the arguments win), so `toObject()` is an init.
    if (copy === undefined) checkKnownKeys("init", init, REQUEST_FIELD_KEYS);
    this.method = from !== undefined && method === from.method ? from.method : parseMethod(method);
    this.url = from !== undefined && url === from.url ? url : checkUrl(url);
    // Each field is read once, so a getter cannot change it after its check.
    const { headers, params, data, jsonData, files, body, timeout, auth } = init;
    const sameBody = from !== undefined && this.method === from.method && body === from.body &&
      data === from.data && jsonData === from.jsonData && files === from.files;
    if (!sameBody) checkBody(this.method, { body, data, jsonData, files });
    if (headers !== undefined) {
      this.headers = headers === copy?.checkedHeaders || headers === from?.headers
        ? headers
        // Copied before the check, so a getter cannot change a value after it.
        : Object.freeze(
          validateHeaders("headers", isPlainRecord(headers) ? { ...headers } : headers),
        );
    }
    if (params !== undefined) {
      this.params = params === from?.params ? params : Object.freeze(checkParams(params));
    }
    if (data !== undefined) this.data = data === from?.data ? data : Object.freeze(checkForm(data));
    if (files !== undefined) {
      this.files = files === from?.files ? files : Object.freeze(checkFiles(files));
    }
    if (body !== undefined) this.body = body === from?.body ? body : checkRawBody(body);
    if (jsonData !== undefined) this.jsonData = jsonData;
    // A copy with the same jsonData sends the same bytes: no second serialization.
    this.#jsonText = jsonData === undefined
      ? undefined
      : from !== undefined && jsonData === from.jsonData
      ? from.#jsonText
      : serializeJson(jsonData);
    if (timeout !== undefined) this.timeout = validateNullableTimeout("timeout", timeout);
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
    checkKnownKeys("changes", changes, REQUEST_FIELD_KEYS);
    return this.#copy(changes, undefined);
  }

  static {
    copyWithHeaders = (request, headers) => request.#copy({ headers }, headers);
  }

  /** A copy with `changes`; `headers`, when given, is a frozen record already checked. */
  #copy(
    changes: Partial<HttpRequestFields>,
    headers: Readonly<Record<string, string>> | undefined,
  ): HttpRequest {
    const copy = new RequestCopy(this, changes, headers);
    return new HttpRequest(copy.method ?? this.method, copy.url ?? this.url, copy);
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
  headers: request.headers && maskHeadersForView(request.headers),
  params: request.params && maskParamsForView(request.params),
  data: request.data && maskFieldsForView(request.data),
  jsonData: maskDeepForView(request.jsonData, false),
  // A user name without a password is often a token itself (`https://TOKEN@host`).
  auth: request.auth && [request.auth[1] === "" ? MASK : request.auth[0], MASK],
  ...(request.body !== undefined && { body: describeRawBody(request.body) }),
}));

/**
 * `request.withHeaders({ [name]: value })` for a header the caller has
 * checked already (a hook's own name, and a value it made or checked when
 * it was given): the same request, without checking the header again.
 */
export function withCheckedHeader(request: HttpRequest, name: string, value: string): HttpRequest {
  const merged = Object.freeze(mergeHeaders(request.headers, { [name]: value }));
  return copyWithHeaders(request, merged);
}

/**
 * The init of a copy made by `with()` or `withHeaders()`: the fields of
 * `from` with `changes` over them. The constructor takes those still
 * identical to `from`'s, and `checkedHeaders`, without checking them again.
 * Private to this module: no caller outside it can make a check skipped.
 */
class RequestCopy implements HttpRequestInit {
  // Undefined only when `changes` gives them as undefined: the copy keeps them.
  method: HttpMethod | undefined;
  url: string | undefined;
  headers: Readonly<Record<string, string>> | undefined;
  params: Readonly<Record<string, QueryValue>> | undefined;
  data: Readonly<Record<string, FormValue>> | undefined;
  jsonData: unknown;
  files: Readonly<Record<string, FileValue>> | undefined;
  body: RequestBody | undefined;
  timeout: number | null | undefined;
  auth: readonly [username: string, password: string] | undefined;

  constructor(
    readonly from: HttpRequest,
    changes: Partial<HttpRequestFields>,
    readonly checkedHeaders: Readonly<Record<string, string>> | undefined,
  ) {
    // One read of `changes` (own enumerable keys, as a spread; a field given
    // as undefined is removed), and only the fields of a request taken from
    // it, over those of `from`: `from` and `checkedHeaders` come from this
    // module alone.
    const given: Record<string, unknown> = { ...changes };
    const [fields, source] = [this, from] as unknown as Record<string, unknown>[];
    for (const key of REQUEST_FIELD_KEYS) {
      fields![key] = Object.hasOwn(given, key) ? given[key] : source![key];
    }
  }
}
