// The bad input matrix, part one: headers, methods, URLs and
// timeouts. Each row names the exact error class and checks that the
// message names the field; rows sent through a client also check that
// nothing reached the server. Bodies, files and credentials are in
// bad_input_body_test.ts.

import assert from "node:assert/strict";
import {
  clientCredentialsStep,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { countingClient, rejectsWith, throwsAtOnce } from "./helpers.ts";

const FORBIDDEN = [["CR", "\r"], ["LF", "\n"], ["NUL", "\0"]] as const;

Deno.test("HttpRequest refuses header names with CR, LF or NUL with a TypeError naming them", () => {
  for (const [, char] of FORBIDDEN) {
    throwsAtOnce(
      () => new HttpRequest("GET", "/x", { headers: { [`X-A${char}B`]: "v" } }),
      TypeError,
      `Invalid header name in headers: ${JSON.stringify(`X-A${char}B`)}`,
    );
  }
});

Deno.test("HttpRequest refuses header values with CR, LF or NUL with a TypeError naming the header, not the value", () => {
  for (const [name, char] of FORBIDDEN) {
    const error = throwsAtOnce(
      () => new HttpRequest("GET", "/x", { headers: { "X-Token": `s3cret${char}Injected: 1` } }),
      TypeError,
      new RegExp(
        `^Invalid value for header "X-Token" in headers: character ${name} at index 6 is not allowed$`,
      ),
    );
    assert.ok(!error.message.includes("s3cret"));
  }
});

Deno.test("HttpRequest refuses header values that are not strings with a TypeError naming the type", () => {
  const values: [unknown, string][] = [
    [1, "number"],
    [true, "boolean"],
    [null, "null"],
    [undefined, "undefined"],
    [["a"], "an array"],
    [{ a: 1 }, "Object"],
  ];
  for (const [value, type] of values) {
    throwsAtOnce(
      () => new HttpRequest("GET", "/x", { headers: { "X-A": value as string } }),
      TypeError,
      new RegExp(`^Invalid value for header "X-A" in headers: expected a string, got ${type}$`),
    );
  }
  throwsAtOnce(
    () => new HttpRequest("GET", "/x", { headers: new Headers({ a: "b" }) as never }),
    TypeError,
    /^Invalid headers: expected an object of header names to strings$/,
  );
});

Deno.test("HttpRequest refuses a header value above U+00FF, which HTTP cannot carry", () => {
  throwsAtOnce(
    () => new HttpRequest("GET", "/x", { headers: { "X-Price": "5 €" } }),
    TypeError,
    /^Invalid value for header "X-Price" in headers: character U\+20AC at index 2/,
  );
  assert.equal(new HttpRequest("GET", "/x", { headers: { "X-A": "é" } }).headers?.["X-A"], "é");
});

Deno.test("HttpClientConfigBuilder.withHeaders() refuses bad default headers with a TypeError", () => {
  const builder = new HttpClientConfigBuilder();
  throwsAtOnce(() => builder.withHeaders({ "X-A": "a\nb" }), TypeError, /"X-A" in headers: .*LF/);
  throwsAtOnce(() => builder.withHeaders({ "X A": "v" }), TypeError, /header name in headers/);
  throwsAtOnce(() => builder.withHeaders({ "X-A": 1 as never }), TypeError, /got number/);
  assert.deepEqual(builder.build().headers, {}, "nothing bad was kept");
});

Deno.test("HttpClient refuses bad per-call headers with a TypeError before sending", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  await rejectsWith(
    client.get("/x", { headers: { "X-A": "a\r\nX-Injected: 1" } }),
    TypeError,
    /^Invalid value for header "X-A" in headers: character CR/,
  );
  await rejectsWith(
    client.put("/x", { headers: { "X-N": 2 as never } }),
    TypeError,
    /"X-N".*got number/,
  );
  assert.deepEqual([attempts, server.requests.length], [[], 0]);
});

Deno.test("HttpRequest refuses method names outside the eight with a TypeError naming them", () => {
  for (const method of ["FETCH", "", "GET ", "GE\r\nT", "TRACE", "CONNECT"]) {
    throwsAtOnce(
      () => new HttpRequest(method, "/x"),
      TypeError,
      `Invalid method: expected one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, QUERY, got ${
        JSON.stringify(method)
      }`,
    );
  }
  assert.equal(new HttpRequest("delete", "/x").method, "DELETE", "any letter case is fine");
  assert.equal(new HttpRequest("query", "/x").method, "QUERY");
});

Deno.test("HttpRequest refuses a method that is not a string with a TypeError naming its type", () => {
  for (const [method, type] of [[7, "number"], [null, "object"], [undefined, "undefined"]]) {
    throwsAtOnce(
      () => new HttpRequest(method as string, "/x"),
      TypeError,
      new RegExp(`^Invalid method: .* got ${type}$`),
    );
  }
  throwsAtOnce(
    // @ts-expect-error: a method that is not an HttpMethod does not compile either
    () => new HttpClientConfigBuilder().withRetry({ methods: ["GET", "FETCH"] }),
    TypeError,
    /^Invalid method: .*got "FETCH"$/,
  );
});

