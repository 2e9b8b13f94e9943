// What an error response's body says went wrong, for the message of
// HttpStatusException: an RFC 9457 problem (application/problem+json), a
// JSON body's error/message/error_description, or a short text body. Pure:
// the response (models/response.ts) hands its Content-Type and text, and
// masks and cuts what it gets.

import { mediaType } from "./headers.ts";

/**
 * An RFC 9457 problem detail, as an `application/problem+json` body holds
 * it: the standard members, each kept only when it has its type (the RFC
 * says to ignore one that has not), and the API's own extension members as
 * sent. A missing `type` means `"about:blank"` (the RFC), left absent here.
 *
 * @example Read the problem of a failed call
 * ```ts
 * import { HttpRequest, HttpResponse, HttpStatusException } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const request = new HttpRequest("POST", "http://127.0.0.1/transfers");
 * const response = new HttpResponse({
 *   statusCode: 403, elapsedMs: 1, url: request.url, request,
 *   headers: { "Content-Type": "application/problem+json" },
 *   content: new TextEncoder().encode(JSON.stringify({
 *     type: "https://example.com/probs/out-of-credit", title: "You do not have enough credit.",
 *     status: 403, detail: "Your balance is 30, but that costs 50.", balance: 30,
 *   })),
 * });
 * assert.throws(() => response.raiseForStatus(), (error: unknown) => {
 *   assert.ok(error instanceof HttpStatusException);
 *   assert.equal(error.problem?.title, "You do not have enough credit.");
 *   assert.equal(error.problem?.balance, 30);
 *   return true;
 * });
 * ```
 */
export interface ProblemDetails {
  /** A URI naming the problem type. */
  readonly type?: string;
  /** A short summary of the problem type. */
  readonly title?: string;
  /** The HTTP status the server gave. */
  readonly status?: number;
  /** What went wrong in this occurrence, for a person to read. */
  readonly detail?: string;
  /** A URI naming this occurrence. */
  readonly instance?: string;
  /** The API's own members (`balance`, `errors`…), as sent. */
  readonly [member: string]: unknown;
}

/** The largest body read for a reason, in bytes: a bigger one is not parsed (the message names none). */
export const MAX_REASON_BODY = 64 * 1024;

const MEMBER_TYPES: Readonly<Record<string, string>> = {
  type: "string",
  title: "string",
  status: "number",
  detail: "string",
  instance: "string",
};

/**
 * The reason that an error body of `contentType` gives, unmasked and
 * uncut, and its problem when it is one:
 *
 * - `application/problem+json`: the problem's `title` and `detail`
 *   (`"title: detail"`, or the one given);
 * - another JSON type (`application/json`, `…+json`): the strings of
 *   `error` (or `error.message`, when `error` is an object: Google's and
 *   OpenAI's shape), `message` and `error_description`, those present, in
 *   that order, joined by `": "` (OAuth's `invalid_grant: Token expired`);
 * - `text/plain`: the text.
 *
 * Anything else, or a body that does not parse, gives no reason. Never
 * throws.
 */
export function errorReason(
  contentType: string | undefined,
  text: () => string,
): { reason?: string | undefined; problem?: ProblemDetails | undefined } {
  try {
    const type = mediaType(contentType);
    if (type === "text/plain") return { reason: text() };
    if (!/^application\/(?:[\w.+-]*\+)?json$/.test(type)) return {};
    const body: unknown = JSON.parse(text());
    if (typeof body !== "object" || body === null || Array.isArray(body)) return {};
    const record = body as Record<string, unknown>;
    if (type === "application/problem+json") {
      const problem: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(record)) {
        const wanted = MEMBER_TYPES[name];
        if (wanted === undefined || typeof value === wanted) problem[name] = value;
      }
      const { title, detail } = problem as ProblemDetails;
      const reason = [title, detail].filter((part) => part !== undefined).join(": ");
      return { reason: reason || undefined, problem: Object.freeze(problem) };
    }
    const error = record.error;
    const nested = typeof error === "object" && error !== null
      ? (error as Record<string, unknown>).message
      : error;
    const parts = [nested, record.message, record.error_description]
      .filter((part): part is string => typeof part === "string" && part.trim() !== "");
    return { reason: [...new Set(parts)].join(": ") || undefined };
  } catch {
    return {};
  }
}
