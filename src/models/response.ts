// A response and every exception that carries one (ResponseException,
// HttpStatusException, ResponseParseException, EventStreamException): a
// response names them and they name it, so they are here, not in
// ../errors.ts, which stays below the models. Also: the unread body a
// streamed response holds (made by the send path), and json(schema) with
// the Standard Schema interface as types only (no validator library needed),
// and the typed streams of lines(schema) and events(schema).

import {
  describeCall,
  HttpClientException,
  type HttpClientExceptionOptions,
  ResponseNotReadException,
} from "../errors.ts";
import {
  defineRedactedInspect,
  hideCauseText,
  jsonView,
  maskHeadersForView,
  maskSecretsIn,
  redactUrl,
  sentSecrets,
} from "../masking/views.ts";
import { errorReason, MAX_REASON_BODY, type ProblemDetails } from "../http/problem.ts";
import { checkKnownKeys, describeType, keysOf, validateHeaders } from "./_validate.ts";
import { bindRequestCredentials, credentialsOf, type HttpRequest } from "./request.ts";
import type { CredentialNames } from "../masking/credentials.ts";
import { ExchangeClock, givenTimings, type ResponseTimings } from "./timings.ts";
import type { LineLimit, ServerSentEvent } from "../http/text_stream.ts";
import {
  headerValuesOf,
  type JoinedHeaders,
  keepSetCookieLines,
  mediaType,
  SET_COOKIE_LINES,
  type WireHeaders,
} from "../http/headers.ts";

/**
 * A validator that follows the Standard Schema specification, version 1:
 * zod, valibot, arktype and others implement it under the `~standard` key.
 * {@linkcode HttpResponse.json} accepts one and returns its output type.
 *
 * @typeParam Input The type the validator accepts.
 * @typeParam Output The type of a validated value.
 *
 * @example A hand-written validator
 * ```ts
 * import type { StandardSchemaV1 } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const positive: StandardSchemaV1<unknown, number> = {
 *   "~standard": {
 *     version: 1,
 *     vendor: "example",
 *     validate: (value) =>
 *       typeof value === "number" && value > 0
 *         ? { value }
 *         : { issues: [{ message: "Expected a positive number" }] },
 *   },
 * };
 * assert.deepEqual(positive["~standard"].validate(3), { value: 3 });
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The validator's properties. */
  readonly "~standard": {
    /** The version of the specification: 1. */
    readonly version: 1;
    /** The library the validator comes from (`"zod"`, `"valibot"`). */
    readonly vendor: string;
    /** Validates a value; an asynchronous validator returns a promise. */
    readonly validate: (
      value: unknown,
    ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    /** The input and output types, for inference only (never present at run time). */
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/**
 * What a {@linkcode StandardSchemaV1} validator returns: the validated value,
 * or the issues found.
 *
 * @typeParam Output The type of a validated value.
 *
 * @example Tell success from failure
 * ```ts
 * import type { StandardSchemaResult } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const result: StandardSchemaResult<number> = { issues: [{ message: "Required", path: ["id"] }] };
 * assert.equal(result.issues?.length, 1);
 * ```
 */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardSchemaIssue[] };

/**
 * One problem a {@linkcode StandardSchemaV1} validator found: what is wrong,
 * and where (a path of keys, each a key or a `{ key }` segment).
 *
 * @example An issue at `items[0].id`
 * ```ts
 * import type { StandardSchemaIssue } from "@fetchline/fetchline";
 *
 * const issue: StandardSchemaIssue = { message: "Expected a number", path: ["items", 0, { key: "id" }] };
 * ```
 */
export interface StandardSchemaIssue {
  /** What is wrong. */
  readonly message: string;
  /** Where, from the root of the value. */
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** The fields of an {@linkcode HttpResponse}. */
export interface HttpResponseInit {
  /** The HTTP status code. */
  statusCode: number;
  /** Response headers: a record or a `Headers`; stored with lower-case names. */
  headers: Readonly<Record<string, string>> | Headers;
  /** The raw body. */
  content: Uint8Array;
  /** How long the exchange took, in milliseconds. */
  elapsedMs: number;
  /** The final URL, after redirects. */
  url: string;
  /** The request as sent (after hooks, with an absolute URL). */
  request: HttpRequest;
  /** The body's encoding, overriding the Content-Type charset. */
  encoding?: string | undefined;
  /**
   * Where the exchange's time went (checked, frozen); without it, `waitMs`
   * and `totalMs` are `elapsedMs`.
   */
  timings?: ResponseTimings | undefined;
}

const INIT_KEYS = keysOf<HttpResponseInit>({
  statusCode: true,
  headers: true,
  content: true,
  elapsedMs: true,
  url: true,
  request: true,
  encoding: true,
  timings: true,
});

/**
 * The constructor's hidden second argument, passed only by
 * receivedResponse() and streamedResponse(): a transport's headers are
 * immutable or held by nothing else, so they need no copy until read.
 */
const RECEIVED: unique symbol = Symbol("received");

/**
 * `headers` as a record with lower-case names, repeated names joined with
 * ", ", several Set-Cookie lines also kept apart (for `headerValues()`).
 */
function lowerCaseHeaders(headers: Readonly<JoinedHeaders> | Headers): JoinedHeaders {
  const lower: JoinedHeaders = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  let lines = headers instanceof Headers ? undefined : headers[SET_COOKIE_LINES];
  let cookieLines: string[] | undefined;
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    if (key === "set-cookie") (cookieLines ??= []).push(value);
    lower[key] = key in lower ? `${lower[key]}, ${value}` : value;
  }
  if (lines === undefined && cookieLines !== undefined && cookieLines.length > 1) {
    lines = cookieLines;
  }
  if (lines !== undefined) keepSetCookieLines(lower, lines);
  return lower;
}

const UTF8 = new TextDecoder();

/** A decoder for `label`; UTF-8's is made once, as nearly every body needs it. */
function decoderFor(label: string | undefined): TextDecoder {
  if (label === undefined || /^utf-?8$/i.test(label)) return UTF8;
  try {
    return new TextDecoder(label);
  } catch {
    return UTF8;
  }
}

/** The body's charset: `encoding`, else the Content-Type's, if any. */
function charsetOf(response: HttpResponse): string | undefined {
  return response.encoding ??
    response.header("content-type")?.match(/;\s*charset\s*=\s*"?([^";\s]+)"?/i)?.[1];
}

/** How many issue paths a message names; the rest are counted. */
const SHOWN_PATHS = 3;

/**
 * `value` validated by `schema`, a Standard Schema (else a TypeError naming
 * what it is): its output, or its issues. The body is in memory, so
 * validation is synchronous: a validator that returns a promise is a
 * TypeError naming its vendor, not a promise the caller might not await.
 */
function validateSync(
  schema: unknown,
  value: () => unknown,
): { issues?: readonly StandardSchemaIssue[]; value?: unknown } {
  const validator = standardValidator(schema);
  const result = validator.validate(value());
  if (typeof (result as Partial<PromiseLike<unknown>>).then === "function") {
    // Nobody awaits it: its rejection must not go unhandled.
    (result as PromiseLike<unknown>).then(undefined, () => {});
    throw new TypeError(
      `Invalid schema: the ${validator.vendor} validator is asynchronous, and json(schema) validates synchronously; validate response.json() with the validator's own async call instead`,
    );
  }
  return result as { issues?: readonly StandardSchemaIssue[]; value?: unknown };
}

