// Timeouts that can be turned off (`null`), the total timeout of a call
// (attempts, retry waits and token fetch together), and the per-call options
// that override the client's.

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import {
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  type RequestOptions,
  TimeoutException,
  type TokenData,
  TokenManager,
} from "../mod.ts";
import { toCurl } from "../utils.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { recordedWaits, rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

function client(
  server: FixtureServer,
  configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder,
): HttpClient {
  return new HttpClient(configure(new HttpClientConfigBuilder().withBaseUrl(server.url)).build());
}

/** A route answering 503 after `ms`, each time. */
function busyRoute(server: FixtureServer, ms: number): void {
  server.route("/busy", async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return new Response("busy", { status: 503 });
  });
}

/** A gate the server holds a response on until the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => open = resolve);
  return { opened, open };
}

Deno.test("HttpRequest keeps timeout: null apart from a timeout not given", () => {
  const off = new HttpRequest("GET", "/x", { timeout: null });
  assert.equal(off.timeout, null);
  assert.equal(off.toObject().timeout, null);
  assert.equal(new HttpRequest("GET", "/x").timeout, undefined);
  assert.equal(off.with({ timeout: 2 }).timeout, 2);
  assert.equal(off.withHeaders({ A: "1" }).timeout, null);
});

Deno.test("toCurl() renders --max-time only for a numeric request timeout", () => {
  assert.match(
    toCurl(new HttpRequest("GET", "http://127.0.0.1/", { timeout: 2.5 })),
    /--max-time 2\.5/,
  );
  assert.doesNotMatch(
    toCurl(new HttpRequest("GET", "http://127.0.0.1/", { timeout: null })),
    /max-time/,
  );
  assert.doesNotMatch(toCurl(new HttpRequest("GET", "http://127.0.0.1/")), /max-time/);
});

Deno.test("HttpClientConfigBuilder: read timeout 30 s and no total timeout by default; null turns each off", () => {
  const defaults = new HttpClientConfigBuilder().build();
  assert.deepEqual([defaults.timeout, defaults.readTimeout, defaults.totalTimeout], [30, 30, null]);
  const set = new HttpClientConfigBuilder().withTimeout(null).withReadTimeout(null)
    .withTotalTimeout(12.5).build();
  assert.deepEqual([set.timeout, set.readTimeout, set.totalTimeout], [null, null, 12.5]);
  assert.equal(new HttpClientConfigBuilder().withReadTimeout(4).build().readTimeout, 4);
  assert.equal(new HttpClientConfigBuilder().withTotalTimeout(null).build().totalTimeout, null);
});

/** Bad timeouts, and how the message ends after "above 0". */
const BAD: [unknown, string][] = [
  [-1, ", got -1"],
  [0, ", got 0"],
  [NaN, ", got NaN"],
  [Infinity, ", got Infinity"],
  [-Infinity, ", got -Infinity"],
  ["5", ', or a string with its unit ("250ms", "5s", "2m", "1h"), got "5"'],
  [true, ", got true"],
];

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

Deno.test("withReadTimeout() and withTotalTimeout() refuse what is neither null nor seconds above 0, naming the field", () => {
  for (const [value, shown] of BAD) {
    const builder = new HttpClientConfigBuilder();
    throwsAtOnce(
      () => builder.withReadTimeout(value as number),
      TypeError,
      `Invalid readTimeout: expected a finite number of seconds above 0${shown}`,
    );
    throwsAtOnce(
      () => builder.withTotalTimeout(value as number),
      TypeError,
      `Invalid totalTimeout: expected a finite number of seconds above 0${shown}`,
    );
  }
});

Deno.test("HttpClient refuses a bad per-call totalTimeout or readTimeout with a TypeError before sending", async () => {
  await using server = startFixtureServer();
  await using http = client(server, (b) => b);
  for (const [value, shown] of BAD) {
    for (const field of ["totalTimeout", "readTimeout"]) {
      await rejectsWith(
        http.get("/x", { [field]: value }),
        TypeError,
        new RegExp(`^Invalid ${field}: expected .* above 0${escaped(shown)}$`),
      );
      await rejectsWith(
        http.request(new HttpRequest("GET", "/x"), { [field]: value }),
        TypeError,
        new RegExp(`^Invalid ${field}: `),
      );
    }
  }
  assert.equal(server.requests.length, 0);
});

