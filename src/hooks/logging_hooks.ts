// The logging hooks (request, response, error, and the retry line), the
// pieces of their lines, and the set the client asks which hooks also log
// its auth hook's token requests.

import type {
  ErrorHookInterface,
  Logger,
  RequestHookInterface,
  ResponseHookInterface,
  RetryInfo,
} from "./hook_interfaces.ts";
import { encodeForm } from "../http/url.ts";
import { describeRawBody } from "../http/raw_body.ts";
import { appendParams, pathAndQuery } from "../http/url.ts";
import {
  describeError,
  maskFormForLog,
  maskHeaders,
  maskHeadersForView,
  maskJsonText,
  maskSecretsIn,
  redactQuery,
  sentSecrets,
} from "../masking/views.ts";
import { bothNames, type CredentialNames } from "../masking/credentials.ts";
import { credentialsOf, type HttpRequest } from "../models/request.ts";
import type { RequestContext } from "../models/context.ts";
import type { HttpResponse } from "../models/response.ts";
import { checkKnownKeys, keysOf } from "../models/_validate.ts";

/**
 * The built-in logging hooks (and instances of their subclasses) created so
 * far, with their loggers: the hooks that also run on an auth hook's token
 * requests, and the logger a client's middleware is told of (the cache warns
 * there). The client looks a hook up here rather than asking `instanceof`
 * of the logging classes, so a client that logs nothing does not carry them
 * (a bundler drops them).
 */
export const tokenLoggers: WeakMap<object, Logger> = new WeakMap();

/** Options of {@linkcode LoggingRequestHook}. */
export interface LoggingRequestHookOptions {
  /** Log the request headers (sensitive ones masked). Default false. */
  logHeaders?: boolean | undefined;
  /** Log the request body. Default false. */
  logBody?: boolean | undefined;
  /**
   * Further header and field names whose values are masked, in any letter
   * case, beyond the library's one definition of a credential (docs/authentication.md,
   * "Secrets stay hidden": `Authorization`, `Cookie`, `X-API-Key`, any
   * header or field whose name contains `auth`, `token`, `secret`, `key`…,
   * and fields such as `password`, `pwd`, `client_assertion`, `otp`; not
   * `code`, which is far more often an error or country code than an OAuth
   * one). Through `withLogging()` they are the client's credentials on every
   * other path too. A masked value is written `***`; the rest of the line
   * keeps its spelling.
   */
  sensitiveKeys?: Iterable<string> | undefined;
  /** Where to write. Default `console`. */
  logger?: Logger | undefined;
}

/** Options of {@linkcode LoggingResponseHook}. */
export interface LoggingResponseHookOptions extends LoggingRequestHookOptions {}

/** Options of {@linkcode LoggingErrorHook}. */
export interface LoggingErrorHookOptions {
  /**
   * Further query parameter names whose values are masked in a URL of the
   * logged message, in any letter case, beyond those
   * {@linkcode LoggingRequestHookOptions.sensitiveKeys} lists as always masked.
   */
  sensitiveKeys?: Iterable<string> | undefined;
  /** Where to write. Default `console`. */
  logger?: Logger | undefined;
}

const ERROR_LOGGING_KEYS = keysOf<LoggingErrorHookOptions>({ sensitiveKeys: true, logger: true });

/**
 * Logs each attempt as `[<requestId>] HTTP <METHOD> <path>`, then, when
 * asked, `[<requestId>] Headers: <JSON>` and `[<requestId>] Body: <body>`, all
 * at `info`. It gives each call one request ID (8 lower-case hex
 * characters, kept across retries) as `metadata.requestId`, and stores the
 * attempt's start as `metadata.startTime` (`performance.now()`). A form
 * body (`data`) and a JSON body (`jsonData`, at any depth) are logged with
 * the values of credential-like fields (`client_secret`, `password`,
 * `token`…, and `sensitiveKeys`) masked.
 *
 * @example Log requests to a collector
 * ```ts
 * import { HttpRequest, LoggingRequestHook, RequestContext } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const log = (line: string) => void lines.push(line);
 * const hook = new LoggingRequestHook({
 *   logHeaders: true,
 *   logger: { debug: log, info: log, warn: log, error: log },
 * });
 * const request = new HttpRequest("GET", "http://127.0.0.1/items?page=2", {
 *   headers: { Authorization: "Bearer secret" },
 * });
 * await hook.beforeRequest(request, new RequestContext(request));
 * assert.match(lines[0]!, /^\[[0-9a-f]{8}\] HTTP GET \/items\?page=2$/);
 * assert.match(lines[1]!, /Headers: \{"Authorization":"\*\*\*"\}$/);
 * ```
 */
