// What a response says about when its origin may be called again: the
// signals serverPacing() pauses an origin on (API.md "Traffic control").

import type { HttpResponse } from "../models/response.ts";
import { parseHttpDate, parseRetryAfter } from "../http/headers.ts";

/**
 * A reset value (`X-RateLimit-Reset`, `RateLimit-Reset`) from this number on
 * is an epoch time in seconds (1e9 is 2001-09-09), below it a number of
 * seconds from now: no wait is 31 years long, and no reset an API sends
 * today is before 2001. ky draws the line at 2024-01-01 instead; both read
 * every real value alike.
 */
export const EPOCH_FROM = 1e9;

/**
 * A reset from this number on is an epoch time in milliseconds (1e12 ms is
 * the same day as 1e9 s), as some APIs send it: read as seconds, it would
 * pause the origin for 56,000 years.
 */
const EPOCH_MS_FROM = 1e12;

/** A reset value: seconds, with a fraction as Discord's epochs have. */
const RESET = /^\d+(?:\.\d+)?$/;

/**
 * How many milliseconds from now the origin of `response` asks callers to
 * wait, or `undefined` for none:
 *
 * - a 429 or 503 with `Retry-After` (seconds or an HTTP date): that, and
 *   nothing else (the RateLimit draft: Retry-After takes precedence);
 * - else the longest of the rate-limit headers that say the quota is
 *   spent: an item of the IETF draft's `RateLimit` list with `r=0`, waiting
 *   its `t` (without `t`, the `w` of the `RateLimit-Policy` item of the
 *   same name); `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset`, and
 *   the earlier drafts' `RateLimit-Remaining: 0` with `RateLimit-Reset`, in
 *   seconds or as an epoch time ({@linkcode EPOCH_FROM}; from 1e12, in
 *   milliseconds).
 *
 * An epoch time and an HTTP date are read against the response's `Date`
 * (the server's clock), when it has one. A response with a positive `Age`
 * came from a cache: its headers are old news, ignored (the draft says so).
 */
export function pacingWait(response: HttpResponse): number | undefined {
  // Most responses carry none of these: three or four lookups, and nothing
  // parsed (the Date of every response parsed made the control 10.6 µs a
  // call over an empty middleware, 2.7-3.2 µs without, with a canned `next`
  // on Deno 2.9.6; a loopback call costs the client about 125 µs of CPU).
  const status = response.statusCode;
  const retryAfter = status === 429 || status === 503 ? response.header("retry-after") : undefined;
  const draft = response.header("ratelimit");
  const spent = [response.header("x-ratelimit-remaining"), response.header("ratelimit-remaining")];
  if (retryAfter === undefined && draft === undefined && spent.every((v) => v === undefined)) {
    return undefined;
  }
  const age = response.header("age");
  if (age !== undefined && Number(age) > 0) return undefined;
  const serverNow = () => {
    const date = response.header("date");
    return (date === undefined ? undefined : parseHttpDate(date)) ?? Date.now();
  };
  if (retryAfter !== undefined) {
    const ms = parseRetryAfter(retryAfter, serverNow());
    if (ms !== undefined) return ms;
  }
  const waits = [
    draftWait(draft, response.header("ratelimit-policy")),
    resetWait(spent[0], response.header("x-ratelimit-reset"), serverNow),
    resetWait(spent[1], response.header("ratelimit-reset"), serverNow),
  ].filter((wait) => wait !== undefined);
  return waits.length === 0 ? undefined : Math.max(...waits);
}

/** `Remaining: 0` with `Reset`, in ms from now. */
function resetWait(
  remaining: string | undefined,
  reset: string | undefined,
  serverNow: () => number,
): number | undefined {
  if (remaining === undefined || !/^0+$/.test(remaining.trim()) || reset === undefined) {
    return undefined;
  }
  const text = reset.trim();
  if (!RESET.test(text)) return undefined;
  const seconds = Number(text);
  if (seconds >= EPOCH_MS_FROM) return Math.max(0, seconds - serverNow());
  return seconds >= EPOCH_FROM ? Math.max(0, seconds * 1000 - serverNow()) : seconds * 1000;
}

/**
 * The longest wait of the spent items of a `RateLimit` field (draft -08
 * on: a Structured Fields list, `"default";r=0;t=30`), in ms, or
 * `undefined`. A malformed field is ignored whole, as the draft says.
 */
function draftWait(field: string | undefined, policyField: string | undefined): number | undefined {
  const items = field === undefined ? undefined : parseList(field);
  let longest: number | undefined;
  for (const [name, params] of items ?? []) {
    if (params.get("r") !== 0) continue;
    let seconds = params.get("t");
    if (seconds === undefined && policyField !== undefined) {
      seconds = parseList(policyField)?.find(([policy]) => policy === name)?.[1].get("w");
    }
    if (typeof seconds === "number" && seconds >= 0) {
      longest = Math.max(longest ?? 0, seconds * 1000);
    }
  }
  return longest;
}

// RFC 9651 (Structured Field Values) lists of items with parameters, read
// as far as the RateLimit fields need: each item's bare value (a string or
// token, as text) and its parameters (integers as numbers, the rest as text,
// `true` for a key alone).

const STRING = String.raw`"(?:[^"\\]|\\["\\])*"`;
const TOKEN = String.raw`[A-Za-z*][\w:/!#$%&'*+.^|~-]*`;
const BARE = String.raw`-?\d{1,15}(?:\.\d{1,3})?|${STRING}|${TOKEN}|:[A-Za-z0-9+/=]*:|\?[01]`;
const PARAM = String.raw`;[ ]*([a-z*][a-z0-9_.*-]*)(?:=(${BARE}))?`;
const MEMBER = new RegExp(String.raw`[ \t]*(${BARE})((?:${PARAM})*)[ \t]*(?:,|$)`, "y");
const PARAMS = new RegExp(PARAM, "g");

type Item = [value: string, params: Map<string, string | number | true>];

/** The items of the list `field`, or `undefined` when it is not one. */
function parseList(field: string): Item[] | undefined {
  const items: Item[] = [];
  MEMBER.lastIndex = 0;
  while (MEMBER.lastIndex < field.length) {
    const at = MEMBER.lastIndex;
    const match = MEMBER.exec(field);
    // No progress (an empty member: "a,,b") is as malformed as no match.
    if (match === null || MEMBER.lastIndex === at) return undefined;
    const params = new Map<string, string | number | true>();
    for (const [, key, value] of match[2]!.matchAll(PARAMS)) {
      params.set(key!, value === undefined ? true : bareValue(value));
    }
    items.push([String(bareValue(match[1]!)), params]);
    // A trailing comma ends the field with nothing after it: malformed.
    if (MEMBER.lastIndex === field.length && field.trimEnd().endsWith(",")) return undefined;
  }
  return items;
}

function bareValue(text: string): string | number {
  if (/^-?\d+$/.test(text)) return Number(text);
  return text.startsWith('"') ? text.slice(1, -1).replace(/\\(["\\])/g, "$1") : text;
}
