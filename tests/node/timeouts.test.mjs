// Timeouts on the npm build under Node (undici transport): `null` turns one
// off, `totalTimeout` bounds a whole call (attempts, retry waits, token
// fetch), the per-call options override the client's, and a call with no
// timeout is still ended by close() and by the caller's signal.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  TimeoutException,
  TokenManager,
} from "@fetchline/fetchline";
import { toCurl } from "@fetchline/fetchline/utils";
import { fixture } from "./server.mjs";
import { rejectsWith, settles } from "./helpers.mjs";

function client(t, server, configure) {
  const created = new HttpClient(
    configure(new HttpClientConfigBuilder().withBaseUrl(server.url)).build(),
  );
  t.after(() => created.close());
  return created;
}

/** Answers `path` after `ms` with `status`. */
function slowRoute(server, path, ms, status = 200, headers = {}) {
  server.route(path, (_req, res) => {
    const timer = setTimeout(() => {
      res.writeHead(status, { "content-type": "text/plain", ...headers });
      res.end("done");
    }, ms);
    res.on("close", () => clearTimeout(timer));
  });
}

/** A retry sleep that records the waits instead of sleeping. */
function recordedWaits() {
  const waits = [];
  return { waits, sleep: (ms) => (waits.push(ms), Promise.resolve()) };
}

test("timeout: null lets a call slower than the client's timeout finish", async (t) => {
  const server = await fixture(t);
  slowRoute(server, "/slow", 300);
  const strict = client(t, server, (b) => b.withTimeout(0.1).withRetry({ maxRetries: 0 }));
  await rejectsWith(strict.get("/slow"), TimeoutException, /^Request timed out after 0\.1 s: /);
  assert.equal((await strict.get("/slow", { timeout: null })).statusCode, 200);
  const patient = client(t, server, (b) => b.withTimeout(null).withRetry({ maxRetries: 0 }));
  assert.equal((await patient.get("/slow")).statusCode, 200);
  assert.equal(new HttpRequest("GET", "/x", { timeout: null }).timeout, null);
  assert.doesNotMatch(
    toCurl(new HttpRequest("GET", "http://127.0.0.1/", { timeout: null })),
    /max-time/,
  );
});

test("close() and the caller's signal end a call with no timeout", async (t) => {
  const server = await fixture(t);
  server.route("/hang", () => {});
  server.route("/trickle", (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    const id = setInterval(() => res.write("x"), 50);
    res.on("close", () => clearInterval(id));
  });
  const http = client(t, server, (b) => b.withTimeout(null).withRetry({ maxRetries: 0 }));
  const controller = new AbortController();
  const aborted = http.get("/hang", { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await rejectsWith(settles(aborted, 2000), HttpClientException, /^Request was aborted: GET /);
  const head = http.get("/hang");
  const body = http.get("/trickle");
  setTimeout(() => http.close(), 100);
  for (const call of [head, body]) {
    await rejectsWith(
      settles(call, 2000),
      HttpClientException,
      /^Client was closed during the request: GET /,
    );
  }
});

test("totalTimeout fails a call whose attempts each fit their timeout but together pass it", async (t) => {
  const server = await fixture(t);
  slowRoute(server, "/busy", 150, 503);
  const { waits, sleep } = recordedWaits();
  const http = client(
    t,
    server,
    (b) =>
      b.withTimeout(1).withTotalTimeout(0.4).withRetry({ maxRetries: 5, sleep, random: () => 0 }),
  );
  await rejectsWith(
    settles(http.get("/busy")),
    TimeoutException,
    /^Request timed out after 0\.4 s \(totalTimeout\): GET http:\/\/127\.0\.0\.1:\d+\/busy$/,
  );
  assert.ok(
    server.requests.length >= 2 && server.requests.length <= 3,
    `${server.requests.length}`,
  );
  assert.equal(waits.length, server.requests.length - 1);
});

test("a retry wait that would pass the totalTimeout fails the call at once, without sleeping", async (t) => {
  const server = await fixture(t);
  slowRoute(server, "/later", 0, 503, { "retry-after": "5" });
  const { waits, sleep } = recordedWaits();
  const http = client(t, server, (b) => b.withTotalTimeout(2).withRetry({ sleep }));
  await rejectsWith(
    http.get("/later"),
    TimeoutException,
    /^Retry wait of 5 s would pass the totalTimeout of 2 s: GET /,
  );
  assert.deepEqual(waits, []);
  assert.equal((await http.get("/later", { totalTimeout: null })).statusCode, 503);
  assert.deepEqual(waits, [5000, 5000]);
});

test("the token fetch counts inside the totalTimeout; a per-call totalTimeout overrides the client's", async (t) => {
  const server = await fixture(t);
  const manager = new TokenManager([{ name: "never", fetch: () => new Promise(() => {}) }]);
  const http = client(
    t,
    server,
    (b) => b.withTotalTimeout(0.3).withTokenAuth({ tokenManager: manager }),
  );
  await rejectsWith(
    settles(http.get("/a"), 3000),
    TimeoutException,
    /^Request timed out after 0\.3 s \(totalTimeout\): GET /,
  );
  await rejectsWith(
    settles(http.get("/a", { totalTimeout: 0.2 }), 3000),
    TimeoutException,
    /after 0\.2 s \(totalTimeout\)/,
  );
  assert.equal(server.requests.length, 0);
});

test("bad timeouts are a TypeError naming the field", async (t) => {
  const server = await fixture(t);
  const http = client(t, server, (b) => b);
  for (
    const [value, shown] of [
      [-1, ", got -1"],
      [NaN, ", got NaN"],
      [Infinity, ", got Infinity"],
      // A string is a duration with its unit; "5" has none.
      ["5", ', or a string with its unit \\("250ms", "5s", "2m", "1h"\\), got "5"'],
      [5000, '5000 seconds is 83 minutes; write "5000ms", or "83m" if that is meant'],
    ]
  ) {
    const message = (field) =>
      new RegExp(
        `^Invalid ${field}: ${
          Number.isFinite(value) && value > 3600
            ? ""
            : "expected a finite number of seconds above 0"
        }${shown}$`,
      );
    assert.throws(() => new HttpClientConfigBuilder().withTimeout(value), {
      name: "TypeError",
      message: message("timeout"),
    });
    assert.throws(() => new HttpClientConfigBuilder().withReadTimeout(value), {
      name: "TypeError",
      message: message("readTimeout"),
    });
    assert.throws(() => new HttpClientConfigBuilder().withTotalTimeout(value), {
      name: "TypeError",
      message: message("totalTimeout"),
    });
    await assert.rejects(http.get("/x", { totalTimeout: value }), {
      name: "TypeError",
      message: message("totalTimeout"),
    });
    await assert.rejects(http.get("/x", { readTimeout: value }), {
      name: "TypeError",
      message: message("readTimeout"),
    });
    await assert.rejects(http.get("/x", { timeout: value }), {
      name: "TypeError",
      message: message("timeout"),
    });
  }
  assert.equal(server.requests.length, 0);
  const config = new HttpClientConfigBuilder().build();
  assert.deepEqual([config.timeout, config.readTimeout, config.totalTimeout], [30, 30, null]);
});