Deno.test("timeout: null lets a call slower than the client's timeout finish, per request and per client", async () => {
  await using server = startFixtureServer();
  await using strict = client(server, (b) => b.withTimeout(0.1).withRetry({ maxRetries: 0 }));
  await rejectsWith(
    strict.get("/delay/300"),
    TimeoutException,
    /^Request timed out after 0\.1 s: /,
  );
  assert.equal((await strict.get("/delay/300", { timeout: null })).statusCode, 200);
  assert.equal(
    (await strict.request(new HttpRequest("GET", "/delay/300", { timeout: null }))).statusCode,
    200,
  );
  await using patient = client(server, (b) => b.withTimeout(null).withRetry({ maxRetries: 0 }));
  assert.equal((await patient.get("/delay/300")).statusCode, 200);
  await rejectsWith(patient.get("/delay/3000", { timeout: 0.1 }), TimeoutException, /0\.1 s/);
});

Deno.test("a call with no timeout and no signal gives fetch a signal too, which close() aborts", async () => {
  const signals: (AbortSignal | null | undefined)[] = [];
  // As a fetch does: the head never comes, the signal's abort rejects the wait for it.
  const fetch = (_input: string | URL | Request, init?: RequestInit) => {
    const signal = init?.signal;
    signals.push(signal);
    return new Promise<Response>((_, reject) =>
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true })
    );
  };
  const off = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl("http://127.0.0.1:9/").withFetch(fetch)
      .withTimeout(null).build(),
  );
  const call = off.get("/");
  for (let wait = 0; wait < 200 && signals.length === 0; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(signals.length, 1);
  const [signal] = signals;
  assert.ok(signal instanceof AbortSignal);
  assert.equal(signal.aborted, false);
  await off.close();
  assert.equal(signal.aborted, true);
  await rejectsWith(call, HttpClientException, /closed/);
});

const WAITS = [
  ["a pending head", "none"],
  ["a streamed body", "chunked"],
  ["a body of known length", "length"],
] as const;

Deno.test("a call with no timeout starts no timer; one with a timeout or a totalTimeout does", async () => {
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    let answer: (() => void) | undefined;
    const fetch = () =>
      new Promise<Response>((resolve) => answer = () => resolve(new Response("ok")));
    const build = (timeout: number | null) =>
      new HttpClient(
        new HttpClientConfigBuilder().withBaseUrl("http://127.0.0.1:9/").withFetch(fetch)
          .withTimeout(timeout).build(),
      );
    const timersDuring = async (http: HttpClient, options: RequestOptions = {}) => {
      const call = http.get("/", options);
      await Promise.resolve();
      const timers = clock.countTimers();
      answer!();
      await call;
      return timers;
    };
    using off = build(null);
    using on = build(0.5);
    assert.equal(await timersDuring(off), 0);
    assert.equal(await timersDuring(on, { timeout: null }), 0);
    assert.equal(await timersDuring(on), 1);
    assert.equal(await timersDuring(off, { totalTimeout: 0.5 }), 1);
  } finally {
    clock.uninstall();
  }
});

for (const [name, body] of WAITS) {
  Deno.test(`close() fails a call with no timeout at once, waiting for ${name}`, async () => {
    await using server = startFixtureServer();
    const held = gate();
    const received = gate();
    server.route("/held", async () => {
      received.open();
      if (body === "none") {
        await held.opened;
        return new Response("late");
      }
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new Uint8Array([120]));
          await held.opened;
          controller.enqueue(new Uint8Array([121]));
          controller.close();
        },
      });
      return new Response(stream, body === "length" ? { headers: { "content-length": "2" } } : {});
    });
    const http = client(server, (b) => b.withTimeout(null));
    const pending = http.get("/held");
    await received.opened;
    // Let the head (and the first chunk) arrive before closing.
    if (body !== "none") await new Promise((resolve) => setTimeout(resolve, 50));
    http.close();
    await rejectsWith(
      settles(pending, 2000),
      HttpClientException,
      /^Client was closed during the request: GET /,
    );
    held.open();
  });
}