export class LoggingRequestHook implements RequestHookInterface {
  readonly #settings: LoggingSettings;
  /** The URL (without params) of the last line, and its masked path: calls repeat URLs. */
  #lastUrl: string | undefined = undefined;
  #lastPath = "";

  /** Creates the hook: what to log and where. */
  constructor(options: LoggingRequestHookOptions = {}) {
    this.#settings = settingsOf("LoggingRequestHook options", options);
    tokenLoggers.set(this, this.#settings.logger);
  }

  /** Logs the request and returns it unchanged. */
  beforeRequest(request: HttpRequest, context: RequestContext): HttpRequest {
    const { logHeaders, logBody, logger } = this.#settings;
    const sensitive = bothNames(this.#settings.sensitive, credentialsOf(request));
    const id = (context.metadata.requestId ??= newRequestId()) as string;
    context.metadata.startTime = performance.now();
    logger.info(`[${id}] HTTP ${request.method} ${this.#pathOf(request, sensitive)}`);
    if (logHeaders) {
      logger.info(
        `[${id}] Headers: ${JSON.stringify(maskHeaders(request.headers ?? {}, sensitive))}`,
      );
    }
    const body = logBody ? bodyOf(request, sensitive) : undefined;
    if (body !== undefined) logger.info(`[${id}] Body: ${body}`);
    return request;
  }

  /** {@linkcode pathOf}, kept for the last URL without params. */
  #pathOf(request: HttpRequest, sensitive: CredentialNames): string {
    if (request.params !== undefined) return pathOf(request, sensitive);
    if (request.url !== this.#lastUrl) {
      this.#lastPath = pathOf(request, sensitive);
      this.#lastUrl = request.url;
    }
    return this.#lastPath;
  }
}

/**
 * Logs each response as `[<requestId>] Response: <status> (<ms>ms)` (`info`,
 * or `warn` for 4xx and 5xx), then, when asked, `[<requestId>] Response
 * Headers: <JSON>` and, for a failed response only, `[<requestId>] Response
 * Body: <text>`. When the client retries a response, it logs
 * `[<requestId>] Retrying in <s> s (attempt <n>/<m>): status <code>` at
 * `warn` before the wait (n is the attempt about to be made).
 *
 * @example Log a response without the request hook
 * ```ts
 * import { HttpRequest, HttpResponse, LoggingResponseHook, RequestContext } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const log = (line: string) => void lines.push(line);
 * const hook = new LoggingResponseHook({ logger: { debug: log, info: log, warn: log, error: log } });
 * const request = new HttpRequest("GET", "http://127.0.0.1/");
 * const response = new HttpResponse({
 *   statusCode: 200, headers: {}, content: new Uint8Array(), elapsedMs: 3.14159,
 *   url: request.url, request,
 * });
 * await hook.afterResponse(response, new RequestContext(request));
 * assert.deepEqual(lines, ["[unknown] Response: 200 (3.14ms)"]);
 * ```
 */
export class LoggingResponseHook implements ResponseHookInterface {
  readonly #settings: LoggingSettings;

