// Timeouts through each runtime's transport and its abort handling: the
// attempt's timeout before the head and in the middle of the body, per call
// and per client, the total over retries, the read timeout of a stream, the
// caller's signal and close(). No test asserts how long anything took.

export default function ({ lib, fixture, assert }) {
  const key = () => crypto.randomUUID();
  const noWait = { maxRetries: 0 };

  async function withClient(body, configure = (builder) => builder) {
    const builder = new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withRetry(noWait);
    const http = new lib.HttpClient(configure(builder).build());
    try {
      return await body(http);
    } finally {
      await http.close();
    }
  }

  return {
    "the client's timeout fires while waiting for the head": () =>
      withClient(async (http) => {
        const error = await assert.rejects(
          http.get("/timeouts/hang"),
          lib.TimeoutException,
          /^Request timed out after 0\.2 s: GET http:\/\/127\.0\.0\.1:\d+\/timeouts\/hang$/,
        );
        assert.ok(error instanceof lib.HttpClientException);
        assert.equal(error.request?.method, "GET");
      }, (builder) => builder.withTimeout(0.2)),
    "a timeout of a second or more fires too (the timer such timeouts share, where they share one)":
      () =>
        withClient(async (http) => {
          await assert.rejects(
            http.get("/timeouts/hang"),
            lib.TimeoutException,
            /^Request timed out after 1\.1 s: GET /,
          );
        }, (builder) => builder.withTimeout(1.1)),
    "the timeout fires when the body stalls after the head": () =>
      withClient(async (http) => {
        await assert.rejects(
          http.get("/timeouts/stall-body", { timeout: 0.3 }),
          lib.TimeoutException,
          /^Request timed out after 0\.3 s: GET .*\/timeouts\/stall-body$/,
        );
      }),
    "the timeout covers a body that drips past it": () =>
      withClient(async (http) => {
        await assert.rejects(
          http.get("/timeouts/drip", { timeout: 0.3 }),
          lib.TimeoutException,
          /0\.3 s: GET .*\/timeouts\/drip$/,
        );
      }),
    "a per-call timeout overrides the client's, both ways": async () => {
      await withClient(async (http) => {
        const response = await http.get("/timeouts/delay", { params: { ms: 300 }, timeout: 10 });
        assert.equal(response.statusCode, 200);
      }, (builder) => builder.withTimeout(0.05));
      await withClient(async (http) => {
        await assert.rejects(
          http.get("/timeouts/hang", { timeout: 0.1 }),
          lib.TimeoutException,
          /0\.1 s/,
        );
      }, (builder) => builder.withTimeout(10));
    },
    "timeout: null lets a call slower than the client's timeout finish": () =>
      withClient(async (http) => {
        const response = await http.get("/timeouts/delay", { params: { ms: 300 }, timeout: null });
        assert.deepEqual(response.json(), { late: true });
      }, (builder) => builder.withTimeout(0.05)),
    "totalTimeout ends a call whose attempts each fit their own timeout": () =>
      withClient(async (http) => {
        const k = key();
        await assert.rejects(
          http.get("/timeouts/busy", { params: { ms: 150, key: k } }),
          lib.TimeoutException,
          /^Request timed out after 0\.4 s \(totalTimeout\): GET http:\/\/127\.0\.0\.1:\d+\/timeouts\/busy$/,
        );
        // Five retries were allowed; the total stopped them (one attempt on a loaded machine).
        const calls = (await http.get("/timeouts/count", { params: { key: k } })).json().calls;
        assert.ok(calls >= 1 && calls <= 3, `${calls} attempts`);
      }, (builder) =>
        builder.withTimeout(1).withTotalTimeout(0.4).withRetry({
          maxRetries: 5,
          random: () => 0,
          sleep: () => Promise.resolve(),
        })),
    "a Retry-After that would pass the totalTimeout fails the call at once": () => {
      const waits = [];
      const sleep = (ms) => {
        waits.push(ms);
        return Promise.resolve();
      };
      return withClient(
        async (http) => {
          await assert.rejects(
            http.get("/timeouts/busy", { params: { "retry-after": 5, key: key() } }),
            lib.TimeoutException,
            /^Retry wait of 5 s would pass the totalTimeout of 1 s: GET /,
          );
          assert.deepEqual(waits, []);
        },
        (builder) => builder.withTimeout(5).withTotalTimeout(1).withRetry({ maxRetries: 2, sleep }),
      );
    },
    "readTimeout fails a stream whose next chunk does not come": () =>
      withClient(async (http) => {
        const response = await http.stream("GET", "/timeouts/stall-body", { readTimeout: 0.3 });
        try {
          assert.equal(response.statusCode, 200);
          await assert.rejects(
            async () => {
              for await (const _chunk of response.body) {
                // The first 100 bytes come; the wait for the rest times out.
              }
            },
            lib.TimeoutException,
            /^Read timed out after 0\.3 s \(readTimeout\): GET /,
          );
        } finally {
          await response.cancel();
        }
      }, (builder) => builder.withTimeout(10)),
    "the caller's signal aborts a call with no timeout": () =>
      withClient(async (http) => {
        const controller = new AbortController();
        const pending = http.get("/timeouts/hang", { signal: controller.signal });
        setTimeout(() => controller.abort(), 50);
        await assert.rejects(pending, lib.HttpClientException, /^Request was aborted: GET /);
      }, (builder) => builder.withTimeout(null)),
    "close() fails a call in flight": async () => {
      const http = new lib.HttpClient(
        new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(null).withRetry(
          noWait,
        )
          .build(),
      );
      const pending = http.get("/timeouts/hang");
      await new Promise((resolve) => setTimeout(resolve, 50));
      await http.close();
      await assert.rejects(
        pending,
        lib.HttpClientException,
        /^Client was closed during the request: GET /,
      );
    },
  };
}
