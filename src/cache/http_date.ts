// HTTP-date (RFC 9110 5.6.7) and Age (RFC 9111 5.1) as a cache reads them:
// strictly, an invalid value is not guessed at (an invalid Expires means
// "already expired", RFC 9111 5.3).

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY = "(?:mon|tue|wed|thu|fri|sat|sun)";
const LONG_DAY = "(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)";
const MONTH = "(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)";
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
// Case aside (recipients are asked to be robust, RFC 9110 5.6.7), the three
// forms exactly: "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94
// 08:49:37 GMT", "Sun Nov  6 08:49:37 1994".
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, "i");
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, "i");
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`, "i");

/**
 * The time of an HTTP-date in ms, or `NaN` when `value` is not one (a
 * time zone other than GMT, a missing comma, extra spaces, dashes in the
 * IMF form, a one-digit hour, a two-digit year in the IMF form...).
 */
export function parseHttpDate(value: string | undefined): number {
  if (value === undefined) return NaN;
  const text = value.trim();
  let parts: [string, string, string, string, string, string] | undefined;
  let match = IMF_FIXDATE.exec(text);
  if (match !== null) {
    const [, day, month, year, hour, minute, second] = match as unknown as string[];
    parts = [year!, month!, day!, hour!, minute!, second!];
  } else if ((match = RFC850.exec(text)) !== null) {
    const [, day, month, year, hour, minute, second] = match as unknown as string[];
    // A two-digit year more than 50 years ahead is of the past century (RFC 9110 5.6.7).
    const now = new Date().getUTCFullYear();
    let full = Math.floor(now / 100) * 100 + Number(year);
    if (full > now + 50) full -= 100;
    parts = [`${full}`, month!, day!, hour!, minute!, second!];
  } else if ((match = ASCTIME.exec(text)) !== null) {
    const [, month, day, hour, minute, second, year] = match as unknown as string[];
    parts = [year!, month!, day!.trim(), hour!, minute!, second!];
  }
  if (parts === undefined) return NaN;
  const [year, month, day, hour, minute, second] = parts;
  const [d, h, m, s] = [Number(day), Number(hour), Number(minute), Number(second)];
  if (d < 1 || d > 31 || h > 23 || m > 59 || s > 60) return NaN;
  return Date.UTC(Number(year), MONTHS.indexOf(month.toLowerCase()), d, h, m, Math.min(s, 59));
}

/**
 * The Age of a response in seconds (RFC 9111 5.1): the first member of a
 * list (two Age fields are one list), a non-negative integer; anything else
 * (a fraction, a sign, letters) is ignored, as 0.
 */
export function parseAge(value: string | undefined): number {
  if (value === undefined) return 0;
  const first = value.split(",", 1)[0]!.trim();
  return /^\d+$/.test(first) ? Number(first) : 0;
}
