// MockTransport.fromHar's routes (API.md "Recording and replay"): each entry
// of a HAR log answers one request that matches its own (by method, URL and
// body unless told otherwise), in the order they were recorded; a masked
// value (`***`) in the recording matches any value.

import { HttpClientException } from "../errors.ts";
import { describeError, MASK, redactUrl } from "../masking/views.ts";
import { fromBase64 } from "../har/bodies.ts";
import { describeType, isPlainRecord } from "../models/_validate.ts";
import type { Har, HarEntry, HarPostData, HarRequest } from "../har/types.ts";

/** What the default matcher compares of a request: the parts of its URL, its method, its body. */
export type HarMatchField = "method" | "url" | "origin" | "path" | "query" | "body";

/** A request as the replay sees it (a `MockCall`). */
interface Call {
  readonly method: string;
  readonly url: string;
  readonly content: Uint8Array;
}

/** A route of the replay, in the shape of MockTransport's. */
export interface HarRoute<C extends Call> {
  readonly label: string;
  readonly matches: (call: C) => boolean;
  readonly reply: (call: C) => Response;
  /** True once its entry has answered: it answers no more (the message of a miss leaves it out). */
  readonly used?: () => boolean;
  /** True when its entry's request is `call`'s, used or not. */
  readonly fits?: (call: C) => boolean;
}

const FIELDS: ReadonlySet<string> = new Set(["method", "url", "origin", "path", "query", "body"]);
const DEFAULT_FIELDS: readonly HarMatchField[] = ["method", "url", "body"];
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const UTF8 = new TextDecoder();
const encoder = new TextEncoder();

/** The entries of `har` (a HAR object or its JSON text), checked: a TypeError names the field. */
function entriesOf(har: unknown): HarEntry[] {
  let value = har;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw new TypeError(
        "Invalid har: expected a HAR object or its JSON text, got text that is not JSON",
      );
    }
  }
  const entries = isPlainRecord(value) && isPlainRecord(value.log) ? value.log.entries : undefined;
  if (!Array.isArray(entries)) {
    throw new TypeError(
      `Invalid har: expected a HAR object ({ log: { entries } }), got ${describeType(value)}`,
    );
  }
  entries.forEach((entry: unknown, index) => {
    const field = `har.log.entries[${index}]`;
    const request = isPlainRecord(entry) ? entry.request : undefined;
    const response = isPlainRecord(entry) ? entry.response : undefined;
    if (!isPlainRecord(request) || typeof request.method !== "string") {
      throw new TypeError(`Invalid ${field}.request.method: expected a method name`);
    }
    if (typeof request.url !== "string" || URL.parse(request.url) === null) {
      throw new TypeError(`Invalid ${field}.request.url: expected an absolute URL`);
    }
    if (!isPlainRecord(response) || typeof response.status !== "number") {
      throw new TypeError(`Invalid ${field}.response.status: expected a number`);
    }
    checkReplayable(request, response, field);
  });
  return entries as HarEntry[];
}

/** A reason phrase, as `Response` takes it. */
const REASON = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Checks what the replay reads of an entry (`field`), so a corrupt one is
 * named when the recording is loaded, not when a request meets it: a
 * TypeError naming the field, what is wrong, and the entry's request.
 */