Deno.test("the caller's signal aborts a call with no timeout", async () => {
  await using server = startFixtureServer();
  const held = gate();
  server.route("/held", async () => (await held.opened, new Response("late")));
  await using http = client(server, (b) => b.withTimeout(null).withRetry({ maxRetries: 0 }));
  const controller = new AbortController();
  const pending = http.get("/held", { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await rejectsWith(settles(pending, 2000), HttpClientException, /^Request was aborted: GET /);
  held.open();
});

Deno.test("totalTimeout fails a call whose attempts each fit their timeout but together pass it", async () => {
  await using server = startFixtureServer();
  busyRoute(server, 150);
  const { waits, sleep } = recordedWaits();
  const retry = { maxRetries: 5, sleep, random: () => 0 };
  await using http = client(server, (b) => b.withTimeout(1).withTotalTimeout(0.4).withRetry(retry));
  await rejectsWith(
    settles(http.get("/busy")),
    TimeoutException,
    /^Request timed out after 0\.4 s \(totalTimeout\): GET http:\/\/127\.0\.0\.1:\d+\/busy$/,
  );
  const attempts = server.requests.length;
  assert.ok(attempts >= 2 && attempts <= 3, `${attempts} attempts`);
  assert.equal(waits.length, attempts - 1);
  // The same call without the total: every attempt is made, the last 503 returned.
  const statusOf = await http.get("/busy", { totalTimeout: null });
  assert.equal(statusOf.statusCode, 503);
});

Deno.test("a retry wait that would pass the totalTimeout fails the call at once, without sleeping", async () => {
  await using server = startFixtureServer();
  server.route(
    "/later",
    () => new Response("busy", { status: 503, headers: { "retry-after": "5" } }),
  );
  const { waits, sleep } = recordedWaits();
  const errors: unknown[] = [];
  await using http = client(
    server,
    (b) =>
      b.withTotalTimeout(2).withRetry({ sleep }).withErrorHook({
        onError: (e) => void errors.push(e),
      }),
  );
  const error = await rejectsWith(
    http.get("/later"),
    TimeoutException,
    /^Retry wait of 5 s would pass the totalTimeout of 2 s: GET http:\/\/127\.0\.0\.1:\d+\/later$/,
  );
  assert.deepEqual(waits, [], "the wait was not slept");
  assert.equal(server.requests.length, 1);
  assert.deepEqual(errors, [error], "the error hooks saw it");
  // A per-call totalTimeout that leaves room for the wait lets the call retry.
  const response = await http.get("/later", { totalTimeout: 20 });
  assert.equal(response.statusCode, 503);
  assert.deepEqual(waits, [5000, 5000]);
});

Deno.test("the token fetch counts inside the totalTimeout", async () => {
  await using server = startFixtureServer();
  const manager = new TokenManager([{
    name: "never",
    fetch: () => new Promise<TokenData>(() => {}),
  }]);
  await using http = client(
    server,
    (b) => b.withTimeout(30).withTotalTimeout(0.3).withTokenAuth({ tokenManager: manager }),
  );
  await rejectsWith(
    settles(http.get("/a"), 3000),
    TimeoutException,
    /^Request timed out after 0\.3 s \(totalTimeout\): GET /,
  );
  assert.equal(server.requests.length, 0);
});

Deno.test("a per-call totalTimeout overrides the client's, both ways", async () => {
  await using server = startFixtureServer();
  await using bounded = client(server, (b) => b.withTotalTimeout(0.1).withRetry({ maxRetries: 0 }));
  assert.equal((await bounded.get("/delay/300", { totalTimeout: null })).statusCode, 200);
  await using free = client(server, (b) => b.withRetry({ maxRetries: 0 }));
  await rejectsWith(
    free.get("/delay/3000", { totalTimeout: 0.1 }),
    TimeoutException,
    /after 0\.1 s \(totalTimeout\)/,
  );
  // The shorter of the two names itself.
  await rejectsWith(
    free.get("/delay/3000", { totalTimeout: 5, timeout: 0.1 }),
    TimeoutException,
    /^Request timed out after 0\.1 s: /,
  );
});
