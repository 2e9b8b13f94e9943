// Retry-After is delay-seconds (digits only) or an HTTP-date in one of the
// three formats HTTP has; any other value is ignored, so the usual backoff
// applies, rather than read by Date.parse as a date (often a past one, a
// wait of 0).

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { parseRetryAfter } from "../src/http/headers.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { recordedWaits } from "./helpers.ts";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `date` in the obsolete RFC 850 format: `Sunday, 06-Nov-94 08:49:37 GMT`. */
function rfc850(date: Date): string {
  const [d, y] = [date.getUTCDate(), date.getUTCFullYear() % 100].map(pad);
  return `${DAYS[date.getUTCDay()]}, ${d}-${MONTHS[date.getUTCMonth()]}-${y} ${clock(date)} GMT`;
}

/** `date` in C's asctime format: `Sun Nov  6 08:49:37 1994`. */
function asctime(date: Date): string {
  const day = String(date.getUTCDate()).padStart(2, " ");
  return `${DAYS[date.getUTCDay()]!.slice(0, 3)} ${MONTHS[date.getUTCMonth()]} ${day} ${
    clock(date)
  } ${date.getUTCFullYear()}`;
}

function clock(date: Date): string {
  return [date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()].map(pad).join(":");
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

/** A server answering 503 with the Retry-After of the `v` query parameter. */
function retryAfterServer() {
  const server = startFixtureServer();
  server.route("/busy", (request) =>
    new Response(null, {
      status: 503,
      headers: { "retry-after": new URL(request.url).searchParams.get("v")! },
    }));
  return server;
}

/** The waits of one call to `/busy` answering Retry-After `value`, and the requests it made. */
async function waitsFor(server: FixtureServer, value: string): Promise<[number[], number]> {
  const before = server.requests.length;
  const { waits, sleep } = recordedWaits();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRetry({ random: () => 0.5, sleep })
    .build();
  await using client = new HttpClient(config);
  const response = await client.get("/busy", { params: { v: value } });
  assert.equal(response.statusCode, 503);
  return [waits, server.requests.length - before];
}

Deno.test("HttpClient ignores an invalid Retry-After and backs off as usual", async () => {
  await using server = retryAfterServer();
  const soon = new Date(Date.now() + 5_000);
  const invalid = [
    "-1",
    "1.5",
    "+3",
    "1e3",
    "0x10",
    "3 s",
    "soon",
    "2001-02",
    "",
    soon.toISOString(),
    soon.toString(),
    "Sun, 6 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 08:49:37 UTC",
    "sun, 06 nov 1994 08:49:37 gmt",
    "Sunday, 06-Nov-1994 08:49:37 GMT",
    "Sun Nov  6 08:49:37 1994 GMT",
  ];
  for (const value of invalid) {
    const [waits] = await waitsFor(server, value);
    assert.deepEqual(waits, [250, 500], `Retry-After: ${JSON.stringify(value)}`);
  }
});

Deno.test("HttpClient honours Retry-After as delay-seconds and in each of the three date formats", async () => {
  await using server = retryAfterServer();
  assert.deepEqual(await waitsFor(server, "2"), [[2000, 2000], 3]);
  assert.deepEqual(await waitsFor(server, "0"), [[0, 0], 3]);
  for (const format of [(date: Date) => date.toUTCString(), rfc850, asctime]) {
    const value = format(new Date(Date.now() + 10_000));
    const [waits] = await waitsFor(server, value);
    assert.equal(waits.length, 2, value);
    for (const wait of waits) assert.ok(wait > 7_000 && wait <= 10_000, `${value}: ${wait} ms`);
  }
});

Deno.test("HttpClient returns the response at once when Retry-After is a huge number of seconds", async () => {
  await using server = retryAfterServer();
  for (const value of ["99999999999999999999", "9".repeat(400)]) {
    assert.deepEqual(await waitsFor(server, value), [[], 1], value);
  }
});

Deno.test("parseRetryAfter() reads the three date formats strictly, with RFC 850's two-digit years", () => {
  const now = Date.UTC(2026, 0, 1);
  const cases: [string, number | undefined][] = [
    ["Sun, 06 Nov 2044 08:49:37 GMT", Date.UTC(2044, 10, 6, 8, 49, 37)],
    ["Sunday, 06-Nov-44 08:49:37 GMT", Date.UTC(2044, 10, 6, 8, 49, 37)],
    ["Sun Nov  6 08:49:37 2044", Date.UTC(2044, 10, 6, 8, 49, 37)],
    ["Sun Nov 06 08:49:37 2044", Date.UTC(2044, 10, 6, 8, 49, 37)],
    ["Thu, 29 Feb 2028 00:00:00 GMT", Date.UTC(2028, 1, 29)],
    ["Sat, 31 Dec 2050 23:59:60 GMT", Date.UTC(2051, 0, 1)],
    ["Wednesday, 01-Jan-76 00:00:00 GMT", Date.UTC(2076, 0, 1)],
    ["Thursday, 01-Jan-77 00:00:00 GMT", Date.UTC(1977, 0, 1)],
    ["Thu, 01 Jan 1970 00:00:00 GMT", Date.UTC(1970, 0, 1)],
    ["Wed, 29 Feb 2027 00:00:00 GMT", undefined],
    ["Wed, 31 Apr 2027 00:00:00 GMT", undefined],
    ["Wed, 00 Apr 2027 00:00:00 GMT", undefined],
    ["Wed, 01 Apr 2027 24:00:00 GMT", undefined],
    ["Wed, 01 Apr 2027 12:60:00 GMT", undefined],
    ["Wed, 01 Apr 2027 12:00:61 GMT", undefined],
    ["Wed, 01 Apr 2027 12:00 GMT", undefined],
    ["Wed, 01 apr 2027 12:00:00 GMT", undefined],
    ["Wednesday, 01 Apr 2027 12:00:00 GMT", undefined],
    ["Wed, 01-Apr-27 12:00:00 GMT", undefined],
    ["Wed Apr  0 12:00:00 2027", undefined],
    ["Wed Apr 1 12:00:00 2027", undefined],
    ["Wed, 01 Apr 2027 12:00:00 GMT, 5", undefined],
    ["٣", undefined],
  ];
  for (const [value, time] of cases) {
    const expected = time === undefined ? undefined : Math.max(0, time - now);
    assert.equal(parseRetryAfter(value, now), expected, value);
  }
  assert.equal(parseRetryAfter("\t5 ", now), 5000, "blanks around are no part of the value");
});