function checkReplayable(
  request: Record<string, unknown>,
  response: Record<string, unknown>,
  field: string,
): void {
  const entry = `the entry of ${String(request.method).toUpperCase()} ${
    redactUrl(String(request.url))
  }`;
  const fail = (path: string, expected: string, got: string) => {
    throw new TypeError(`Invalid ${field}.${path}: expected ${expected}, got ${got} (${entry})`);
  };
  const text = (value: unknown, path: string, base64: boolean) => {
    if (value === undefined) return;
    if (typeof value !== "string") fail(path, "text", describeType(value));
    if (base64 && !isBase64(value as string)) fail(path, "base64 text", "text that is not base64");
  };
  const pairs = (value: unknown, path: string, valueOptional: boolean) => {
    if (value === undefined) return;
    if (!Array.isArray(value)) fail(path, "a list of { name, value }", describeType(value));
    (value as unknown[]).forEach((pair, i) => {
      if (!isPlainRecord(pair)) return fail(`${path}[${i}]`, "{ name, value }", describeType(pair));
      if (typeof pair.name !== "string") {
        fail(`${path}[${i}].name`, "text", describeType(pair.name));
      }
      if (typeof pair.value !== "string" && !(valueOptional && pair.value === undefined)) {
        fail(`${path}[${i}].value`, "text", describeType(pair.value));
      }
    });
  };
  const { status, statusText, content } = response;
  if (!Number.isInteger(status)) fail("response.status", "an integer", String(status));
  if (statusText !== undefined && (typeof statusText !== "string" || !REASON.test(statusText))) {
    const got = typeof statusText === "string"
      ? "text with a control character or one past U+00FF"
      : describeType(statusText);
    fail("response.statusText", "a reason phrase", got);
  }
  pairs(response.headers, "response.headers", false);
  if (content !== undefined) {
    if (!isPlainRecord(content)) fail("response.content", "an object", describeType(content));
    else text(content.text, "response.content.text", content.encoding === "base64");
  }
  const { postData } = request;
  if (postData !== undefined) {
    if (!isPlainRecord(postData)) fail("request.postData", "an object", describeType(postData));
    else {
      text(postData.text, "request.postData.text", postData._encoding === "base64");
      pairs(postData.params, "request.postData.params", true);
    }
  }
}

/** True when `text` is base64, as `atob` reads it. */
function isBase64(text: string): boolean {
  try {
    atob(text);
    return true;
  } catch {
    return false;
  }
}

/** The test of a call against a recorded request for `match`. */
function matcherOf<C extends Call>(
  match: readonly HarMatchField[] | ((call: C, request: HarRequest) => boolean) | undefined,
): (call: C, request: HarRequest) => boolean {
  if (typeof match === "function") return (call, request) => match(call, request) === true;
  const fields = match ?? DEFAULT_FIELDS;
  if (!Array.isArray(fields) || fields.some((field) => !FIELDS.has(field))) {
    throw new TypeError(
      `Invalid match: expected a function or a list of "method", "url", "origin", "path", "query" and "body", got ${
        describeType(match)
      }`,
    );
  }
  const has = (field: HarMatchField) => fields.includes(field);
  return (call, request) => {
    if (has("method") && call.method !== request.method.toUpperCase()) return false;
    const called = new URL(call.url);
    const recorded = new URL(request.url);
    if ((has("url") || has("origin")) && called.origin !== recorded.origin) return false;
    if ((has("url") || has("path")) && called.pathname !== recorded.pathname) return false;
    if ((has("url") || has("query")) && !samePairs(recorded.searchParams, called.searchParams)) {
      return false;
    }
    return !has("body") || sameBody(request.postData, call.content);
  };
}

/** True when the pairs are the same, in order; a recorded `***` stands for any value. */
function samePairs(recorded: URLSearchParams, called: URLSearchParams): boolean {
  const left = [...recorded];
  const right = [...called];
  return left.length === right.length &&
    left.every(([name, value], i) =>
      name === right[i]![0] && (value === MASK || value === right[i]![1])
    );
}

/**
 * True when `content` is the body `postData` recorded: the same bytes, or,
 * for JSON and forms, the same values with a recorded `***` standing for any
 * value. A body the recording does not hold (a multipart or stream body, one
 * cut short) matches any.
 */
function sameBody(postData: HarPostData | undefined, content: Uint8Array): boolean {
  const text = postData?.text;
  if (postData === undefined || (text === undefined && postData.params === undefined)) {
    return postData !== undefined || content.byteLength === 0;
  }
  if (postData._truncated === true) return true;
  // Params alone (a browser's multipart or JSON body): compared only for a URL-encoded form.
  if (text === undefined) {
    return !/x-www-form-urlencoded/i.test(postData.mimeType) || sameForm(postData, content);
  }
  if (postData._encoding === "base64") {
    const bytes = fromBase64(text, "postData.text");
    return bytes.length === content.length && bytes.every((byte, i) => byte === content[i]);
  }
  const called = UTF8.decode(content);
  if (called === text) return true;
  if (/[/+]json\b/i.test(postData.mimeType)) {
    try {
      return sameValue(JSON.parse(text), JSON.parse(called));
    } catch {
      return false;
    }
  }
  if (/x-www-form-urlencoded/i.test(postData.mimeType)) {
    return samePairs(new URLSearchParams(text), new URLSearchParams(called));
  }
  return false;
}

