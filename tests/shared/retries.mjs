// Retries through each runtime's transport: which statuses, methods and
// failures are retried, Retry-After read from the response's head, and one
// Idempotency-Key for every attempt of an opted-in POST. The waits are
// recorded, not slept, with the jitter fixed at one half, so the library's
// own attempts are exactly the recorded waits plus one on every runtime.
//
// Bun's and workerd's fetch also resend a request by themselves, once, when
// a reused keep-alive connection fails before any answer: the server may
// then count one call more per attempt than the library made. Chromium's
// does so for a POST too, and on a 408 from a reused connection, up to twice
// (its network stack's most retries: 5 calls for 2 attempts were seen).
// Firefox resends a request reset before any answer up to ten times in all.
// Where that happens the server's count is held to that bound; on Deno and
// Node it is exact.

import { callsAssertion } from "./runtimes.mjs";

export default function ({ lib, fixture, runtime, assert }) {
  const key = () => crypto.randomUUID();

  const assertCalls = callsAssertion(runtime, assert);

  /** A client whose retry waits are recorded in `waits` (milliseconds) and not slept. */
  async function withClient(body, retry = {}, totalTimeout = undefined, responseHooks = []) {
    const waits = [];
    const sleep = (ms) => {
      waits.push(ms);
      return Promise.resolve();
    };
    const builder = new lib.HttpClientConfigBuilder()
      .withBaseUrl(fixture.url)
      .withTimeout(10)
      .withRetry({ random: () => 0.5, sleep, ...retry });
    if (totalTimeout !== undefined) builder.withTotalTimeout(totalTimeout);
    for (const hook of responseHooks) builder.withResponseHook(hook);
    const http = new lib.HttpClient(builder.build());
    try {
      return await body(http, waits);
    } finally {
      await http.close();
    }
  }

  async function calls(http, k) {
    return (await http.get("/retries/count", { params: { key: k } })).json().calls;
  }

  return {
    "a GET that keeps answering 503 is tried three times and its last response returned": () =>
      withClient(async (http, waits) => {
        const k = key();
        const response = await http.get("/retries/status", {
          params: { code: 503, times: 99, key: k },
        });
        assert.equal(response.statusCode, 503);
        assert.equal(response.json().calls, 3);
        assert.deepEqual(waits, [250, 500], "full jitter over 0.5 s · 2^attempt");
      }),
    "a QUERY is retried like a GET": () =>
      withClient(async (http, waits) => {
        const response = await http.query("/retries/status", {
          params: { code: 503, times: 99, key: key() },
          jsonData: { q: 1 },
        });
        assert.equal(response.statusCode, 503);
        assert.equal(response.json().calls, 3);
        assert.deepEqual(waits, [250, 500]);
      }),
    "a flaky endpoint succeeds on its third attempt": () =>
      withClient(async (http) => {
        const response = await http.get("/retries/status", {
          params: { code: 502, times: 2, key: key() },
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().calls, 3);
      }),
    "only 408, 429, 500, 502, 503 and 504 are retried": () =>
      withClient(async (http, waits) => {
        for (const code of [400, 404, 408, 429, 500, 501, 502, 503, 504]) {
          const k = key();
          waits.length = 0;
          await http.get("/retries/status", { params: { code, times: 99, key: k } });
          const attempts = [408, 429, 500, 502, 503, 504].includes(code) ? 2 : 1;
          assert.equal(waits.length, attempts - 1, `status ${code}: library attempts`);
          assertCalls(await calls(http, k), attempts, `status ${code}`);
        }
      }, { maxRetries: 1 }),
    "POST and PATCH are not retried by default, and carry no Idempotency-Key": () =>
      withClient(async (http) => {
        const k = key();
        assert.equal(
          (await http.post("/retries/status", {
            params: { code: 503, times: 99, key: k },
            jsonData: {},
          })).statusCode,
          503,
        );
        assert.equal(
          (await http.patch("/retries/status", {
            params: { code: 500, times: 99, key: k },
            jsonData: {},
          })).statusCode,
          500,
        );
        assert.equal(await calls(http, k), 2);
        const keys = (await http.get("/retries/count", { params: { key: k } })).json().keys;
        assert.deepEqual(keys, [null, null]);
      }),
    "an opted-in POST is retried with one Idempotency-Key for every attempt": () =>
      withClient(async (http) => {
        const response = await http.post("/retries/status", {
          params: { code: 503, times: 2, key: key() },
          jsonData: { a: 1 },
        });
        const { calls, keys } = response.json();
        assert.equal(calls, 3);
        assert.match(keys[0], /^[0-9a-f-]{36}$/);
        assert.deepEqual(keys, [keys[0], keys[0], keys[0]]);
      }, { methods: ["POST"] }),
    "Retry-After in seconds sets the wait": () =>
      withClient(async (http, waits) => {
        const response = await http.get("/retries/status", {
          params: { code: 429, times: 1, "retry-after": "3", key: key() },
        });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(waits, [3000]);
      }),
    "a Retry-After past maxRetryAfter returns the response at once": () =>
      withClient(async (http, waits) => {
        const k = key();
        const response = await http.get("/retries/status", {
          params: { code: 503, times: 99, "retry-after": "3600", key: k },
        });
        assert.equal(response.statusCode, 503);
        assert.equal(response.header("retry-after"), "3600");
        assert.equal(await calls(http, k), 1);
        assert.deepEqual(waits, []);
      }),
    "a 429 with only X-RateLimit-Reset in seconds waits for that reset": () =>
      withClient(async (http, waits) => {
        const response = await http.get("/retries/status", {
          params: { code: 429, times: 1, h: "x-ratelimit-reset:7", key: key() },
        });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(waits, [7000]);
      }),
    "a 503 with X-RateLimit-Reset as an epoch time waits until then, by the server's clock": () =>
      withClient(async (http, waits) => {
        const reset = Math.floor(Date.now() / 1000) + 20;
        const response = await http.get("/retries/status", {
          params: { code: 503, times: 1, h: `x-ratelimit-reset:${reset}`, key: key() },
        });
        assert.equal(response.statusCode, 200);
        assert.equal(waits.length, 1);
        // The server's Date has whole seconds: the wait is 19 to 21 s, not 56 years.
        assert.ok(waits[0] >= 18_000 && waits[0] <= 21_000, `${waits[0]}`);
      }),
    "a 429 waits for the RateLimit field's reset, the draft's current syntax and draft 7's": () =>
      withClient(async (http, waits) => {
        for (
          const field of ['"burst";r=5;t=1, "daily";r=0;t=4', "limit=10, remaining=0, reset=2"]
        ) {
          const response = await http.get("/retries/status", {
            params: { code: 429, times: 1, h: `ratelimit:${field}`, key: key() },
          });
          assert.equal(response.statusCode, 200, field);
        }
        assert.deepEqual(waits, [4000, 2000]);
        // RateLimit-Reset of the earlier drafts, in seconds.
        await http.get("/retries/status", {
          params: { code: 429, times: 1, h: "ratelimit-reset:3", key: key() },
        });
        assert.deepEqual(waits, [4000, 2000, 3000]);
      }),
    "Retry-After wins over a rate-limit reset, and a 500's reset is not read": () =>
      withClient(async (http, waits) => {
        await http.get("/retries/status", {
          params: { code: 429, times: 1, "retry-after": "1", h: "x-ratelimit-reset:9", key: key() },
        });
        await http.get("/retries/status", {
          params: { code: 500, times: 1, h: "x-ratelimit-reset:9", key: key() },
        });
        assert.deepEqual(waits, [1000, 250], "the 500 backs off as always");
      }),
    "a rate-limit reset past maxRetryAfter returns the response at once": () =>
      withClient(async (http, waits) => {
        const k = key();
        const response = await http.get("/retries/status", {
          params: { code: 429, times: 99, h: "x-ratelimit-reset:3600", key: k },
        });
        assert.equal(response.statusCode, 429);
        assert.equal(response.header("x-ratelimit-reset"), "3600");
        assert.equal(await calls(http, k), 1);
        assert.deepEqual(waits, []);
      }, { maxRetryAfter: 10 }),
    "a reset of one second is waited for, for real": async () => {
      const http = new lib.HttpClient(
        new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(10).build(),
      );
      try {
        const started = Date.now();
        const response = await http.get("/retries/status", {
          params: { code: 429, times: 1, h: 'ratelimit:"default";r=0;t=1', key: key() },
        });
        assert.equal(response.statusCode, 200);
        assert.ok(Date.now() - started >= 950, `${Date.now() - started} ms`);
      } finally {
        await http.close();
      }
    },
    "a reset past the totalTimeout fails the call at once": () =>
      withClient(
        async (http, waits) => {
          const k = key();
          await assert.rejects(
            http.get("/retries/status", {
              params: { code: 429, times: 99, h: "x-ratelimit-reset:30", key: k },
            }),
            lib.TimeoutException,
            /^Retry wait of 30 s would pass the totalTimeout of 5 s/,
          );
          assert.deepEqual(waits, []);
        },
        { maxRetryAfter: 60 },
        5,
      ),
    "shouldRetry retries a POST on a 429 only, and undefined keeps the policy's decision": () =>
      withClient(async (http, waits) => {
        const k = key();
        const retried = await http.post("/retries/status", {
          params: { code: 429, times: 1, key: k },
          jsonData: { a: 1 },
        });
        assert.equal(retried.statusCode, 200);
        assert.equal(retried.json().calls, 2);
        const keys = retried.json().keys;
        assert.ok(keys[0] !== null && keys[0] === keys[1], "one Idempotency-Key for both");
        const refused = await http.post("/retries/status", {
          params: { code: 503, times: 1, key: key() },
          jsonData: { a: 1 },
        });
        assert.equal(refused.statusCode, 503, "a POST's 503 is not retried");
        const get = await http.get("/retries/status", {
          params: { code: 503, times: 1, key: key() },
        });
        assert.equal(get.statusCode, 200, "a GET keeps the policy's retry");
        assert.deepEqual(waits, [250, 250]);
      }, {
        shouldRetry: (info) =>
          info.method === "POST" ? info.response?.statusCode === 429 : undefined,
      }),
    "shouldRetry is told the attempt, request, response and delay, and may stop a retry": () => {
      const seen = [];
      return withClient(async (http, waits) => {
        const response = await http.get("/retries/status", {
          params: { code: 503, times: 99, "retry-after": "2", key: key() },
        });
        assert.equal(response.statusCode, 503);
        assert.deepEqual(waits, [2000]);
        assert.deepEqual(seen, [[0, "GET", 503, 2000], [1, "GET", 503, 2000]]);
      }, {
        shouldRetry: (info) => {
          assert.ok(info.request instanceof lib.HttpRequest);
          seen.push([info.attempt, info.method, info.response.statusCode, info.delayMs]);
          return info.attempt === 0 ? undefined : false;
        },
      });
    },
    "shouldRetry that is not a function, or answers no boolean, is a TypeError naming it": () =>
      withClient(async (http) => {
        assert.throws(
          () => new lib.HttpClientConfigBuilder().withRetry({ shouldRetry: true }),
          TypeError,
          /^Invalid shouldRetry: expected a function/,
        );
        await assert.rejects(
          http.get("/retries/status", { params: { code: 503, times: 1, key: key() } }),
          TypeError,
          /^Invalid shouldRetry result: expected true, false or undefined, got /,
        );
      }, { shouldRetry: () => "yes" }),
    "a call ended by the caller's AbortSignal.timeout() is a TimeoutException, not retried": () =>
      withClient(async (http, waits) => {
        const k = key();
        const signal = AbortSignal.timeout(100);
        const error = await http.get("/retries/hang", { params: { times: 99, key: k }, signal })
          .then(() => undefined, (error) => error);
        assert.ok(error instanceof lib.TimeoutException, String(error));
        assert.equal(error.cause, signal.reason);
        assert.equal(error.cause.name, "TimeoutError");
        assert.equal(await calls(http, k), 1);
        assert.deepEqual(waits, []);
        // Any other abort stays an HttpClientException with the reason as its cause.
        const controller = new AbortController();
        const other = http.get("/retries/hang", {
          params: { times: 99, key: key() },
          signal: controller.signal,
        });
        const reason = new Error("user left");
        setTimeout(() => controller.abort(reason), 50);
        const aborted = await other.then(() => undefined, (error) => error);
        assert.ok(
          aborted instanceof lib.HttpClientException && !(aborted instanceof lib.TimeoutException),
        );
        assert.equal(aborted.cause, reason);
      }),
    "response.context carries what RateLimitResponseHook stored, read-only, on every kind of response":
      () =>
        withClient(
          async (http) => {
            const params = (code) => ({
              code,
              times: 1,
              h: ["x-ratelimit-remaining:41", "x-ratelimit-reset:0"],
              key: key(),
            });
            const retried = await http.get("/retries/status", { params: params(503) });
            const { context } = retried;
            assert.equal(context.metadata.rateLimitRemaining, 41);
            assert.equal(context.attempt, 1);
            assert.equal(context.isRetry, true);
            assert.equal(context.request.method, "GET");
            assert.ok(Object.isFrozen(context) && Object.isFrozen(context.metadata));
            assert.throws(() => {
              context.metadata.rateLimitRemaining = 0;
            }, TypeError);
            assert.equal(retried.context, context, "the same view each time");
            assert.ok(!JSON.stringify(retried).includes("rateLimitRemaining"), "no view shows it");
            const streamed = await http.stream("GET", "/retries/status", { params: params(404) });
            assert.equal(streamed.statusCode, 404);
            assert.equal(streamed.context.metadata.rateLimitRemaining, 41);
            const read = await streamed.read();
            assert.equal(read.context.metadata.rateLimitRemaining, 41);
            const error = await Promise.resolve().then(() => read.raiseForStatus()).catch((e) => e);
            assert.ok(error instanceof lib.HttpStatusException);
            assert.equal(error.response.context.metadata.rateLimitRemaining, 41);
            const made = new lib.HttpResponse({
              statusCode: 200,
              headers: {},
              content: new Uint8Array(),
              elapsedMs: 1,
              url: fixture.url,
              request: new lib.HttpRequest("GET", fixture.url),
            });
            assert.equal(made.context, undefined, "a response no call returned has none");
          },
          {},
          10,
          [new lib.RateLimitResponseHook()],
        ),
    "a connection reset is retried, then the answer returned": {
      runtimes: ["deno", "node"],
      reason:
        "the runtime's fetch resends a request itself after a reset on a reused connection, " +
        "so the one reset may never reach the library (a reset body is retried everywhere, below)",
      run: () =>
        withClient(async (http, waits) => {
          const response = await http.get("/retries/reset", { params: { times: 1, key: key() } });
          assert.equal(response.statusCode, 200);
          assert.equal(response.json().calls, 2);
          assert.deepEqual(waits, [250]);
        }),
    },
    "a reset on every attempt throws ConnectionException after the retries": () =>
      withClient(async (http, waits) => {
        const k = key();
        await assert.rejects(
          http.get("/retries/reset", { params: { times: 99, key: k } }),
          lib.ConnectionException,
          /GET http:\/\/127\.0\.0\.1:\d+\/retries\/reset/,
        );
        assert.equal(waits.length, 2, "library attempts");
        assertCalls(await calls(http, k), 3, "calls");
      }),
    "a POST that meets a reset is not retried": () =>
      withClient(async (http, waits) => {
        const k = key();
        await assert.rejects(
          http.post("/retries/reset", { params: { times: 99, key: k }, data: { a: "1" } }),
          lib.ConnectionException,
          /POST/,
        );
        assert.deepEqual(waits, [], "library attempts");
        assertCalls(await calls(http, k), 1, "calls");
      }),
    "a body cut by a reset is retried, then the answer returned": () =>
      withClient(async (http, waits) => {
        const response = await http.get("/retries/reset-body", {
          params: { times: 1, key: key() },
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().calls, 2);
        assert.deepEqual(waits, [250]);
      }),
    "a body cut on every attempt throws ConnectionException after the retries": () =>
      withClient(async (http, waits) => {
        const k = key();
        await assert.rejects(
          http.get("/retries/reset-body", { params: { times: 99, key: k } }),
          lib.ConnectionException,
          /GET http:\/\/127\.0\.0\.1:\d+\/retries\/reset-body/,
        );
        assert.equal(await calls(http, k), 3);
        assert.equal(waits.length, 2);
      }),
    "an attempt that times out is retried": () =>
      withClient(async (http) => {
        const response = await http.get("/retries/hang", {
          params: { times: 1, key: key() },
          timeout: 0.5,
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().calls, 2);
      }),
  };
}
