// The pieces of the logging hooks' lines that more than one hook writes:
// the request ID, the masked description of an error, the retry line, the
// settings, path and body of the request and response lines.

import type { HttpRequest } from "../models/request.ts";
import type { RequestContext } from "../models/request_context.ts";
import type { Logger, RetryInfo } from "./hook_interfaces.ts";
import { maskFormForLog, redactQuery, redactText } from "../masking/views.ts";
import { appendParams, encodeForm, pathAndQuery } from "../http/url.ts";
import { describeRawBody } from "../http/raw_body.ts";
import { checkKnownKeys, keysOf } from "../models/_validate.ts";

/** Random 32-bit words for request IDs, drawn a batch at a time: far cheaper than a UUID each. */
const RANDOM_WORDS = new Uint32Array(256);
let nextWord = RANDOM_WORDS.length;

/** A new request ID: 8 lower-case hex characters from `crypto.getRandomValues()`. */
export function newRequestId(): string {
  if (nextWord === RANDOM_WORDS.length) {
    crypto.getRandomValues(RANDOM_WORDS);
    nextWord = 0;
  }
  return RANDOM_WORDS[nextWord++]!.toString(16).padStart(8, "0");
}

/** The request ID of a call, or `unknown` when no logging request hook gave one. */
export function requestIdOf(context: RequestContext): string {
  const id = context.metadata.requestId;
  return typeof id === "string" ? id : "unknown";
}

/** The lower-case names of `sensitiveKeys`. */
export function sensitiveOf(
  options: { sensitiveKeys?: Iterable<string> | undefined },
): Set<string> {
  return new Set([...(options.sensitiveKeys ?? [])].map((name) => name.toLowerCase()));
}

/**
 * `<Type>: <message>` of what was thrown, the URLs in it masked (user-info,
 * credential-like query values, and the `sensitive` ones).
 */
export function describeError(error: unknown, sensitive: ReadonlySet<string>): string {
  const described = error instanceof Error
    ? `${error.name}: ${error.message}`
    : `Error: ${String(error)}`;
  return redactText(described, sensitive);
}

/**
 * `[<id>] Retrying in <s> s (attempt <n>/<m>): <reason>`: the wait in
 * seconds with two decimals; n the attempt about to be made
 * (`context.attempt + 2`, as the one that failed is `attempt + 1`) and m
 * `maxRetries + 1`, so the line follows the error line's count; the reason
 * `status <code>` for a response, else the error as the error line writes it.
 */
export function retryLine(
  context: RequestContext,
  info: RetryInfo,
  sensitive: ReadonlySet<string>,
): string {
  const reason = info.response === undefined
    ? describeError(info.error, sensitive)
    : `status ${info.response.statusCode}`;
  return `[${requestIdOf(context)}] Retrying in ${(info.delayMs / 1000).toFixed(2)} s (attempt ${
    context.attempt + 2
  }/${context.maxRetries + 1}): ${reason}`;
}

/** The options settingsOf() reads (LoggingRequestHookOptions' fields). */
interface LoggingOptions {
  logHeaders?: boolean | undefined;
  logBody?: boolean | undefined;
  sensitiveKeys?: Iterable<string> | undefined;
  logger?: Logger | undefined;
}

/** The settings the request and response hooks share, with defaults applied. */
export interface LoggingSettings {
  readonly logHeaders: boolean;
  readonly logBody: boolean;
  readonly sensitive: ReadonlySet<string>;
  readonly logger: Logger;
}

/** The keys of the request and response hooks' options, and of `withLogging()`'s. */
export const LOGGING_KEYS: ReadonlySet<string> = keysOf<LoggingOptions>({
  logHeaders: true,
  logBody: true,
  sensitiveKeys: true,
  logger: true,
});

/** The settings of `options`, checked: a key that is not an option is a TypeError naming `field`. */
export function settingsOf(field: string, options: LoggingOptions): LoggingSettings {
  checkKnownKeys(field, options, LOGGING_KEYS);
  return {
    logHeaders: options.logHeaders ?? false,
    logBody: options.logBody ?? false,
    sensitive: sensitiveOf(options),
    logger: options.logger ?? console,
  };
}

/** The URL's path and query, params included, credential-like query values masked. */
export function pathOf(request: HttpRequest, sensitive: ReadonlySet<string>): string {
  return redactQuery(pathAndQuery(appendParams(request.url, request.params)), sensitive);
}

export function bodyOf(request: HttpRequest, sensitive: ReadonlySet<string>): string | undefined {
  if (request.jsonText !== undefined) return request.jsonText;
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
