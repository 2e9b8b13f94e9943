// MockTransport.fromHar's routes (API.md "Recording and replay"): each entry
// of a HAR log answers one request that matches its own (by method, URL and
// body unless told otherwise), in the order they were recorded; a masked
// value (`***`) in the recording matches any value.

import { MASK, redactUrl } from "../masking/views.ts";
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
  });
  return entries as HarEntry[];
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

/** The recorded response of `entry` as a `Response`; a failed exchange throws as a network failure. */
function responseOf(entry: HarEntry, method: string): Response {
  const { status, statusText, headers = [], content } = entry.response;
  if (status < 200 || status > 599) {
    const error = typeof entry.response._error === "string" ? `: ${entry.response._error}` : "";
    throw new TypeError(`Network error: the recorded exchange failed${error}`);
  }
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
  const fits = matcherOf(match);
  const used = new Set<HarEntry>();
  const routes: HarRoute<C>[] = entries.map((entry) => ({
    label: `${entry.request.method.toUpperCase()} ${redactUrl(entry.request.url)}`,
    matches: (call) => !used.has(entry) && fits(call, entry.request),
    reply: (call) => (used.add(entry), responseOf(entry, call.method)),
  }));
  if (repeat) {
    const last = (call: C) => entries.findLast((entry) => fits(call, entry.request));
    routes.push({
      label: "(a recorded request again)",
      matches: (call) => last(call) !== undefined,
      reply: (call) => responseOf(last(call)!, call.method),
    });
  }
  return routes;
}
