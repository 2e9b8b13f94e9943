// What a response's rate-limit headers say about when its quota comes back:
// the IETF httpapi draft's `RateLimit` (its Structured Fields list of draft
// -08 on, and the dictionary of draft -07), the earlier drafts'
// `RateLimit-Reset`, and the common `X-RateLimit-Reset`. Read by the retry
// decision (send/attempts.ts) and by serverPacing() (traffic/pacing_signal.ts).

import { parseHttpDate } from "./headers.ts";

/** Anything whose headers can be read by name, in any case (an `HttpResponse`). */
export interface HeaderSource {
  /** The value of header `name`, or `undefined` when absent. */
  header(name: string): string | undefined;
}

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
 * mean a wait of 56,000 years.
 */
const EPOCH_MS_FROM = 1e12;

/** A reset value: seconds, with a fraction as Discord's epochs have. */
const RESET = /^\d+(?:\.\d+)?$/;

/** The time now by the server's clock: its `Date`, else this machine's. */
export function serverNow(response: HeaderSource): number {
  const date = response.header("date");
  return (date === undefined ? undefined : parseHttpDate(date)) ?? Date.now();
}

/**
 * How many milliseconds from now the spent quota that the rate-limit
 * headers of `response` describe comes back, or `undefined` when they
 * announce none: the longest of
 *
 * - the items of the IETF draft's `RateLimit` list (`"default";r=0;t=30`)
 *   whose remaining `r` is 0, waiting their `t` seconds (without `t`, the
 *   `w` of the `RateLimit-Policy` item of the same name); with `spent`
 *   only, draft -07's dictionary (`limit=100, remaining=0, reset=30`), its
 *   `reset` seconds unless `remaining` is above 0;
 * - `X-RateLimit-Reset` with `X-RateLimit-Remaining: 0`, and the earlier
 *   drafts' `RateLimit-Reset` with `RateLimit-Remaining: 0`: a number of
 *   seconds from now below 1e9 ({@linkcode EPOCH_FROM}), an epoch time in
 *   seconds from 1e9 (2001-09-09), in milliseconds from 1e12, read against
 *   the response's `Date` (the server's clock) when it has one.
 *
 * With `spent` (the status says the quota is spent: a 429 or 503), a quota
 * counts unless it says that some of it remains: a reset alone
 * (`X-RateLimit-Reset: 30`) is a wait. A response with a positive `Age`
 * came from a cache: its headers are old news, ignored (the draft says so).
 */
export function rateLimitWait(response: HeaderSource, spent: boolean): number | undefined {
  // Most responses carry none of these: three lookups, and nothing parsed.
  const draft = response.header("ratelimit");
  const xRemaining = response.header("x-ratelimit-remaining");
  const remaining = response.header("ratelimit-remaining");
  const xReset = spent || xRemaining !== undefined
    ? response.header("x-ratelimit-reset")
    : undefined;
  const reset = spent || remaining !== undefined ? response.header("ratelimit-reset") : undefined;
  if (draft === undefined && xReset === undefined && reset === undefined) return undefined;
  const age = response.header("age");
  if (age !== undefined && Number(age) > 0) return undefined;
  let now: number | undefined;
  const clock = () => now ??= serverNow(response);
  const waits = [
    draftWait(draft, response.header("ratelimit-policy"), spent),
    resetWait(xRemaining, xReset, spent, clock),
    resetWait(remaining, reset, spent, clock),
  ].filter((wait) => wait !== undefined);
  return waits.length === 0 ? undefined : Math.max(...waits);
}

/** True when a quota whose remaining is `remaining` (absent: `undefined`) counts as spent. */
function isSpent(remaining: string | number | true | undefined, spent: boolean): boolean {
  if (remaining === undefined) return spent;
  return typeof remaining === "number" ? remaining === 0 : /^0+$/.test(String(remaining).trim());
}

/** `Remaining: 0` (or none, when `spent`) with `Reset`, in ms from now. */
function resetWait(
  remaining: string | undefined,
  reset: string | undefined,
  spent: boolean,
  serverNow: () => number,
): number | undefined {
  if (reset === undefined || !isSpent(remaining, spent)) return undefined;
  const text = reset.trim();
  if (!RESET.test(text)) return undefined;
  const seconds = Number(text);
  if (seconds >= EPOCH_MS_FROM) return Math.max(0, seconds - serverNow());
  return seconds >= EPOCH_FROM ? Math.max(0, seconds * 1000 - serverNow()) : seconds * 1000;
}