/** The `~standard` part of `schema`, a Standard Schema validator; a TypeError naming what it is otherwise. */
function standardValidator(schema: unknown): StandardSchemaV1["~standard"] {
  const validator = (schema as Partial<StandardSchemaV1> | null | undefined)?.["~standard"];
  if (validator?.version !== 1 || typeof validator.validate !== "function") {
    throw new TypeError(
      `Invalid schema: expected a Standard Schema validator (version 1 under "~standard"), got ${
        describeType(schema)
      }`,
    );
  }
  return validator;
}

/** `2 issues: user.email, items[0].id`: the count, and the first paths (never the values). */
function describeIssues(issues: readonly StandardSchemaIssue[]): string {
  const paths = issues.slice(0, SHOWN_PATHS).map((issue) => pathOf(issue.path ?? []));
  const more = issues.length > SHOWN_PATHS ? `, ${issues.length - SHOWN_PATHS} more` : "";
  const count = issues.length === 1 ? "1 issue" : `${issues.length} issues`;
  return `${count}: ${paths.join(", ")}${more}`;
}

/** A path as code would read it: `items[0].id`, `["odd key"]`; the root is `(root)`. */
function pathOf(path: readonly (PropertyKey | { readonly key: PropertyKey })[]): string {
  let text = "";
  for (const segment of path) {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment;
    if (typeof key === "number") text += `[${key}]`;
    else if (typeof key === "symbol") text += `[${String(key)}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) text += text === "" ? key : `.${key}`;
    else text += `[${JSON.stringify(key)}]`;
  }
  return text === "" ? "(root)" : text;
}

/** The body of a streamed response, until it is read, cancelled or fails. */
export interface StreamedBody {
  /** The decoded body as it arrives; throws once it was taken, read or cancelled. */
  take(): ReadableStream<Uint8Array>;
  /** The whole body under the client's limit, as a buffered response (the same one each time). */
  read(): Promise<HttpResponse>;
  /**
   * Cancels the body, unless it was already read to its end; gives the
   * connection back. A read waiting on the taken stream ends at once.
   */
  cancel(): Promise<void>;
  /** The client's limit of a buffered read, also that of a line of `lines()` and `events()`. */
  readonly maxResponseBytes: number;
  /**
   * The whole body when it was read with the head (a small error body, for
   * the reason `raiseForStatus()` quotes), else `undefined`; `take()` and
   * `read()` still give it.
   */
  held?(): Uint8Array | undefined;
  /**
   * Calls `listener` once, when the body is done (read to its end,
   * cancelled or failed): the client's count of calls in flight and the
   * exchange's end wait for it. False, calling nothing, when it is done
   * already or tells no end (a body in memory).
   */
  whenSettled?(listener: () => void): boolean;
  /** The body this one passes on, when it wraps another (an observed one): the two are one body. */
  readonly source?: StreamedBody | undefined;
}

/** The unread bodies of streamed responses (a buffered response is never in it). */
const STREAMED: WeakMap<HttpResponse, StreamedBody> = new WeakMap();

/** The unread body of a streamed `response` (for middleware that wraps it), or `undefined`. */
export function streamedBodyOf(response: HttpResponse): StreamedBody | undefined {
  return STREAMED.get(response);
}

/** The bodies of streamed responses that `read()` buffered, by response. */
const READ: WeakMap<HttpResponse, Uint8Array> = new WeakMap();

/** The `content` getter of a streamed response: the body once `read()` resolved, else it throws. */
function streamedContent(this: HttpResponse): Uint8Array {
  const content = READ.get(this);
  if (content !== undefined) return content;
  throw new ResponseNotReadException(
    `Response body was not read (call read() first): ${describeCall(this.request, this.url)}`,
    { request: this.request },
  );
}

/**
 * The streams whose end was not the body's: a `cancel()` of the response
 * closed them while a read waited (send/body.ts adds them). Their text
 * stops mid-way, so `lines()` drops an unfinished last line rather than
 * yield it as if it were whole.
 */
export const CUT_SHORT: WeakSet<ReadableStream<Uint8Array>> = new WeakSet();

/**
 * The generator `make` makes of http/text_stream.ts, which loads when the
 * loop first asks: only `lines()` and `events()` need it, and its 194 lines
 * of code are not among what `import` of mod.ts loads.
 */
async function* textStream<T>(
  make: (text: typeof import("../http/text_stream.ts")) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  yield* make(await import("../http/text_stream.ts"));
}

/**
 * The limit of a line of `lines()` and of a line or an event's data of
 * `events()` of `response`, in characters: a streamed body's
 * `maxResponseBytes` (a character is at least a byte), else the longest
 * string (a buffered body is whole in memory already).
 */
export function lineLimit(response: HttpResponse): LineLimit {
  const max = STREAMED.get(response)?.maxResponseBytes ?? Infinity;
  return {
    max,
    tooLong(what, longestString) {
      const { request } = response;
      const target = describeCall(request, response.url);
      const message = longestString
        ? `${what} of the response body is longer than a string can hold: ${target} ` +
          "(read response.body instead)"
        : `${what} of the response body exceeds maxResponseBytes (${max}) characters: ` +
          `${target} (read response.body instead, or raise withMaxResponseBytes)`;
      return new HttpClientException(message, { request });
    },
  };
}

/**
 * What `response.context` shows of the call that produced a response: its
 * `RequestContext` read-only, frozen (its `metadata` a frozen copy), so
 * what the hooks stored (`rateLimitRemaining`, `requestId`,
 * `correlationId`…) reaches the caller.
 *
 * @example Read what a hook stored
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder, RateLimitResponseHook } from "@fetchline/fetchline";
 * import type { ResponseContext } from "@fetchline/fetchline";
 *
 * async function remaining(url: string): Promise<unknown> {
 *   const config = new HttpClientConfigBuilder().withResponseHook(new RateLimitResponseHook()).build();
 *   await using client = new HttpClient(config);
 *   const context: ResponseContext | undefined = (await client.get(url)).context;
 *   return context?.metadata.rateLimitRemaining;
 * }
 * ```
 */
export interface ResponseContext {
  /** The request of the call's last attempt, as the request hooks made it. */
  readonly request: HttpRequest;
  /** The attempt that produced the response, from 0. */
  readonly attempt: number;
  /** The retry limit the call had. */
  readonly maxRetries: number;
  /** True when the response came from a retry. */
  readonly isRetry: boolean;
  /** What the call's hooks stored, a frozen copy. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The call a response came from: its context, and the credential headers its client declares. */
interface ResponseCall {
  readonly context: ResponseContext;
  readonly credentialHeaders: CredentialNames | undefined;
}

/**
 * Binds the call that returns `response` to it (the send path does, as the
 * call ends): `response.context` reads it, and the message of
 * `raiseForStatus()` masks the credentials the call declares.
 */
export let bindResponseContext: (
  response: HttpResponse,
  context: ResponseContext,
  credentialHeaders: CredentialNames | undefined,
) => void;

/** The timings `response` holds: its exchange's clock, the ones given, or none. */
let timingsOf: (response: HttpResponse) => ResponseTimings | undefined;

/** The credential names of the call that returned `response`, once bound. */
let callCredentialsOf: (response: HttpResponse) => CredentialNames | undefined;

/** The longest reason of a server that a status message quotes, in characters. */
const MAX_REASON = 200;

/**
 * An immutable HTTP response. It is returned for every received status:
 * check {@linkcode HttpResponse.isSuccess} and its siblings, or
 * `statusCode`.
 *
 * @example Read a response
 * ```ts
 * import { HttpRequest, HttpResponse } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("GET", "http://127.0.0.1/users/9");
 * const headers = { "Content-Type": "application/json" };
 * const content = new TextEncoder().encode('{"error": "not found"}');
 * const response = new HttpResponse({ statusCode: 404, headers, content, elapsedMs: 3.2, url: request.url, request });
 * assert.ok(response.isClientError);
 * assert.equal(response.header("content-type"), "application/json");
 * assert.deepEqual(response.json(), { error: "not found" });
 * ```
 */
export class HttpResponse {
  /** The HTTP status code. */
  readonly statusCode: number;
  /** The raw body. */
  readonly content: Uint8Array;
  /** How long the exchange took, in milliseconds. */
  readonly elapsedMs: number;
  /** The final URL, after redirects. */
  readonly url: string;
  /** The request as sent. */
  readonly request: HttpRequest;
  /** The encoding given, if any. */
  readonly encoding?: string;
  /** The headers as a frozen record with lower-case names, once built. */
  #headers: Readonly<Record<string, string>> | undefined;
  /** A received response's headers, until `headers` first builds the record from them. */
  readonly #received: WireHeaders | undefined;
  /**
   * The call that returned it, bound once the call ends (a private field:
   * the frozen response takes it, and no view shows it).
   */
  #call: ResponseCall | undefined = undefined;
  /** The frozen view of the call's context, made on first read. */
  #context: ResponseContext | undefined = undefined;
  /** True for a streamed copy with other headers ({@linkcode HttpResponse.withHeaders}). */
  #copied = false;
  /** The exchange's clock (a received response), or the timings given, or none yet. */
  readonly #timings: ResponseTimings | undefined;

  static {
    bindResponseContext = (response, context, credentialHeaders) => {
      response.#call = { context, credentialHeaders };
      response.#context = undefined;
      if (credentialHeaders !== undefined) {
        bindRequestCredentials(response.request, credentialHeaders);
      }
    };
    callCredentialsOf = (response) => response.#call?.credentialHeaders;
    timingsOf = (response) => response.#timings;
  }

  /** Creates a response of `init`: the status, headers, body, timing, URL and request. */
  constructor(init: HttpResponseInit);
  constructor(init: HttpResponseInit, origin?: typeof RECEIVED, streamed?: StreamedBody) {
    this.statusCode = init.statusCode;
    if (origin === RECEIVED) this.#received = init.headers;
    else {
      checkKnownKeys("HttpResponse init", init, INIT_KEYS);
      this.#headers = Object.freeze(lowerCaseHeaders(init.headers));
    }
    this.content = init.content;
    this.elapsedMs = init.elapsedMs;
    this.url = init.url;
    this.request = init.request;
    if (init.encoding !== undefined) this.encoding = init.encoding;
    const timings = init.timings;
    this.#timings = origin === RECEIVED || timings instanceof ExchangeClock
      ? timings
      : givenTimings(timings, init.elapsedMs);
    if (streamed !== undefined) {
      STREAMED.set(this, streamed);
      // Not enumerable, so a spread or Object.entries of it does not throw.
      Object.defineProperty(this, "content", { enumerable: false, get: streamedContent });
    }
    Object.freeze(this);
  }

  /**
   * The context of the call that returned this response, read-only: a
   * frozen copy of its `RequestContext` (the metadata its hooks stored,
   * the attempt), made when first read; `undefined` for a response no call
   * returned (one made with `new`, a transport's inside the call). A
   * streamed response, its `read()` and the response of an
   * `HttpStatusException` have it too. No view (`console.log()`,
   * `JSON.stringify()`, `toString()`) shows it: metadata may hold anything.
   */
  get context(): ResponseContext | undefined {
    const call = this.#call;
    if (call === undefined) return undefined;
    if (this.#context !== undefined) return this.#context;
    const { request, attempt, maxRetries, metadata } = call.context;
    return this.#context = Object.freeze({
      request,
      attempt,
      maxRetries,
      isRetry: attempt > 0,
      metadata: Object.freeze({ ...metadata }),
    });
  }

  /**
   * Where the exchange that produced this response spent its time, in
   * milliseconds, frozen ({@linkcode ResponseTimings}): a phase the runtime
   * cannot tell is `undefined`. A streamed response's `downloadMs` and
   * `totalMs` come once its body ended.
   */
  get timings(): ResponseTimings {
    const timings = this.#timings;
    if (timings instanceof ExchangeClock) return timings.view();
    return timings ?? givenTimings(undefined, this.elapsedMs);
  }

  /** Response headers, lower-case names, frozen; repeated ones joined with `", "`. */
  get headers(): Readonly<Record<string, string>> {
    return this.#headers ??= Object.freeze(lowerCaseHeaders(this.#received!));
  }

  /**
   * The body decoded with `encoding`, else the Content-Type's charset, else
   * UTF-8 (an unknown label falls back to UTF-8).
   */
  get text(): string {
    return decoderFor(charsetOf(this)).decode(this.content);
  }

  /** True when the status is 200–299. */
  get isSuccess(): boolean {
    return this.statusCode >= 200 && this.statusCode <= 299;
  }

  /** True when the status is 400–499. */
  get isClientError(): boolean {
    return this.statusCode >= 400 && this.statusCode <= 499;
  }

  /** True when the status is 500–599. */
  get isServerError(): boolean {
    return this.statusCode >= 500 && this.statusCode <= 599;
  }

  /** The value of header `name`, without regard to case; `undefined` when absent. */
  header(name: string): string | undefined {
    const lower = name.toLowerCase();
    const received = this.#headers === undefined ? this.#received : undefined;
    if (received === undefined) return this.headers[lower];
    return received instanceof Headers ? received.get(lower) ?? undefined : received[lower];
  }

  /**
   * Every value of header `name` (without regard to case) in the order
   * received, empty when absent: each `Set-Cookie` line on its own (a comma
   * cannot join them); any other header as one value, its repeated lines
   * joined with `", "` as `fetch` gives them.
   */
  headerValues(name: string): string[] {
    return headerValuesOf(this.#headers ?? this.#received!, name.toLowerCase());
  }

  /** Parses the body as JSON (type `T`, not checked); `ResponseParseException`, carrying this response, when it is not JSON. */
  json<T = unknown>(): T;
  /**
   * Parses the body as JSON and validates it with a Standard Schema
   * validator (zod, valibot, arktype…): returns the validator's output,
   * typed from the schema. Validation is synchronous (the body is in
   * memory): a validator that returns a promise is a `TypeError` naming
   * its library, never a promise left unawaited.
   *
   * @typeParam S The validator's type.
   * @param schema A Standard Schema validator.
   * @returns The validator's output.
   * @throws {ResponseParseException} When the body is not valid JSON, or
   * does not match the schema (`issues` then holds the validator's issues,
   * and the message their paths); the exception carries this response.
   *
   * @example Validate a body with zod
   * ```ts
   * import { HttpRequest, HttpResponse } from "@fetchline/fetchline";
   * import { z } from "zod";
   * import assert from "node:assert/strict";
   *
   * const User = z.object({ id: z.number(), name: z.string() });
   * const request = new HttpRequest("GET", "http://127.0.0.1/users/1");
   * const content = new TextEncoder().encode('{"id": 1, "name": "Ada"}');
   * const response = new HttpResponse({ statusCode: 200, headers: {}, content, elapsedMs: 1, url: request.url, request });
   * const user = response.json(User); // typed { id: number; name: string }
   * assert.equal(user.name, "Ada");
   * ```
   */
  json<S extends StandardSchemaV1>(schema: S): NonNullable<S["~standard"]["types"]>["output"];
  json(schema?: StandardSchemaV1): unknown {
    // An explicit `undefined` is a schema that is missing, not "no schema".
    if (arguments.length === 0) return parseJson(this);
    // The schema is checked before the body is parsed: one that is not a schema fails whatever the body.
    const { issues, value } = validateSync(schema, () => parseJson(this));
    if (issues === undefined) return value;
    throw new ResponseParseException(
      `Response body does not match the schema (${describeIssues(issues)}): ${where(this)}`,
      { response: this, issues },
    );
  }

  /**
   * Returns this response when its status is 1xx, 2xx or 3xx, and throws
   * {@linkcode HttpStatusException} (carrying it) for 4xx and 5xx, so one
   * line both checks and reads. The body is left as it is: a streamed one
   * stays unread on `error.response`, to read or cancel. The message quotes
   * the server's reason (masked) from the body: a streamed call reads a
   * 4xx or 5xx body of at most 4 KiB (its Content-Length) with its head, for
   * this; a longer one or one of unknown length gives no reason until `read()`.
   *
   * @returns This response.
   * @throws {HttpStatusException} For a status from 400 to 599.
   *
   * @example Throw on a failed status
   * ```ts
   * import { HttpRequest, HttpResponse, HttpStatusException } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const request = new HttpRequest("GET", "http://127.0.0.1/users/9?token=t0ken");
   * const response = new HttpResponse({
   *   statusCode: 404, headers: {}, content: new Uint8Array(), elapsedMs: 1, url: request.url, request,
   * });
   * assert.throws(() => response.raiseForStatus().json(), (error: unknown) => {
   *   assert.ok(error instanceof HttpStatusException);
   *   assert.equal(error.message, "Client error (status 404): GET http://127.0.0.1/users/9?token=***");
   *   return error.response === response;
   * });
   * ```
   */
  raiseForStatus(): this {
    if (this.statusCode >= 400 && this.statusCode <= 599) {
      const kind = this.statusCode < 500 ? "Client error" : "Server error";
      const { reason, problem } = this.#reason();
      const quoted = reason === undefined ? "" : `, ${JSON.stringify(reason)}`;
      throw new HttpStatusException(
        `${kind} (status ${this.statusCode}${quoted}): ${describeCall(this.request, this.url)}`,
        { response: this, problem },
      );
    }
    return this;
  }

  /**
   * The server's reason for an error status ({@linkcode errorReason}), on
   * one line, masked (credentials in text, and those the call sent) and
   * cut to {@linkcode MAX_REASON} characters; none for a body larger than
   * {@linkcode MAX_REASON_BODY} or a streamed body neither read nor held
   * with its head (it is not read for a message).
   */
  #reason(): { reason?: string | undefined; problem?: ProblemDetails | undefined } {
    // A message is never worth a throw: whatever fails gives no reason.
    try {
      const streamed = STREAMED.get(this);
      const content = streamed === undefined ? this.content : READ.get(this) ?? streamed.held?.();
      if (content === undefined || content.byteLength > MAX_REASON_BODY) return {};
      const text = () => decoderFor(charsetOf(this)).decode(content);
      const { reason, problem } = errorReason(this.header("content-type"), text);
      const line = reason?.replace(/\s+/g, " ").trim();
      if (!line) return { problem };
      const secrets = sentSecrets(this.request, this.#call?.credentialHeaders);
      const masked = maskSecretsIn(line, secrets);
      const cut = masked.length > MAX_REASON ? `${masked.slice(0, MAX_REASON - 1)}…` : masked;
      return { reason: cut, problem };
    } catch {
      return {};
    }
  }

  /** Parses the body as JSON (type `T`, not checked), or returns `undefined` when it is not JSON. */
  jsonOrUndefined<T = unknown>(): T | undefined {
    const { text } = this; // an unread streamed body throws
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }

  /** True for a response of `client.stream()`: its body is read by `read()`, `body`, `lines()` or `events()`. */
  get isStreamed(): boolean {
    return STREAMED.has(this);
  }

  /** The decoded body as it arrives, readable once (a buffered response's: its `content`). */
  get body(): ReadableStream<Uint8Array> {
    const streamed = STREAMED.get(this);
    if (streamed !== undefined) return streamed.take();
    const { content } = this; // each call a new stream
    return new ReadableStream({
      start(controller) {
        if (content.byteLength > 0) controller.enqueue(content);
        controller.close();
      },
    });
  }

  /**
   * Reads a streamed body whole (`maxResponseBytes` applies) into a buffered
   * response; a buffered one gives itself. Once it resolved, this response's
   * `content`, `text` and `json()` give the body too.
   */
  async read(): Promise<HttpResponse> {
    const streamed = STREAMED.get(this);
    if (streamed === undefined) return this;
    let buffered = await streamed.read();
    // A copy with other headers (withHeaders()) reads the same body under its own head.
    if (this.#copied) buffered = receivedResponse({ ...headOf(this), content: buffered.content });
    READ.set(this, buffered.content);
    if (buffered.#call === undefined) buffered.#call = this.#call;
    return buffered;
  }

  /**
   * A copy of this response with `headers` set over its own (names in any
   * letter case; `undefined` removes one): how a middleware changes a head
   * it passes on (the cache adds its `Cache-Status`). A streamed response's
   * copy holds the same unread body: reading or cancelling either reads or
   * cancels it, and its end is the exchange's end as before.
   *
   * @example Add a header to a response
   * ```ts
   * import { HttpRequest, HttpResponse } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const request = new HttpRequest("GET", "http://127.0.0.1/");
   * const response = new HttpResponse({
   *   statusCode: 200, headers: { "Content-Type": "text/plain" },
   *   content: new TextEncoder().encode("hi"), elapsedMs: 1, url: request.url, request,
   * });
   * const tagged = response.withHeaders({ "X-Seen-By": "my-middleware" });
   * assert.equal(tagged.header("x-seen-by"), "my-middleware");
   * assert.equal(tagged.text, "hi");
   * assert.equal(response.header("x-seen-by"), undefined);
   * ```
   */
  withHeaders(headers: Readonly<Record<string, string | undefined>>): HttpResponse {
    if (headers === null || typeof headers !== "object") {
      throw new TypeError(`Invalid headers: expected an object, got ${describeType(headers)}`);
    }
    const merged: Record<string, string> = { ...this.headers };
    const set: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) delete merged[name.toLowerCase()];
      else set[name] = value;
    }
    for (const [name, value] of Object.entries(validateHeaders("headers", set))) {
      merged[name.toLowerCase()] = value;
    }
    const init = { ...headOf(this), headers: merged };
    const streamed = STREAMED.get(this);
    const copy = streamed === undefined
      ? receivedResponse({ ...init, content: this.content })
      : new HttpResponseWithOrigin({ ...init, content: new Uint8Array(0) }, RECEIVED, streamed);
    copy.#copied = streamed !== undefined;
    copy.#call = this.#call;
    return copy;
  }

  /** Cancels an unread streamed body, giving the connection back; nothing for a buffered one. */
  cancel(): Promise<void> {
    return STREAMED.get(this)?.cancel() ?? Promise.resolve();
  }

  /**
   * The body's text lines as they arrive (LF or CRLF, stripped), in its
   * charset; each within `maxResponseBytes` characters.
   *
   * @throws {EventStreamException} At the call, for a status other than
   * 2xx: the error's `response` is this one, its body not taken (read or
   * cancel it).
   */
  lines(): AsyncGenerator<string>;
  /**
   * The body's lines as JSON values checked by a Standard Schema validator
   * (NDJSON, JSON Lines), typed from the schema's output; blank lines are
   * passed over. A line that is not JSON or does not match fails the loop
   * with {@linkcode ResponseParseException} naming its index (from 0, blank
   * lines counted) and carrying the issues, unless `onInvalid: "skip"`.
   * The validator may be asynchronous.
   *
   * @throws {EventStreamException} At the call, for a status other than 2xx.
   * @throws {TypeError} At the call, for bad options.
   *
   * @example Read NDJSON, typed
   * ```ts
   * import { createClient } from "@fetchline/fetchline";
   * import { z } from "zod";
   * import assert from "node:assert/strict";
   *
   * await using server = Deno.serve(
   *   { hostname: "127.0.0.1", port: 0, onListen() {} },
   *   () => new Response('{"id": 1}\n{"id": 2}\n'),
   * );
   * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
   * await using response = await client.stream("GET", "/items");
   * const ids: number[] = [];
   * for await (const item of response.lines({ schema: z.object({ id: z.number() }) })) {
   *   ids.push(item.id);
   * }
   * assert.deepEqual(ids, [1, 2]);
   * ```
   */
  lines<S extends StandardSchemaV1>(options: TypedLinesOptions<S>): AsyncGenerator<SchemaOutput<S>>;
  lines(options?: TypedLinesOptions<StandardSchemaV1>): AsyncGenerator<unknown> {
    const typed = options === undefined ? undefined : typedStreamOptions(options, LINES_KEYS);
    checkTextStream(this, "Line stream");
    const [body, charset, limit] = [this.body, charsetOf(this), lineLimit(this)];
    const source = textStream((text) =>
      text.lines(body, charset, limit, () => !CUT_SHORT.has(body))
    );
    if (typed === undefined) return source;
    return typedItems(this, source, "Line", typed, (line) => line, (_line, value) => value);
  }

  /**
   * The body's Server-Sent Events as they arrive; a line or an event's data
   * within `maxResponseBytes` characters.
   *
   * @throws {EventStreamException} At the call, as `eventSource()`
   * (`@fetchline/fetchline/sse`) refuses a connection: for a status other
   * than 2xx, or a Content-Type other than `text/event-stream` (but on a
   * 204, which yields nothing). The error's
   * `response` is this one, its body not taken (read or cancel it).
   */
  events(options?: EventsOptions): AsyncGenerator<ServerSentEvent>;
  /**
   * The body's Server-Sent Events with their `data` parsed as JSON and
   * checked by a Standard Schema validator, typed from the schema's
   * output. `until` is asked first about each event as received: true ends
   * the loop (an LLM's `data: [DONE]`) and cancels the rest of the body. An
   * event whose data is not JSON or does not match fails the loop with
   * {@linkcode ResponseParseException} naming its index (from 0) and
   * carrying the issues, unless `onInvalid: "skip"`. The validator may be
   * asynchronous.
   *
   * @throws {EventStreamException} At the call, as `events()` does.
   * @throws {TypeError} At the call, for bad options.
   *
   * @example Stream an LLM answer until `[DONE]`
   * ```ts
   * import { createClient } from "@fetchline/fetchline";
   * import { z } from "zod";
   * import assert from "node:assert/strict";
   *
   * const chunks = 'data: {"delta": "Hel"}\n\ndata: {"delta": "lo"}\n\ndata: [DONE]\n\n';
   * await using server = Deno.serve(
   *   { hostname: "127.0.0.1", port: 0, onListen() {} },
   *   () => new Response(chunks, { headers: { "content-type": "text/event-stream" } }),
   * );
   * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
   * await using response = await client.stream("POST", "/chat", { jsonData: { prompt: "Hi" } });
   * const Chunk = z.object({ delta: z.string() });
   * let answer = "";
   * for await (const event of response.events({ schema: Chunk, until: (e) => e.data === "[DONE]" })) {
   *   answer += event.data.delta;
   * }
   * assert.equal(answer, "Hello");
   * ```
   */
  events<S extends StandardSchemaV1>(
    options: TypedEventsOptions<S>,
  ): AsyncGenerator<TypedServerSentEvent<SchemaOutput<S>>>;
  events(
    options?: EventsOptions | TypedEventsOptions<StandardSchemaV1>,
  ): AsyncGenerator<ServerSentEvent | TypedServerSentEvent<unknown>> {
    const typed = options === undefined ? undefined : typedStreamOptions(options, EVENTS_KEYS);
    checkTextStream(this, "Event stream");
    const [body, limit] = [this.body, lineLimit(this)];
    const source = textStream((text) => text.events(body, limit));
    if (typed === undefined) return source;
    return typedItems(
      this,
      source,
      "Event",
      typed,
      (event) => event.data,
      (event, data) => ({ ...event, data }),
    );
  }

  /** Cancels an unread streamed body at the end of an `await using` block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.cancel();
  }

  /** A one-line description: `HttpResponse(200 GET https://…)`. */
  toString(): string {
    return `HttpResponse(${this.statusCode} ${describeCall(this.request, this.url)})`;
  }

  /**
   * The masked view `console.log()` shows, for `JSON.stringify()`: status,
   * URL (masked as in {@linkcode HttpRequest.toString}), headers with
   * credential-like values masked, `content` by its size
   * (`"Uint8Array(42)"`), `elapsedMs`, `encoding` and the request's own view.
   *
   * @returns The view; no credential is in it.
   *
   * @example Serialize a response for a log
   * ```ts
   * import { HttpRequest, HttpResponse } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const request = new HttpRequest("GET", "http://127.0.0.1/");
   * const headers = { "Set-Cookie": "sid=s3ss", "Content-Type": "text/plain" };
   * const content = new TextEncoder().encode("ok");
   * const response = new HttpResponse({ statusCode: 200, headers, content, elapsedMs: 1.5, url: request.url, request });
   * const shown = JSON.parse(JSON.stringify(response));
   * assert.deepEqual(shown.headers, { "set-cookie": "***", "content-type": "text/plain" });
   * assert.equal(shown.content, "Uint8Array(2)");
   * assert.equal(shown.request.url, "http://127.0.0.1/");
   * ```
   */
  toJSON(): Record<string, unknown> {
    return jsonView(this);
  }
}

/** The output type of a Standard Schema validator `S`: what a typed read yields. */
export type SchemaOutput<S extends StandardSchemaV1> = NonNullable<
  S["~standard"]["types"]
>["output"];

/**
 * Options of {@linkcode HttpResponse.events} without a schema: the events
 * as received, until `until` says so.
 *
 * @example End at a sentinel
 * ```ts
 * import type { EventsOptions } from "@fetchline/fetchline";
 *
 * const options: EventsOptions = { until: (event) => event.data === "[DONE]" };
 * ```
 */
export interface EventsOptions {
  /** Asked about each event as received: true ends the loop (the event is not yielded). */
  until?: ((event: ServerSentEvent) => boolean) | undefined;
}

/**
 * Options of a typed {@linkcode HttpResponse.lines}: the schema each line's
 * JSON value must match, and what to do with one that does not.
 *
 * @example NDJSON of numbers
 * ```ts
 * import type { StandardSchemaV1, TypedLinesOptions } from "@fetchline/fetchline";
 *
 * const schema: StandardSchemaV1<unknown, number> = {
 *   "~standard": {
 *     version: 1,
 *     vendor: "example",
 *     validate: (value) =>
 *       typeof value === "number" ? { value } : { issues: [{ message: "Expected a number" }] },
 *   },
 * };
 * const options: TypedLinesOptions<typeof schema> = { schema, onInvalid: "skip" };
 * ```
 */
export interface TypedLinesOptions<S extends StandardSchemaV1> {
  /** A Standard Schema validator (zod, valibot, arktype…) of each line's JSON value. */
  schema: S;
  /**
   * `"throw"` (default): a line that is not JSON or does not match fails
   * the loop with a `ResponseParseException`; `"skip"`: it is passed over.
   */
  onInvalid?: "throw" | "skip" | undefined;
}

/**
 * Options of a typed {@linkcode HttpResponse.events}: the schema each
 * event's JSON `data` must match, when to stop, and what to do with an event
 * that does not match.
 *
 * @example An LLM's chunks, ending at `[DONE]`
 * ```ts
 * import type { StandardSchemaV1, TypedEventsOptions } from "@fetchline/fetchline";
 *
 * import { z } from "zod";
 *
 * const schema = z.object({ delta: z.string() });
 * const options: TypedEventsOptions<typeof schema> = {
 *   schema,
 *   until: (event) => event.data === "[DONE]",
 * };
 * ```
 */
export interface TypedEventsOptions<S extends StandardSchemaV1> extends TypedLinesOptions<S> {
  /**
   * Asked about each event as received, before its data is parsed: true
   * ends the loop (the event is not yielded) and cancels the rest of the body.
   */
  until?: ((event: ServerSentEvent) => boolean) | undefined;
}

/**
 * A Server-Sent Event whose `data` was parsed as JSON and checked by a
 * schema: what a typed {@linkcode HttpResponse.events} yields.
 *
 * @example
 * ```ts
 * import type { TypedServerSentEvent } from "@fetchline/fetchline";
 *
 * const event: TypedServerSentEvent<{ delta: string }> = {
 *   event: "message",
 *   data: { delta: "Hi" },
 *   id: "",
 *   retry: undefined,
 * };
 * ```
 */
export interface TypedServerSentEvent<T> extends Omit<ServerSentEvent, "data"> {
  /** The event's `data`, parsed as JSON and checked: the schema's output. */
  readonly data: T;
}

const LINES_KEYS = keysOf<TypedLinesOptions<StandardSchemaV1>>({ schema: true, onInvalid: true });
const EVENTS_KEYS = keysOf<TypedEventsOptions<StandardSchemaV1>>({
  schema: true,
  onInvalid: true,
  until: true,
});

/** The most issues a stream's item failure carries: an item is one of many, its issues a sample. */
const ITEM_ISSUES_KEPT = 20;

/** Typed-stream options, checked (a TypeError naming the field otherwise). */
interface TypedStream {
  readonly validator: StandardSchemaV1["~standard"] | undefined;
  readonly skip: boolean;
  readonly until: ((event: ServerSentEvent) => boolean) | undefined;
}

function typedStreamOptions(options: unknown, known: ReadonlySet<string>): TypedStream {
  checkKnownKeys("options", options, known);
  const { schema, onInvalid = "throw", until } = options as Partial<
    TypedEventsOptions<StandardSchemaV1>
  >;
  if (onInvalid !== "throw" && onInvalid !== "skip") {
    throw new TypeError(
      `Invalid onInvalid: expected "throw" or "skip", got ${
        typeof onInvalid === "string" ? JSON.stringify(onInvalid) : describeType(onInvalid)
      }`,
    );
  }
  if (until !== undefined && typeof until !== "function") {
    throw new TypeError(`Invalid until: expected a function, got ${describeType(until)}`);
  }
  // A schema is needed to read lines as JSON; events without one are the events as received.
  const validator = schema === undefined && known === EVENTS_KEYS
    ? undefined
    : standardValidator(schema);
  if (validator === undefined && onInvalid !== "throw") {
    throw new TypeError("Invalid onInvalid: it needs a schema");
  }
  return { validator, skip: onInvalid === "skip", until };
}

/**
 * The items of `source` up to `until`, each one's text (`textOf`) parsed as
 * JSON and validated, as `typed` makes it (`withValue`). A blank line is
 * passed over. An item that fails is a {@linkcode ResponseParseException}
 * naming its index and `kind`, or passed over when `typed.skip`. Leaving the
 * loop (the caller's `break`, `until`, a failure) closes `source`, which
 * cancels the rest of the body.
 */
async function* typedItems<Item, Typed>(
  response: HttpResponse,
  source: AsyncGenerator<Item>,
  kind: "Line" | "Event",
  typed: TypedStream,
  textOf: (item: Item) => string,
  withValue: (item: Item, value: unknown) => Typed,
): AsyncGenerator<Item | Typed> {
  const { validator, skip, until } = typed;
  let index = -1;
  for await (const item of source) {
    index++;
    if (until !== undefined && until(item as unknown as ServerSentEvent)) return;
    if (validator === undefined) {
      yield item;
      continue;
    }
    const text = textOf(item);
    if (kind === "Line" && text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      if (skip) continue;
      // The parser's message quotes the item, which no view shows: the cause is shown by its class only.
      const message = `${kind} at index ${index} of the stream is not valid JSON: ${
        where(response)
      }`;
      throw hideCauseText(new ResponseParseException(message, { response, cause }));
    }
    const result = await validator.validate(value);
    if (result.issues !== undefined) {
      if (skip) continue;
      throw new ResponseParseException(
        `${kind} at index ${index} of the stream does not match the schema (${
          describeIssues(result.issues)
        }): ${where(response)}`,
        { response, issues: result.issues.slice(0, ITEM_ISSUES_KEPT) },
      );
    }
    yield withValue(item, result.value);
  }
}

/**
 * The type `client.stream()` resolves to: an {@linkcode HttpResponse} whose
 * body is unread, without the members that need it whole (`content`,
 * `text`, `json()`, `jsonOrUndefined()`), so reading one before `read()`
 * does not compile. Read the body with `read()` (a buffered
 * `HttpResponse`), `body`, `lines()` or `events()`, or `cancel()` it. At
 * run time it is an `HttpResponse` (`isStreamed` is true), whose `content`,
 * `text` and `json()` throw {@linkcode ResponseNotReadException} until
 * `read()` resolved.
 *
 * @example Read a streamed body whole
 * ```ts
 * import { createClient, HttpResponse, type StreamedHttpResponse } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   () => Response.json({ ok: true }),
 * );
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * await using streamed: StreamedHttpResponse = await client.stream("GET", "/");
 * // streamed.json(); // does not compile: the body is unread
 * const response = await streamed.read();
 * assert.ok(response instanceof HttpResponse);
 * assert.deepEqual(response.json(), { ok: true });
 * ```
 */
export interface StreamedHttpResponse extends
  Omit<
    HttpResponse,
    "content" | "text" | "json" | "jsonOrUndefined" | "raiseForStatus" | "withHeaders"
  > {
  /**
   * Returns this response when its status is 1xx, 2xx or 3xx, and throws
   * {@linkcode HttpStatusException} (carrying it, body unread) for 4xx and 5xx.
   */
  raiseForStatus(): StreamedHttpResponse;
  /** A copy with `headers` set over its own, holding the same unread body. */
  withHeaders(headers: Readonly<Record<string, string | undefined>>): StreamedHttpResponse;
}

defineRedactedInspect(HttpResponse, (response) => ({
  statusCode: response.statusCode,
  url: redactUrl(response.url),
  // A credential the call sent, quoted back in a response header, is masked there too.
  headers: maskHeadersForView(
    response.headers,
    callCredentialsOf(response),
    sentSecrets(response.request, credentialsOf(response.request) ?? callCredentialsOf(response)),
  ),
  content: response.isStreamed ? "(streamed)" : response.content,
  elapsedMs: response.elapsedMs,
  request: response.request,
  encoding: response.encoding,
}));

/** `<METHOD> <URL> (status <n>)`, the URL masked: where every parse message ends. */
function where(response: HttpResponse): string {
  return `${describeCall(response.request, response.url)} (status ${response.statusCode})`;
}

/** The body parsed as JSON, or a {@linkcode ResponseParseException} carrying the response. */
function parseJson(response: HttpResponse): unknown {
  const text = response.text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    // The parser's message quotes the body (V8: `"token=…" is not valid JSON`),
    // which no view shows: the cause is shown by its class only.
    const message = `Response body is not valid JSON: ${where(response)}`;
    throw hideCauseText(new ResponseParseException(message, { response, cause }));
  }
}

/** Options of an exception that carries a response. */
export interface ResponseExceptionOptions extends HttpClientExceptionOptions {
  /** The response the exception is about. */
  response: HttpResponse;
}

/**
 * The shape every exception about a response shares: `response`, and the
 * response's request as `request`. Its view (`console.log()`,
 * `JSON.stringify()`) shows the response through the response's own masked
 * view, as every field of an exception is shown.
 *
 * @example Catch any exception that carries a response
 * ```ts
 * import { HttpRequest, HttpResponse, ResponseException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("GET", "http://127.0.0.1/");
 * const response = new HttpResponse({
 *   statusCode: 500, headers: {}, content: new Uint8Array(), elapsedMs: 1, url: request.url, request,
 * });
 * assert.throws(
 *   () => response.raiseForStatus(),
 *   (error: unknown) => error instanceof ResponseException && error.response === response,
 * );
 * ```
 */
export abstract class ResponseException extends HttpClientException {
  /** The response the exception is about. */
  readonly response: HttpResponse;

  /**
   * Creates an exception.
   *
   * @param message What went wrong, naming the method and URL.
   * @param options The response, and the underlying error as `cause`.
   */
  constructor(message: string, options: ResponseExceptionOptions) {
    super(message, { request: options.response.request, cause: options.cause });
    this.response = options.response;
  }
}

/** Options of a {@linkcode ResponseParseException}. */
export interface ResponseParseExceptionOptions extends ResponseExceptionOptions {
  /**
   * The issues a Standard Schema validator reported, when the body was JSON
   * but did not match the schema given to {@linkcode HttpResponse.json}.
   */
  issues?: readonly StandardSchemaIssue[] | undefined;
}

/**
 * {@linkcode HttpResponse.json} was called and the body is not valid JSON.
 * The response is kept on the exception, so nothing is lost.
 *
 * @example Read the body that failed to parse
 * ```ts
 * import { HttpRequest, HttpResponse, ResponseParseException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("GET", "http://127.0.0.1/");
 * const content = new TextEncoder().encode("not json");
 * const response = new HttpResponse({ statusCode: 200, headers: {}, content, elapsedMs: 1, url: request.url, request });
 * assert.throws(() => response.json(), (error: unknown) => {
 *   assert.ok(error instanceof ResponseParseException);
 *   assert.equal(error.response.text, "not json");
 *   return true;
 * });
 * ```
 */
export class ResponseParseException extends ResponseException {
  /**
   * The issues a Standard Schema validator reported (each a `message` and
   * maybe a `path`), or `undefined` when the body was not JSON. The
   * exception's message names their paths; views (`console.log()`,
   * `JSON.stringify()`) leave the issues out, as an issue's message may
   * quote the body, which no view shows.
   */
  readonly issues?: readonly StandardSchemaIssue[];

  /**
   * Creates an exception.
   *
   * @param message What went wrong.
   * @param options The response, the parser's error as `cause`, the validator's `issues`.
   */
  constructor(message: string, options: ResponseParseExceptionOptions) {
    super(message, options);
    // Not enumerable: views show the fields of an exception, and an issue's
    // message may quote the body, which no view shows.
    if (options.issues !== undefined) {
      Object.defineProperty(this, "issues", { value: options.issues, enumerable: false });
    }
  }
}

/**
 * A response had a 4xx or 5xx status and the caller asked for that to
 * throw, with {@linkcode HttpResponse.raiseForStatus}. The message names
 * the status, the server's reason when its body gives one, the method and
 * the URL (masked: no user-info, no credential-like query value);
 * `response` is the response, its body as it was (a streamed one unread);
 * `problem` the RFC 9457 problem of an `application/problem+json` body.
 *
 * The reason, quoted after the status: a problem's `title` and `detail`; a
 * JSON body's `error` (or `error.message` when `error` is an object),
 * `message` and `error_description` strings, those present, joined by
 * `": "`; a `text/plain` body's text. On one line, masked (the URLs'
 * user-info and credential-like query values, `Bearer` and `Basic`
 * credentials, and every credential the call sent: its credential-like and
 * declared headers' values, its Basic password, its credential-like query
 * values and form fields, the values under its JSON body's credential-like
 * keys), and cut to 200 characters. None for a body over 64 KiB, another
 * type, a body that does not parse, or a streamed body not read yet (a
 * message never reads a body).
 *
 * @example The server's reason, masked
 * ```ts
 * import { HttpRequest, HttpResponse, HttpStatusException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("GET", "http://127.0.0.1/me", { headers: { "X-API-Key": "k3y-9f2c" } });
 * const response = new HttpResponse({
 *   statusCode: 401, elapsedMs: 1, url: request.url, request,
 *   headers: { "Content-Type": "application/json" },
 *   content: new TextEncoder().encode('{"error": "invalid_key", "message": "Key k3y-9f2c is revoked"}'),
 * });
 * assert.throws(() => response.raiseForStatus(), (error: unknown) => {
 *   assert.ok(error instanceof HttpStatusException);
 *   assert.equal(
 *     error.message,
 *     'Client error (status 401, "invalid_key: Key *** is revoked"): GET http://127.0.0.1/me',
 *   );
 *   return true;
 * });
 * ```
 *
 * @example Read the response of a failed status
 * ```ts
 * import { HttpClientException, HttpRequest, HttpResponse, HttpStatusException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("POST", "http://127.0.0.1/orders?api_key=k3y");
 * const response = new HttpResponse({
 *   statusCode: 503, headers: {}, content: new TextEncoder().encode("busy"), elapsedMs: 1,
 *   url: request.url, request,
 * });
 * assert.throws(() => response.raiseForStatus(), (error: unknown) => {
 *   assert.ok(error instanceof HttpStatusException && error instanceof HttpClientException);
 *   assert.equal(
 *     String(error),
 *     "HttpStatusException: Server error (status 503): POST http://127.0.0.1/orders?api_key=***",
 *   );
 *   return error.response.text === "busy";
 * });
 * ```
 */
export class HttpStatusException extends ResponseException {
  /**
   * The RFC 9457 problem of an `application/problem+json` body, or
   * `undefined`. Views (`console.log()`, `JSON.stringify()`) leave it out,
   * as they do every body: the server's words may hold anything.
   */
  declare readonly problem?: ProblemDetails;

  /**
   * Creates an exception.
   *
   * @param message What went wrong, naming the status, the method and the URL.
   * @param options The response, and the `problem` its body holds.
   */
  constructor(message: string, options: HttpStatusExceptionOptions) {
    super(message, options);
    // Not enumerable: views show the fields of an exception, never a body.
    if (options.problem !== undefined) {
      Object.defineProperty(this, "problem", { value: options.problem, enumerable: false });
    }
  }
}

/** Options of an {@linkcode HttpStatusException}. */
export interface HttpStatusExceptionOptions extends ResponseExceptionOptions {
  /** The RFC 9457 problem the response's body holds, if any. */
  problem?: ProblemDetails | undefined;
}

/** The constructor with the parameter its public signature does not show. */
const HttpResponseWithOrigin = HttpResponse as new (
  init: HttpResponseInit,
  origin: typeof RECEIVED,
  streamed?: StreamedBody,
) => HttpResponse;

/** A received {@linkcode HttpResponse} whose body is unread: `content` throws until `read()`. */
export function streamedResponse(
  init: Omit<HttpResponseInit, "content">,
  body: StreamedBody,
): HttpResponse {
  return new HttpResponseWithOrigin({ ...init, content: new Uint8Array(0) }, RECEIVED, body);
}

/**
 * The fields of `response` but its content: the head of another response
 * made around its body (a middleware's counting or releasing stream).
 */
export function headOf(response: HttpResponse): Omit<HttpResponseInit, "content"> {
  return {
    statusCode: response.statusCode,
    headers: response.headers,
    elapsedMs: response.elapsedMs,
    url: response.url,
    request: response.request,
    ...(response.encoding === undefined ? {} : { encoding: response.encoding }),
    timings: timingsOf(response),
  };
}

/**
 * An {@linkcode HttpResponse} for a response the transport received: its
 * headers are not copied until read (most calls never read them).
 *
 * @param init The fields; `headers` as a transport gives them (`WireHeaders`).
 * @returns The response.
 */
export function receivedResponse(init: HttpResponseInit): HttpResponse {
  return new HttpResponseWithOrigin(init, RECEIVED);
}

/**
 * Refuses `response` as a stream of text lines or (`"Event stream"`)
 * events, as EventSource fails a connection, with an
 * {@linkcode EventStreamException} carrying it: a status other than 2xx,
 * and for events a Content-Type other than `text/event-stream` (its
 * parameters aside, in any case) but on a 204, which has no body. The body
 * is left as it is. `response.lines()`, `response.events()` and
 * `eventSource()` (`@fetchline/fetchline/sse`) share it.
 */
export function checkTextStream(
  response: HttpResponse,
  what: "Event stream" | "Line stream",
): void {
  const { statusCode } = response;
  const target = describeCall(response.request, response.url);
  if (statusCode < 200 || statusCode > 299) {
    throw new EventStreamException(`${what} refused with status ${statusCode}: ${target}`, {
      response,
    });
  }
  if (what === "Line stream" || statusCode === 204) return;
  const type = response.header("content-type");
  if (mediaType(type) !== "text/event-stream") {
    const shown = type === undefined ? "none" : JSON.stringify(type.slice(0, 100));
    throw new EventStreamException(
      `${what} refused with Content-Type ${shown} (expected text/event-stream): ${target}`,
      { response },
    );
  }
}

/** Options of an {@linkcode EventStreamException}. */
export interface EventStreamExceptionOptions extends ResponseExceptionOptions {}

/**
 * An event stream was refused by the server's answer, as EventSource fails
 * the connection: a status other than 2xx (204 ends the stream without an
 * error), or a Content-Type other than `text/event-stream`; also the
 * `lines()` of a response whose status is not 2xx. The message names the
 * status or the type, the method and the URL (masked); `response` is the
 * answer. `eventSource()` (`@fetchline/fetchline/sse`) throws it from its
 * loop, without reconnecting, the body cancelled unread;
 * `response.events()` and `response.lines()` throw it when called, the
 * body not taken: still readable once (read it
 * for the server's reason, or cancel it).
 *
 * @example Tell a refused event stream from other failures
 * ```ts
 * import { EventStreamException, HttpClientException, HttpRequest, HttpResponse } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("GET", "http://127.0.0.1/events");
 * const response = new HttpResponse({
 *   statusCode: 401, headers: {}, content: new Uint8Array(0), elapsedMs: 1, url: request.url, request,
 * });
 * const error = new EventStreamException("Event stream refused (status 401): GET http://127.0.0.1/events", {
 *   response,
 * });
 * assert.ok(error instanceof HttpClientException);
 * assert.equal(error.response.statusCode, 401);
 * ```
 */
export class EventStreamException extends ResponseException {}