  /** Creates the hook: what to log and where. */
  constructor(options: LoggingResponseHookOptions = {}) {
    this.#settings = settingsOf("LoggingResponseHook options", options);
    tokenLoggers.set(this, this.#settings.logger);
  }

  /** Logs the response and returns it unchanged. */
  afterResponse(response: HttpResponse, context: RequestContext): HttpResponse {
    const { logHeaders, logBody, logger } = this.#settings;
    const id = requestIdOf(context);
    const failed = response.statusCode >= 400;
    const line = `[${id}] Response: ${response.statusCode} (${response.elapsedMs.toFixed(2)}ms)`;
    if (failed) logger.warn(line);
    else logger.info(line);
    if (!logHeaders && !(logBody && failed && !response.isStreamed)) return response;
    // What the call sent, where the server quotes it back, is masked as the names are.
    const sensitive = bothNames(this.#settings.sensitive, credentialsOf(response.request));
    const secrets = sentSecrets(response.request, sensitive);
    if (logHeaders) {
      const headers = maskHeadersForView(response.headers, sensitive, secrets);
      logger.info(`[${id}] Response Headers: ${JSON.stringify(headers)}`);
    }
    // A streamed body is the caller's to read: it is never read here.
    if (logBody && failed && !response.isStreamed) {
      const body = maskSecretsIn(maskJsonText(response.text, sensitive), secrets);
      logger.info(`[${id}] Response Body: ${body}`);
    }
    return response;
  }

  /**
   * Logs `[<requestId>] Retrying in <s> s (attempt <n>/<m>): status <code>`
   * at `warn`: the client retries the response (`info.response`) after that
   * wait (`info.delayMs`), as attempt n of m.
   */
  onRetry(context: RequestContext, info: RetryInfo): void {
    this.#settings.logger.warn(retryLine(context, info, this.#settings.sensitive));
  }
}

/**
 * Logs each exception as `[<requestId>] Request failed (attempt <n>/<m>):
 * <Type>: <message>` at `error`, where n is `attempt + 1` and m is
 * `maxRetries + 1`. The library's messages name the method and URL and
 * never a credential; in any other error's message, the user-info and
 * credential-like query values of a URL are masked as well. When the
 * client retries after the exception, it logs `[<requestId>] Retrying in
 * <s> s (attempt <n+1>/<m>): <Type>: <message>` at `warn` before the wait.
 *
 * @example Log a failure
 * ```ts
 * import { HttpRequest, LoggingErrorHook, RequestContext, TimeoutException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const log = (line: string) => void lines.push(line);
 * const hook = new LoggingErrorHook({ logger: { debug: log, info: log, warn: log, error: log } });
 * const context = new RequestContext(new HttpRequest("GET", "/"), {
 *   maxRetries: 2,
 *   metadata: { requestId: "0badcafe" },
 * });
 * await hook.onError(new TimeoutException("Request timed out after 1 s: GET /"), context);
 * assert.deepEqual(lines, [
 *   "[0badcafe] Request failed (attempt 1/3): TimeoutException: Request timed out after 1 s: GET /",
 * ]);
 * ```
 *
 * @example Log the retries of a call
 * ```ts
 * import { ConnectionException, HttpClientConfigBuilder, HttpClient } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const log = (line: string) => void lines.push(line);
 * const config = new HttpClientConfigBuilder()
 *   .withFetch(() => Promise.reject(new TypeError("connection refused")))
 *   .withRetry({ maxRetries: 1, sleep: () => Promise.resolve(), random: () => 0.5 })
 *   .withLogging({ logger: { debug: log, info: log, warn: log, error: log } })
 *   .build();
 * await using client = new HttpClient(config);
 * await assert.rejects(client.get("http://127.0.0.1/items"), ConnectionException);
 * assert.match(lines[2]!, /^\[[0-9a-f]{8}\] Retrying in 0\.25 s \(attempt 2\/2\): ConnectionException: /);
 * ```
 */
export class LoggingErrorHook implements ErrorHookInterface {
  readonly #settings: LoggingSettings;

  /** Creates the hook: where to log. */
  constructor(options: LoggingErrorHookOptions = {}) {
    this.#settings = settingsOf("LoggingErrorHook options", options, ERROR_LOGGING_KEYS);
    tokenLoggers.set(this, this.#settings.logger);
  }

  /** Logs the exception `error` thrown by an attempt of the call of `context`. */
  onError(error: unknown, context: RequestContext): void {
    this.#settings.logger.error(
      `[${requestIdOf(context)}] Request failed (attempt ${context.attempt + 1}/${
        context.maxRetries + 1
      }): ${describeSent(error, context, this.#settings.sensitive)}`,
    );
  }

  /**
   * Logs `[<requestId>] Retrying in <s> s (attempt <n>/<m>): <Type>:
   * <message>` at `warn`: the client retries after the exception
   * (`info.error`) and that wait (`info.delayMs`), as attempt n of m.
   */
  onRetry(context: RequestContext, info: RetryInfo): void {
    this.#settings.logger.warn(retryLine(context, info, this.#settings.sensitive));
  }
}

/**
 * {@linkcode describeError} of `error`, with every credential the call of
 * `context` sent masked where the message quotes it (a middleware's error
 * may name the token it saw).
 */
function describeSent(error: unknown, context: RequestContext, sensitive: CredentialNames): string {
  const names = bothNames(sensitive, credentialsOf(context.request));
  return maskSecretsIn(describeError(error, names), sentSecrets(context.request, names));
}

/** Random 32-bit words for request IDs, drawn a batch at a time: far cheaper than a UUID each. */
const RANDOM_WORDS = new Uint32Array(256);
let nextWord = RANDOM_WORDS.length;

/** A new request ID: 8 lower-case hex characters from `crypto.getRandomValues()`. */
function newRequestId(): string {
  if (nextWord === RANDOM_WORDS.length) {
    crypto.getRandomValues(RANDOM_WORDS);
    nextWord = 0;
  }
  return RANDOM_WORDS[nextWord++]!.toString(16).padStart(8, "0");
}

/** The request ID of a call, or `unknown` when no logging request hook gave one. */
function requestIdOf(context: RequestContext): string {
  const id = context.metadata.requestId;
  return typeof id === "string" ? id : "unknown";
}

/**
 * `[<id>] Retrying in <s> s (attempt <n>/<m>): <reason>`: the wait in
 * seconds with two decimals; n the attempt about to be made
 * (`context.attempt + 2`, as the one that failed is `attempt + 1`) and m
 * `maxRetries + 1`, so the line follows the error line's count; the reason
 * `status <code>` for a response, else the error as the error line writes it.
 */
function retryLine(
  context: RequestContext,
  info: RetryInfo,
  sensitive: CredentialNames,
): string {
  const reason = info.response === undefined
    ? describeSent(info.error, context, sensitive)
    : `status ${info.response.statusCode}`;
  return `[${requestIdOf(context)}] Retrying in ${(info.delayMs / 1000).toFixed(2)} s (attempt ${
    context.attempt + 2
  }/${context.maxRetries + 1}): ${reason}`;
}

/** The keys of the request and response hooks' options, and of `withLogging()`'s. */
export const LOGGING_KEYS: ReadonlySet<string> = keysOf<LoggingRequestHookOptions>({
  logHeaders: true,
  logBody: true,
  sensitiveKeys: true,
  logger: true,
});

/**
 * The settings of a logging hook's `options`, with their defaults (the
 * `sensitiveKeys` lower-cased), checked: a key not in `keys` is a TypeError naming `field`.
 */
function settingsOf(field: string, options: LoggingRequestHookOptions, keys = LOGGING_KEYS) {
  checkKnownKeys(field, options, keys);
  return {
    logHeaders: options.logHeaders ?? false,
    logBody: options.logBody ?? false,
    sensitive: new Set([...(options.sensitiveKeys ?? [])].map((name) => name.toLowerCase())),
    logger: options.logger ?? console,
  };
}

type LoggingSettings = Readonly<ReturnType<typeof settingsOf>>;

/** The URL's path and query, params included, credential-like query values masked. */
function pathOf(request: HttpRequest, sensitive: ReadonlySet<string>): string {
  return redactQuery(pathAndQuery(appendParams(request.url, request.params)), sensitive);
}

function bodyOf(request: HttpRequest, sensitive: ReadonlySet<string>): string | undefined {
  if (request.jsonText !== undefined) return maskJsonText(request.jsonText, sensitive);
  // A string body is text like JSON; bytes, Blobs and streams are shown by kind and size.
  const { body } = request;
  if (body !== undefined) return typeof body === "string" ? body : describeRawBody(body);
  if (request.files !== undefined) {
    return `multipart/form-data (${
      [...Object.keys(request.data ?? {}), ...Object.keys(request.files)].join(", ")
    })`;
  }
  return request.data === undefined
    ? undefined
    : encodeForm(maskFormForLog(request.data, sensitive));
}
