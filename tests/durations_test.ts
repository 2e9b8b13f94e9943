// Durations with their unit (API.md "Naming rules"): every option that takes
// a duration takes seconds as a number up to 3,600, or a string with its
// unit; a larger plain number (most likely milliseconds) is a TypeError that
// names the unit and the fix.

import assert from "node:assert/strict";
import {
  clientCredentialsStep,
  type Duration,
  HttpClient,
  HttpClientConfigBuilder,
  HttpRequest,
  TimeoutException,
  TokenManager,
} from "../mod.ts";
import { HttpCache, MemoryCacheStore } from "../cache.ts";
import { circuitBreaker, rateLimit, serverPacing } from "../traffic.ts";
import { eventSource } from "../sse.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

/** An option that takes a duration: how to give it a value, and the seconds it kept, when it tells. */
interface DurationOption {
  /** The field its errors name. */
  field: string;
  /** Where it is given, for the assertion messages. */
  where: string;
  /** Gives `value`; returns the seconds kept, or `undefined` when the option does not tell. */
  give(value: unknown): number | null | undefined;
}

const STEPS = [{ name: "token", fetch: () => Promise.reject(new Error("not fetched")) }];
const builder = () => new HttpClientConfigBuilder();
const noClient = new HttpClient(builder().build());

const OPTIONS: DurationOption[] = [
  {
    field: "timeout",
    where: "withTimeout",
    give: (v) => builder().withTimeout(v as never).build().timeout,
  },
  {
    field: "readTimeout",
    where: "withReadTimeout",
    give: (v) => builder().withReadTimeout(v as never).build().readTimeout,
  },
  {
    field: "totalTimeout",
    where: "withTotalTimeout",
    give: (v) => builder().withTotalTimeout(v as never).build().totalTimeout,
  },
  {
    field: "timeout",
    where: "HttpRequest's timeout",
    give: (v) => new HttpRequest("GET", "/x", { timeout: v as never }).timeout,
  },
  {
    field: "backoff",
    where: "withRetry's backoff",
    give: (v) => builder().withRetry({ backoff: v as never }).build().retry.backoff,
  },
  {
    field: "maxBackoff",
    where: "withRetry's maxBackoff",
    give: (v) => builder().withRetry({ maxBackoff: v as never }).build().retry.maxBackoff,
  },
  {
    field: "maxRetryAfter",
    where: "withRetry's maxRetryAfter",
    give: (v) => builder().withRetry({ maxRetryAfter: v as never }).build().retry.maxRetryAfter,
  },
  {
    field: "perSeconds",
    where: "rateLimit's perSeconds",
    give: (v) => void rateLimit({ requests: 1, perSeconds: v as never }),
  },
  {
    field: "storeTimeout",
    where: "rateLimit's storeTimeout",
    give: (v) => void rateLimit({ requests: 1, perSeconds: 1, storeTimeout: v as never }),
  },
  {
    field: "windowSeconds",
    where: "circuitBreaker's windowSeconds",
    give: (v) => void circuitBreaker({ windowSeconds: v as never }),
  },
  {
    field: "openSeconds",
    where: "circuitBreaker's openSeconds",
    give: (v) => void circuitBreaker({ openSeconds: v as never }),
  },
  {
    field: "maxWaitSeconds",
    where: "serverPacing's maxWaitSeconds",
    give: (v) => serverPacing({ maxWaitSeconds: v as never }).maxWaitSeconds,
  },
  {
    field: "storeTimeout",
    where: "HttpCache's storeTimeout",
    give: (v) =>
      new HttpCache({ store: new MemoryCacheStore(), storeTimeout: v as never }).storeTimeout,
  },
  {
    field: "refreshSkewSeconds",
    where: "TokenManager's refreshSkewSeconds",
    give: (v) => void new TokenManager(STEPS, { refreshSkewSeconds: v as never }),
  },
  {
    field: "staleRunSeconds",
    where: "TokenManager's staleRunSeconds",
    give: (v) => void new TokenManager(STEPS, { staleRunSeconds: v as never }),
  },
  {
    field: "timeout",
    where: "clientCredentialsStep's timeout",
    give: (v) =>
      void clientCredentialsStep({
        tokenUrl: "http://127.0.0.1/token",
        clientId: "id",
        clientSecret: "secret",
        timeout: v as never,
      }),
  },
  {
    field: "readTimeout",
    where: "eventSource's readTimeout",
    give: (v) => void eventSource(noClient, "/feed", { readTimeout: v as never }),
  },
  {
    field: "totalTimeout",
    where: "eventSource's totalTimeout",
    give: (v) => void eventSource(noClient, "/feed", { totalTimeout: v as never }),
  },
  {
    field: "retryDelay",
    where: "eventSource's retryDelay",
    give: (v) => void eventSource(noClient, "/feed", { retryDelay: v as never }),
  },
];

/** Durations every option takes, and the seconds each stands for. */
const ACCEPTED: [unknown, number][] = [
  ["250ms", 0.25],
  ["5s", 5],
  ["2m", 120],
  ["1h", 3600],
  ["1.5s", 1.5],
  [".5s", 0.5],
  ["90m", 5400],
  [0.25, 0.25],
  [3600, 3600],
];