function sameForm(postData: HarPostData, content: Uint8Array): boolean {
  const recorded = new URLSearchParams();
  for (const { name, value } of postData.params ?? []) recorded.append(name, value ?? "");
  return samePairs(recorded, new URLSearchParams(UTF8.decode(content)));
}

/** Deep equality of JSON values, a recorded `***` standing for any value. */
function sameValue(recorded: unknown, called: unknown): boolean {
  if (recorded === MASK) return true;
  if (Array.isArray(recorded)) {
    return Array.isArray(called) && recorded.length === called.length &&
      recorded.every((item, i) => sameValue(item, called[i]));
  }
  if (isPlainRecord(recorded)) {
    if (!isPlainRecord(called)) return false;
    const keys = Object.keys(recorded);
    return keys.length === Object.keys(called).length &&
      keys.every((key) => key in called && sameValue(recorded[key], called[key]));
  }
  return recorded === called;
}

/** The recorded response of `entry`, an exchange that did not fail, as a `Response`. */
function responseOf(entry: HarEntry, method: string): Response {
  const { status, statusText, headers = [], content } = entry.response;
  const replayed = new Headers();
  for (const { name, value } of headers) {
    // HTTP/2 pseudo-headers (`:status`) and names a Headers refuses are not headers to replay.
    try {
      if (!name.startsWith(":")) replayed.append(name, value);
    } catch {
      // Skipped: a recording may hold what no runtime would send.
    }
  }
  const text = content?.text;
  const bytes = text === undefined
    ? new Uint8Array(0)
    : content?.encoding === "base64"
    ? fromBase64(text, "response.content.text")
    : encoder.encode(text);
  const hasBody = !NULL_BODY.has(status) && method !== "HEAD";
  // A Content-Length only describes what is replayed when no Content-Encoding was decoded.
  if (!replayed.has("content-encoding") && replayed.has("content-length") && hasBody) {
    replayed.set("content-length", String(bytes.byteLength));
  }
  return new Response(hasBody ? bytes : null, {
    status,
    statusText: statusText ?? "",
    headers: replayed,
  });
}

/**
 * The routes that replay `har`: each entry answers the first call that
 * matches it and has not been answered, in recorded order; with `repeat`,
 * a call whose entries were all used gets the last of them again.
 */
export function harRoutes<C extends Call>(
  har: Har | string,
  match: readonly HarMatchField[] | ((call: C, request: HarRequest) => boolean) | undefined,
  repeat: boolean,
): HarRoute<C>[] {
  const entries = entriesOf(har);
  const matcher = matcherOf(match);
  const labels = entries.map(({ request }) =>
    `${request.method.toUpperCase()} ${redactUrl(request.url)}`
  );
  // A mistake of the recording (changed since it was checked) or of `match`
  // is named, and not retried as a network failure would be.
  const fits = (call: C, index: number) =>
    named(index, labels[index]!, "matched", () => matcher(call, entries[index]!.request));
  const replay = (call: C, index: number) => {
    const entry = entries[index]!;
    failedExchange(entry);
    return named(index, labels[index]!, "replayed", () => responseOf(entry, call.method));
  };
  const used = new Set<number>();
  const routes: HarRoute<C>[] = entries.map((_, index) => ({
    label: labels[index]!,
    matches: (call) => !used.has(index) && fits(call, index),
    reply: (call) => (used.add(index), replay(call, index)),
    used: () => used.has(index),
    fits: (call) => fits(call, index),
  }));
  if (repeat) {
    const last = (call: C) => entries.findLastIndex((_, index) => fits(call, index));
    routes.push({
      label: "(a recorded request again)",
      matches: (call) => last(call) !== -1,
      reply: (call) => replay(call, last(call)),
    });
  }
  return routes;
}

/** An entry of an exchange that failed (status 0) fails the request as a network failure does. */
function failedExchange(entry: HarEntry): void {
  const { status } = entry.response;
  if (status < 200 || status > 599) {
    const error = typeof entry.response._error === "string" ? `: ${entry.response._error}` : "";
    throw new TypeError(`Network error: the recorded exchange failed${error}`);
  }
}

/** What `make` returns; what it throws, as an `HttpClientException` naming the entry. */
function named<T>(index: number, label: string, doing: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    throw new HttpClientException(
      `The recorded har.log.entries[${index}] (${label}) cannot be ${doing}: ${
        describeError(error)
      }`,
      { cause: error },
    );
  }
}
