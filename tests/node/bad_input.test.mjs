// Bad input on the npm build under Node: the same TypeErrors as on Deno for
// control characters in URLs and header values, thrown before anything is
// sent, and an invalid Retry-After from undici's response ignored.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  createClient,
  HttpClient,
  HttpClientConfigBuilder,
  HttpRequest,
} from "@fetchline/fetchline";
import { fixture } from "./server.mjs";

test("bad URLs and base URLs get the same TypeError as on Deno", () => {
  const cases = JSON.parse(readFileSync(new URL("./bad_urls.json", import.meta.url), "utf8"));
  assert.ok(cases.length > 0);
  for (const { url, baseUrl, message } of cases) {
    const same = (error) => error instanceof TypeError && error.message === message;
    if (url !== undefined) assert.throws(() => new HttpRequest("GET", url), same);
    if (baseUrl !== undefined) {
      assert.throws(() => new HttpClientConfigBuilder().withBaseUrl(baseUrl), same);
    }
  }
});

test("a CR or LF in a URL and a control character in a header fail before sending", async (t) => {
  const server = await fixture(t);
  const http = createClient(server.url);
  t.after(() => http.close());
  await assert.rejects(
    http.get("/a\r\nX-Injected: 1"),
    (error) =>
      error instanceof TypeError && /^Invalid url: character CR at index 2/.test(error.message),
  );
  await assert.rejects(
    http.get("/a", { headers: { "X-A": "a\u0001b" } }),
    (error) =>
      error instanceof TypeError &&
      error.message ===
        'Invalid value for header "X-A" in headers: character U+0001 at index 1 is not allowed',
  );
  assert.equal(server.requests.length, 0);
});

test("an invalid Retry-After is ignored and the usual backoff applies", async (t) => {
  const server = await fixture(t);
  server.route("/busy", (req, res) => {
    const value = new URL(req.url, "http://127.0.0.1").searchParams.get("v");
    res.writeHead(503, { "retry-after": value });
    res.end();
  });
  const waits = [];
  const http = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(server.url)
      .withRetry({ random: () => 0.5, sleep: (ms) => (waits.push(ms), Promise.resolve()) })
      .build(),
  );
  t.after(() => http.close());
  for (const value of ["-1", "1.5", "Sun, 6 Nov 1994 08:49:37 GMT", "2"]) {
    waits.length = 0;
    assert.equal((await http.get("/busy", { params: { v: value } })).statusCode, 503);
    assert.deepEqual(waits, value === "2" ? [2000, 2000] : [250, 500], value);
  }
});
