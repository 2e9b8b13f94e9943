// Durations given by users (API.md "Naming rules"): seconds as a number, or
// a string with its unit. The one parser of every option that takes a
// duration (timeouts, retry delays and caps, traffic controls' windows and
// waits, store timeouts), so the unit trap is closed in one place.

/**
 * A duration written with its unit: milliseconds (`"250ms"`), seconds
 * (`"5s"`), minutes (`"2m"`) or hours (`"1h"`). Every option that takes a
 * duration takes one of these, or a plain number of seconds up to 3,600.
 *
 * @example A timeout in milliseconds
 * ```ts
 * import { type Duration, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const timeout: Duration = "250ms";
 * const config = new HttpClientConfigBuilder().withTimeout(timeout).build();
 * assert.equal(config.timeout, 0.25);
 * ```
 */
export type Duration = `${number}ms` | `${number}s` | `${number}m` | `${number}h`;

/** The most seconds a plain number may stand for: past it, the number was likely meant as ms. */
const LARGEST_PLAIN_SECONDS = 3600;

/**
 * A duration string: digits with an optional fraction and exponent (what
 * `${number}` writes), then the unit, nothing else.
 */
const DURATION_TEXT = /^((?:\d+(?:\.\d+)?|\.\d+)(?:e[+-]?\d+)?)(ms|s|m|h)$/;

/** The seconds of one of each unit, but ms, divided to keep `"250ms"` exactly 0.25. */
const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600 };

/**
 * `value` in seconds when it is a duration string (`"250ms"` is 0.25); a
 * number of seconds up to 3,600, or any value that is neither a string nor
 * a number, as it is, for the caller's own check (a finite number above 0,
 * 0 or more…). A string that is not a duration, and a plain number above
 * 3,600 (most likely milliseconds), are a TypeError naming `field`;
 * `expected` says what else the field takes, as the caller's own message
 * does ("a finite number of seconds above 0").
 */
export function durationSeconds(field: string, value: unknown, expected: string): unknown {
  if (typeof value === "string") {
    const match = DURATION_TEXT.exec(value);
    if (match === null) {
      // A duration is short: a longer string is shown by its length only.
      const got = value.length <= 24 ? JSON.stringify(value) : `a string of ${value.length}`;
      throw new TypeError(
        `Invalid ${field}: expected ${expected}, or a string with its unit ("250ms", "5s", "2m", "1h"), got ${got}`,
      );
    }
    const amount = Number(match[1]);
    return match[2] === "ms" ? amount / 1000 : amount * UNIT_SECONDS[match[2]!]!;
  }
  if (typeof value === "number" && Number.isFinite(value) && value > LARGEST_PLAIN_SECONDS) {
    throw new TypeError(
      `Invalid ${field}: ${value} seconds is ${spelled(value)}; write "${value}ms", or "${
        shortest(value)
      }" if that is meant`,
    );
  }
  return value;
}

/** `seconds` (above an hour) in minutes below two hours, else in hours, rounded. */
function spelled(seconds: number): string {
  return seconds < 7200
    ? `${Math.round(seconds / 60)} minutes`
    : `${Math.round(seconds / 3600)} hours`;
}

/** `seconds` (above an hour) as the duration string {@linkcode spelled} names. */
function shortest(seconds: number): Duration {
  return seconds < 7200 ? `${Math.round(seconds / 60)}m` : `${Math.round(seconds / 3600)}h`;
}
