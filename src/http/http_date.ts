// HTTP-dates in the three formats RFC 9110 has recipients accept, and no
// other: `Date.parse` also reads `2001`, `1.5` or `-1` as dates, which would
// turn a bad `Retry-After` into a wait of 0.

import { trimHeaderValue } from "./headers.ts";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAY_NAME = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY_NAME = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTH = `(?<month>${MONTHS.join("|")})`;
const TIME = "(?<hour>\\d\\d):(?<minute>\\d\\d):(?<second>\\d\\d)";

/** The formats, anchored and of fixed shape, so each match is one linear pass. */
const FORMATS = [
  // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
  new RegExp(`^${DAY_NAME}, (?<day>\\d\\d) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  // Obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
  new RegExp(`^${LONG_DAY_NAME}, (?<day>\\d\\d)-${MONTH}-(?<shortYear>\\d\\d) ${TIME} GMT$`),
  // Obsolete asctime: `Sun Nov  6 08:49:37 1994`
  new RegExp(`^${DAY_NAME} ${MONTH} (?<day>\\d\\d| \\d) ${TIME} (?<year>\\d{4})$`),
];

/**
 * The time of an HTTP-date in milliseconds since the epoch, or `undefined`
 * when `value` is not one: another format, or a day or time out of range
 * (`30 Feb`, `24:00:00`). A two-digit year is read as the nearest one not
 * more than 50 years after `now`. The day name is not checked against the
 * date, as recipients need not.
 */
export function parseHttpDate(value: string, now: number = Date.now()): number | undefined {
  for (const format of FORMATS) {
    const fields = format.exec(value)?.groups;
    if (fields === undefined) continue;
    const year = fields.year === undefined
      ? fullYear(Number(fields.shortYear), now)
      : Number(fields.year);
    return timeOf(year, MONTHS.indexOf(fields.month!), Number(fields.day), fields);
  }
  return undefined;
}

function timeOf(
  year: number,
  month: number,
  day: number,
  time: Record<string, string | undefined>,
): number | undefined {
  const [hour, minute, second] = [Number(time.hour), Number(time.minute), Number(time.second)];
  // A second of 60 is a leap second.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  // setUTCFullYear, unlike Date.UTC, takes years below 100 as they are.
  const midnight = new Date(0);
  midnight.setUTCFullYear(year, month, day);
  // A day the month has not (`30 Feb`) rolls over into the next month: refused.
  if (midnight.getUTCMonth() !== month || midnight.getUTCDate() !== day) return undefined;
  return midnight.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
}

/** The year ending in `twoDigits` that is the latest not more than 50 years after `now`'s. */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = current - (current % 100) + twoDigits;
  return year > current + 50 ? year - 100 : year;
}

/**
 * `Retry-After` as milliseconds from now: delay-seconds (digits only) or an
 * HTTP-date, 0 for a date past. Any other value (`-1`, `1.5`, `1e3`, a date
 * in another format) is `undefined`, so the usual backoff applies.
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = trimHeaderValue(value);
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = parseHttpDate(trimmed, now);
  return date === undefined ? undefined : Math.max(0, date - now);
}