/**
 * The longest wait of the spent items of a `RateLimit` field, in ms, or
 * `undefined`: draft -08 on, a Structured Fields list
 * (`"default";r=0;t=30`); draft -07, a dictionary
 * (`limit=100, remaining=0, reset=30`). A malformed field is ignored
 * whole, as the draft says.
 */
function draftWait(
  field: string | undefined,
  policyField: string | undefined,
  spent: boolean,
): number | undefined {
  if (field === undefined) return undefined;
  const items = parseList(field);
  if (items === undefined) {
    // serverPacing() reads only the current syntax (its tests pin it); a
    // 429 or 503 that says nothing else may still speak draft -07.
    if (!spent) return undefined;
    const members = parseDictionary(field);
    const reset = members?.get("reset");
    if (typeof reset !== "number" || !isSpent(members!.get("remaining"), spent)) return undefined;
    return reset * 1000;
  }
  let longest: number | undefined;
  for (const [name, params] of items) {
    if (!isSpent(params.get("r"), spent)) continue;
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

// RFC 9651 (Structured Field Values) lists of items with parameters, and
// dictionaries, read as far as the RateLimit fields need: each item's bare
// value (a string or token, as text) and its parameters (integers as
// numbers, the rest as text, `true` for a key alone).

const STRING = String.raw`"(?:[^"\\]|\\["\\])*"`;
const TOKEN = String.raw`[A-Za-z*][\w:/!#$%&'*+.^|~-]*`;
const BARE = String.raw`-?\d{1,15}(?:\.\d{1,3})?|${STRING}|${TOKEN}|:[A-Za-z0-9+/=]*:|\?[01]`;
const KEY = String.raw`[a-z*][a-z0-9_.*-]*`;
const PARAM = String.raw`;[ ]*(${KEY})(?:=(${BARE}))?`;
const MEMBER = new RegExp(String.raw`[ \t]*(${BARE})((?:${PARAM})*)[ \t]*(?:,|$)`, "y");
const ENTRY = new RegExp(String.raw`[ \t]*(${KEY})(?:=(${BARE}))?(?:${PARAM})*[ \t]*(?:,|$)`, "y");
const PARAMS = new RegExp(PARAM, "g");

type Params = Map<string, string | number | true>;
type Item = [value: string, params: Params];

/** The items of the list `field`, or `undefined` when it is not one. */
function parseList(field: string): Item[] | undefined {
  const items: Item[] = [];
  const ok = scan(MEMBER, field, (match) => {
    const params: Params = new Map();
    for (const [, key, value] of match[2]!.matchAll(PARAMS)) {
      params.set(key!, value === undefined ? true : bareValue(value));
    }
    items.push([String(bareValue(match[1]!)), params]);
  });
  return ok ? items : undefined;
}

/** The members of the dictionary `field` (their parameters left out), or `undefined`. */
function parseDictionary(field: string): Params | undefined {
  const members: Params = new Map();
  const ok = scan(ENTRY, field, (match) => {
    members.set(match[1]!, match[2] === undefined ? true : bareValue(match[2]));
  });
  return ok ? members : undefined;
}

/** Matches `pattern` (sticky) member after member over the whole `field`; false when malformed. */
function scan(pattern: RegExp, field: string, each: (match: RegExpExecArray) => void): boolean {
  pattern.lastIndex = 0;
  while (pattern.lastIndex < field.length) {
    const at = pattern.lastIndex;
    const match = pattern.exec(field);
    // No progress (an empty member: "a,,b") is as malformed as no match.
    if (match === null || pattern.lastIndex === at) return false;
    each(match);
    // A trailing comma ends the field with nothing after it: malformed.
    if (pattern.lastIndex === field.length && field.trimEnd().endsWith(",")) return false;
  }
  return true;
}

function bareValue(text: string): string | number {
  if (/^-?\d+$/.test(text)) return Number(text);
  return text.startsWith('"') ? text.slice(1, -1).replace(/\\(["\\])/g, "$1") : text;
}