/** Strings that are not a duration. */
const BAD_STRINGS = [
  "5",
  "",
  "5 s",
  " 5s",
  "5s ",
  "5sec",
  "5S",
  "-5s",
  "+5s",
  "ms",
  "5d",
  "5.s",
  "Infinitys",
  "NaNms",
];

Deno.test("Every option that takes a duration takes seconds up to 3,600 or a string with its unit, kept in seconds", () => {
  for (const option of OPTIONS) {
    for (const [value, seconds] of ACCEPTED) {
      const kept = option.give(value);
      if (kept !== undefined) assert.equal(kept, seconds, `${option.where}: ${value}`);
    }
  }
});

Deno.test("Every option that takes a duration refuses a plain number above 3,600 with a TypeError naming the unit and the fix", () => {
  const cases: [number, string][] = [
    [5000, `5000 seconds is 83 minutes; write "5000ms", or "83m" if that is meant`],
    [3601, `3601 seconds is 60 minutes; write "3601ms", or "60m" if that is meant`],
    [86400, `86400 seconds is 24 hours; write "86400ms", or "24h" if that is meant`],
  ];
  for (const option of OPTIONS) {
    for (const [value, fix] of cases) {
      throwsAtOnce(() => option.give(value), TypeError, `Invalid ${option.field}: ${fix}`);
    }
  }
});

Deno.test("Every option that takes a duration refuses a string that is not one with a TypeError naming the field and the forms", () => {
  for (const option of OPTIONS) {
    for (const value of BAD_STRINGS) {
      throwsAtOnce(
        () => option.give(value),
        TypeError,
        new RegExp(
          `^Invalid ${option.field}: expected .+ or a string with its unit \\("250ms", "5s", "2m", "1h"\\), got ${
            JSON.stringify(value).replace(/[+.]/g, "\\$&")
          }$`,
        ),
      );
    }
  }
});

Deno.test("A long string given as a duration is named by its length, not quoted", () => {
  const long = "x".repeat(200);
  throwsAtOnce(
    () => builder().withTimeout(long as never),
    TypeError,
    /got a string of 200$/,
  );
});

Deno.test("A duration past an hour given with its unit survives copies of what holds it", () => {
  const request = new HttpRequest("GET", "/x", { timeout: "2h" });
  assert.equal(request.withHeaders({ "X-A": "1" }).timeout, 7200);
  assert.equal(request.with({ url: "/y" }).timeout, 7200);
  const config = builder().withRetry({ maxRetryAfter: "2h", backoff: "1.5h" })
    .withRetry({ maxRetries: 5 }).build();
  assert.deepEqual([config.retry.maxRetryAfter, config.retry.backoff], [7200, 5400]);
  assert.equal(
    new HttpClient(config).extend((b) => b.withHeaders({ "X-A": "1" })).config.retry.backoff,
    5400,
  );
});

Deno.test("An event stream's read and total timeouts past an hour, given with their unit, reach its calls", async () => {
  await using server = startFixtureServer();
  server.route(
    "/feed",
    () => new Response("data: a\n\n", { headers: { "content-type": "text/event-stream" } }),
  );
  await using client = new HttpClient(builder().withBaseUrl(server.url).build());
  const stream = eventSource(client, "/feed", {
    readTimeout: "2h",
    totalTimeout: "3h",
    maxReconnects: 0,
  });
  const received: string[] = [];
  for await (const event of stream) {
    received.push(event.data);
    break;
  }
  assert.deepEqual(received, ["a"]);
});

Deno.test("A duration string past an hour is taken as written", () => {
  assert.equal(builder().withTotalTimeout("2h").build().totalTimeout, 7200);
  assert.equal(builder().withTimeout("5000ms").build().timeout, 5);
  assert.equal(serverPacing({ maxWaitSeconds: "0s" }).maxWaitSeconds, 0);
});

Deno.test("A duration string is checked as its number is: a zero timeout is refused", () => {
  throwsAtOnce(
    () => builder().withTimeout("0ms"),
    TypeError,
    "Invalid timeout: expected a finite number of seconds above 0, got 0",
  );
});

Deno.test("A call's readTimeout and totalTimeout take a duration string and refuse a plain number above 3,600 before sending", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(builder().withBaseUrl(server.url).build());
  await rejectsWith(
    client.get("/echo", { totalTimeout: 5000 }),
    TypeError,
    /^Invalid totalTimeout: 5000 seconds is 83 minutes; write "5000ms", or "83m" if that is meant$/,
  );
  await rejectsWith(
    client.get("/echo", { readTimeout: "5 s" as Duration }),
    TypeError,
    /^Invalid readTimeout: expected .+ got "5 s"$/,
  );
  assert.equal(server.requests.length, 0);
  const response = await client.get("/echo", { totalTimeout: "5s", readTimeout: "250ms" });
  assert.equal(response.statusCode, 200);
});

Deno.test('withTimeout("250ms") times out a slow server after a quarter of a second', async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    builder().withBaseUrl(server.url).withTimeout("250ms").withRetry({ maxRetries: 0 }).build(),
  );
  const started = performance.now();
  await rejectsWith(settles(client.get("/delay/3000")), TimeoutException, /after 0\.25 s/);
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 200 && elapsed < 2000, `timed out after ${elapsed} ms`);
});
