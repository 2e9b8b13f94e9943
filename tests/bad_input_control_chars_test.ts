// Control characters in header values and URLs are refused when the request
// or configuration is built, with a TypeError that names the field, the
// character's code and its index, and never the value, which may be a
// credential. Sent, a header value would fail as a network error that a GET
// retries, and the URL parser would drop a CR or LF silently.

import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  AuthorizationHook,
  createClient,
  HttpClientConfigBuilder,
  HttpRequest,
  TokenAuthHook,
  TokenData,
  TokenManager,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { countingClient, rejectsWith, throwsAtOnce } from "./helpers.ts";

/** The character codes RFC 9110 forbids in a field value: the C0 controls but HTAB, and DEL. */
const CONTROLS = [...Array(0x20).keys(), 0x7f].filter((code) => code !== 0x09);

/** A character as the messages name it. */
function shown(code: number): string {
  const names: Record<number, string> = { 0x00: "NUL", 0x0a: "LF", 0x0d: "CR" };
  return names[code] ?? `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

Deno.test("HttpRequest refuses every control character but HTAB in a header value, naming its code and index", () => {
  for (const code of CONTROLS) {
    const value = `s3cret${String.fromCharCode(code)}rest`;
    const error = throwsAtOnce(
      () => new HttpRequest("GET", "/x", { headers: { "X-Token": value } }),
      TypeError,
      `Invalid value for header "X-Token" in headers: character ${
        shown(code)
      } at index 6 is not allowed`,
    );
    assert.ok(!error.message.includes("s3cret"));
  }
});

Deno.test("A header value may hold HTAB, and HttpClient sends it", async () => {
  await using server = startFixtureServer();
  await using client = createClient(server.url);
  await client.get("/echo", { headers: { "X-A": "a\tb" } });
  assert.equal(server.last().headers["x-a"], "a\tb");
});

Deno.test("withHeaders(), default headers and auth hooks refuse a control character with a TypeError", () => {
  const request = new HttpRequest("GET", "/x");
  throwsAtOnce(
    () => request.withHeaders({ "X-A": "a\x01" }),
    TypeError,
    'Invalid value for header "X-A" in headers: character U+0001 at index 1 is not allowed',
  );
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withHeaders({ "X-A": "\x1b[2J" }),
    TypeError,
    'Invalid value for header "X-A" in headers: character U+001B at index 0 is not allowed',
  );
  const error = throwsAtOnce(
    () => new ApiKeyAuthHook("key-s3cret\x7f"),
    TypeError,
    'Invalid value for header "X-API-Key" in apiKey: character U+007F at index 10 is not allowed',
  );
  assert.ok(!error.message.includes("s3cret"));
  throwsAtOnce(
    () => new AuthorizationHook(() => "t", { prefix: "Bearer\x0b" }),
    TypeError,
    'Invalid value for header "Authorization" in prefix: character U+000B at index 6 is not allowed',
  );
  const manager = new TokenManager([{
    name: "fixed",
    fetch: () => Promise.resolve(new TokenData({ accessToken: "t" })),
  }]);
  throwsAtOnce(
    () => new TokenAuthHook(manager, { authHeaderPrefix: "Token\x08" }),
    TypeError,
    'Invalid value for header "Authorization" in authHeaderPrefix: character U+0008 at index 5 is not allowed',
  );
});

Deno.test("HttpClient refuses a control character in a header before sending, and does not retry", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  await rejectsWith(
    client.get("/x", { headers: { "X-A": "a\x01b" } }),
    TypeError,
    /^Invalid value for header "X-A" in headers: character U\+0001 at index 1 is not allowed$/,
  );
  assert.deepEqual([attempts, server.requests.length], [[], 0]);
});

/** Bad URLs and base URLs, shared with the Node suite. */
const BAD_URLS: { url?: string; baseUrl?: string; message: string }[] = JSON.parse(
  await Deno.readTextFile(new URL("./bad_urls.json", import.meta.url)),
);

Deno.test("HttpRequest and withBaseUrl() refuse each URL of the shared list with the same TypeError as on Node", () => {
  const base = new HttpRequest("GET", "http://127.0.0.1/");
  for (const { url, baseUrl, message } of BAD_URLS) {
    if (url !== undefined) {
      throwsAtOnce(() => new HttpRequest("GET", url), TypeError, message);
      throwsAtOnce(() => base.with({ url }), TypeError, message);
    }
    if (baseUrl !== undefined) {
      throwsAtOnce(() => new HttpClientConfigBuilder().withBaseUrl(baseUrl), TypeError, message);
      throwsAtOnce(() => createClient(baseUrl), TypeError, message);
    }
  }
});

Deno.test("HttpRequest refuses every control character in a URL, naming the index and never the URL", () => {
  for (const code of [...CONTROLS, 0x09]) {
    const url = `http://u:s3cret@127.0.0.1/a${String.fromCharCode(code)}b`;
    const error = throwsAtOnce(
      () => new HttpRequest("GET", url),
      TypeError,
      `Invalid url: character ${shown(code)} at index 27 is not allowed`,
    );
    assert.ok(!error.message.includes("s3cret"));
  }
  const error = throwsAtOnce(
    () => new HttpClientConfigBuilder().withBaseUrl("http://u:s3cret@127.0.0.1/\r\n"),
    TypeError,
    "Invalid baseUrl: character CR at index 26 is not allowed",
  );
  assert.ok(!error.message.includes("s3cret"));
});

Deno.test("A URL may hold inner spaces and non-ASCII text, and a URL object is taken as it is", () => {
  assert.equal(new HttpRequest("GET", "/a b/é").url, "/a b/é");
  const url = new URL("http://127.0.0.1/a b");
  assert.equal(new HttpRequest("GET", url).url, "http://127.0.0.1/a%20b");
  assert.equal(new HttpClientConfigBuilder().withBaseUrl(url).build().baseUrl, url.href);
});

Deno.test("HttpClient refuses a CR or LF in a URL before sending, so no header can be smuggled in", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  await rejectsWith(
    client.get("/a\r\nX-Injected: 1"),
    TypeError,
    /^Invalid url: character CR at index 2 is not allowed$/,
  );
  assert.deepEqual([attempts, server.requests.length], [[], 0]);
});