Deno.test("HttpRequest refuses a URL that is not a string or URL with a TypeError", () => {
  for (const [url, type] of [[42, "number"], [null, "null"], [{ href: "/x" }, "Object"]]) {
    throwsAtOnce(
      () => new HttpRequest("GET", url as string),
      TypeError,
      new RegExp(`^Invalid url: expected a string or URL, got ${type}$`),
    );
  }
});

Deno.test("HttpClient refuses URLs it cannot parse with HttpClientException before sending", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  for (const url of ["http://[bad", "http://127.0.0.1:99999/", "http://exa mple.com/", "http://"]) {
    await rejectsWith(
      client.get(url),
      HttpClientException,
      new RegExp(`^Invalid URL: GET ${RegExp.escape(url)}$`),
    );
  }
  const error = await rejectsWith(
    client.get("http://admin:hunter2@[bad/"),
    HttpClientException,
    /^Invalid URL: GET http:\/\/admin:\*\*\*@\[bad\/$/,
  );
  assert.ok(!String(error).includes("hunter2"));
  assert.deepEqual([attempts, server.requests.length], [[], 0]);
});

Deno.test("HttpClient refuses ftp:, file:, ws:, javascript: and data: URLs with HttpClientException naming the scheme", async () => {
  await using server = startFixtureServer();
  const { client } = countingClient(server);
  await using _ = client;
  const urls = [
    "ftp://127.0.0.1/f",
    "file:///etc/passwd",
    "ws://127.0.0.1/",
    "javascript:alert(1)",
    "data:text/plain,hi",
  ];
  for (const url of urls) {
    const scheme = url.slice(0, url.indexOf(":") + 1);
    await rejectsWith(
      client.get(url),
      HttpClientException,
      new RegExp(`^Unsupported URL scheme "${scheme}": GET `),
    );
  }
  assert.equal(server.requests.length, 0);
});

Deno.test("HttpClient fails a redirect to an ftp: URL with HttpClientException, without retrying", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  await rejectsWith(
    client.get("/redirect/302", { params: { to: "ftp://127.0.0.1/file" } }),
    HttpClientException,
    /^Redirect to an invalid or unsupported URL "ftp:\/\/127\.0\.0\.1\/file": GET /,
  );
  assert.deepEqual(attempts, [0]);
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpClientConfigBuilder.withBaseUrl() refuses other schemes and relative URLs with a TypeError", () => {
  for (const base of ["ftp://127.0.0.1/", "file:///tmp/", "/api", "127.0.0.1:8080"]) {
    throwsAtOnce(
      () => new HttpClientConfigBuilder().withBaseUrl(base),
      TypeError,
      /^Invalid baseUrl: expected an absolute http: or https: URL, got "/,
    );
  }
  const error = throwsAtOnce(
    () => new HttpClientConfigBuilder().withBaseUrl("ftp://u:hunter2@127.0.0.1/"),
    TypeError,
    /got "ftp:\/\/u:\*\*\*@127\.0\.0\.1\/"$/,
  );
  assert.ok(!error.message.includes("hunter2"));
});

const BAD_TIMEOUTS: [unknown, string][] = [
  [-1, "-1"],
  [0, "0"],
  [-0.001, "-0.001"],
  [NaN, "NaN"],
  [Infinity, "Infinity"],
  [-Infinity, "-Infinity"],
  // `null` is no longer refused: it turns the timeout off (tests/timeouts_total_test.ts).
];

Deno.test("HttpRequest and withTimeout() refuse negative, zero and non-finite timeouts with a TypeError", () => {
  for (const [timeout, shown] of BAD_TIMEOUTS) {
    const message = new RegExp(
      `^Invalid timeout: expected a finite number of seconds above 0, got ${shown}$`,
    );
    throwsAtOnce(
      () => new HttpRequest("GET", "/x", { timeout: timeout as number }),
      TypeError,
      message,
    );
    throwsAtOnce(
      () => new HttpClientConfigBuilder().withTimeout(timeout as number),
      TypeError,
      message,
    );
  }
  // A string is a duration with its unit (tests/durations_test.ts); "5" has none.
  const unitless =
    'Invalid timeout: expected a finite number of seconds above 0, or a string with its unit ("250ms", "5s", "2m", "1h"), got "5"';
  throwsAtOnce(() => new HttpRequest("GET", "/x", { timeout: "5" as never }), TypeError, unitless);
  throwsAtOnce(() => new HttpClientConfigBuilder().withTimeout("5" as never), TypeError, unitless);
  throwsAtOnce(
    () =>
      clientCredentialsStep({
        tokenUrl: "http://127.0.0.1/t",
        clientId: "a",
        clientSecret: "s",
        timeout: -1,
      }),
    TypeError,
    /^Invalid timeout: .*got -1$/,
  );
});

Deno.test("HttpClient refuses a negative per-call timeout with a TypeError before sending", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  for (const [timeout, shown] of BAD_TIMEOUTS.slice(0, 3)) {
    await rejectsWith(
      client.get("/x", { timeout: timeout as number }),
      TypeError,
      new RegExp(`^Invalid timeout: .*got ${shown}$`),
    );
  }
  assert.deepEqual([attempts, server.requests.length], [[], 0]);
});
