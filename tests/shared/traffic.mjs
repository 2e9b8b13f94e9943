// Traffic control (API.md "Traffic control", `@fetchline/fetchline/traffic`)
// on each runtime's transport, with its stores in memory: what reached the
// server is read from the fixture's record (routes/traffic.mjs). The rules
// that need a clock, a second process or Redis are in the Deno and Node
// suites (tests/traffic_*_test.ts, tests/node/traffic_*.test.mjs).

export default function ({ lib, fixture, assert }) {
  const run = () => crypto.randomUUID();

  /** What the server recorded under `id`, asked with the platform's fetch. */
  async function stats(id) {
    return await (await fetch(`${fixture.url}/traffic/stats?run=${id}`)).json();
  }

  /** Runs `body` with a client of the fixture through `middleware`, no retries. */
  async function through(middleware, body) {
    const http = new lib.HttpClient(
      new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(10)
        .withRetry({ maxRetries: 0 }).withMiddleware(...middleware).build(),
    );
    try {
      return await body(http);
    } finally {
      await http.close();
    }
  }

  return {
    "concurrency: never more than max in flight at the server, every call answered": () =>
      through([lib.concurrency({ max: 2 })], async (http) => {
        const id = run();
        const answers = await Promise.all(
          Array.from({ length: 10 }, () => http.get(`/traffic/slow?run=${id}&ms=30`)),
        );
        assert.equal(answers.length, 10);
        const { count, mostAtOnce } = await stats(id);
        assert.equal(count, 10);
        assert.ok(mostAtOnce <= 2, `${mostAtOnce} at once`);
      }),
    "concurrency: past maxQueue a call fails at once with QueueFullException, never sent": () =>
      through([lib.concurrency({ max: 1, maxQueue: 0 })], async (http) => {
        const id = run();
        const first = http.get(`/traffic/slow?run=${id}&ms=100`);
        await assert.rejects(http.get(`/traffic/slow?run=${id}`), lib.QueueFullException);
        await first;
        assert.equal((await stats(id)).count, 1);
      }),
    "dedupe: identical calls in flight share one exchange": () =>
      through([lib.dedupe()], async (http) => {
        const id = run();
        const answers = await Promise.all(
          Array.from({ length: 10 }, () => http.get(`/traffic/slow?run=${id}&ms=50`)),
        );
        assert.equal(new Set(answers.map((answer) => answer.text)).size, 1);
        assert.equal((await stats(id)).count, 1);
      }),
    "rateLimit: past the burst, calls go one per interval, none refused": () =>
      through([lib.rateLimit({ requests: 20, perSeconds: 1, burst: 2 })], async (http) => {
        const id = run();
        const started = Date.now();
        await Promise.all(
          Array.from({ length: 5 }, () => http.get(`/traffic/slow?run=${id}&ms=1`)),
        );
        // Two at once, then one every 50 ms: the fifth at 150 ms.
        assert.ok(Date.now() - started >= 140, `${Date.now() - started} ms`);
        assert.equal((await stats(id)).count, 5);
      }),
    "serverPacing: after a 429 with Retry-After, the next call to the origin waits it out": () =>
      through([lib.serverPacing({ maxWaitSeconds: 10 })], async (http) => {
        const id = run();
        const first = await http.get(`/traffic/paced?run=${id}`);
        assert.equal(first.statusCode, 429);
        const second = await http.get(`/traffic/paced?run=${id}`);
        assert.equal(second.statusCode, 200);
        assert.ok(second.json().sinceFirst >= 900, `sent ${second.json().sinceFirst} ms after`);
      }),
    "serverPacing: a wait past maxWaitSeconds fails at once with RateLimitedException": () =>
      through([lib.serverPacing({ maxWaitSeconds: 0 })], async (http) => {
        const id = run();
        await http.get(`/traffic/paced?run=${id}`);
        await assert.rejects(http.get(`/traffic/paced?run=${id}`), lib.RateLimitedException);
        assert.equal((await stats(id)).count, 1);
      }),
    "retryBudget: past the budget a 503 is returned unretried, the context says why": async () => {
      const id = run();
      const budget = lib.retryBudget({ ratio: 0, minPerSecond: 0.1 });
      const http = new lib.HttpClient(
        new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(10)
          .withRetry({ maxRetries: 3, backoff: 0.001, budget }).build(),
      );
      try {
        const answers = [];
        for (let i = 0; i < 3; i++) {
          answers.push(await http.get(`/traffic/slow?run=${id}&ms=1&status=503`));
        }
        // One retry a 10 s window: three calls, one retry.
        assert.equal((await stats(id)).count, 4);
        assert.equal(answers[2].statusCode, 503);
        assert.equal(answers[2].context.metadata.retryBudgetExhausted, true);
      } finally {
        await http.close();
      }
    },
    "adaptiveConcurrency: 503s lower the limit; never more in flight than it": async () => {
      const limiter = lib.adaptiveConcurrency({ initial: 4, min: 1, max: 8 });
      await through([limiter], async (http) => {
        const id = run();
        const origin = new URL(fixture.url).origin;
        assert.equal(limiter.limit(origin), 4);
        await Promise.all(
          Array.from({ length: 12 }, () => http.get(`/traffic/slow?run=${id}&ms=10&status=503`)),
        );
        assert.ok(limiter.limit(origin) < 4, `limit ${limiter.limit(origin)}`);
        assert.ok((await stats(id)).mostAtOnce <= 4);
      });
    },
    "hedge: the first head wins, the slow send is cancelled at the server": {
      runtimes: ["deno", "node", "bun", "workerd"],
      reason: "a browser's HTTP cache holds an identical GET back until the first one's head " +
        "arrives (its cache lock), so a hedge cannot overtake it there",
      run: () =>
        through([lib.hedge({ after: "30ms", maxExtra: 1 })], async (http) => {
          const id = run();
          const answer = await http.get(`/traffic/first-slow?run=${id}&ms=5000`);
          assert.equal(answer.json().call, 2);
          for (let waited = 0; (await stats(id)).abandoned < 1; waited += 20) {
            assert.ok(waited < 2000, "the loser was not cancelled within 2 s");
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.equal((await stats(id)).count, 2);
        }),
    },
    "resume: a body reset after its head is continued with Range and If-Range, byte-exact, buffered and streamed":
      async () => {
        const size = 200_000;
        const cut = 50_000;
        const expected = new Uint8Array(size);
        for (let i = 0; i < size; i++) expected[i] = (i * 7 + (i >> 8)) & 0xff;
        const http = new lib.HttpClient(
          new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(10)
            .withRetry({ maxRetries: 2, backoff: 0.001 }).build(),
        );
        try {
          for (const streamed of [false, true]) {
            const id = run();
            const path = `/traffic/resumable?run=${id}&size=${size}&cut=${cut}`;
            let body;
            if (streamed) {
              const response = await http.stream("GET", path);
              assert.equal(response.statusCode, 200);
              const chunks = [];
              for await (const chunk of response.body) chunks.push(chunk);
              body = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.byteLength, 0));
              let at = 0;
              for (const chunk of chunks) body.set(chunk, at), at += chunk.byteLength;
            } else {
              const response = await http.get(path);
              assert.equal(response.statusCode, 200);
              body = response.content;
            }
            assert.equal(body.byteLength, size, streamed ? "streamed" : "buffered");
            assert.ok(body.every((byte, i) => byte === expected[i]), "byte-exact");
            const seen = await (await fetch(`${fixture.url}/traffic/resumable-seen?run=${id}`))
              .json();
            assert.equal(seen.length, 2, JSON.stringify(seen));
            assert.deepEqual(seen[0], { range: null, ifRange: null });
            const from = /^bytes=(\d+)-$/.exec(seen[1].range ?? "");
            assert.ok(from !== null && Number(from[1]) <= cut, `Range: ${seen[1].range}`);
            assert.equal(seen[1].ifRange, '"resumable-v1"');
          }
        } finally {
          await http.close();
        }
      },
    "circuitBreaker: 5xx answers open it, then calls fail at once, never sent": () =>
      through(
        [lib.circuitBreaker({ failureRatio: 0.5, minimumCalls: 2, openSeconds: 30 })],
        async (http) => {
          const id = run();
          for (let i = 0; i < 2; i++) {
            assert.equal(
              (await http.get(`/traffic/slow?run=${id}&ms=1&status=503`)).statusCode,
              503,
            );
          }
          await assert.rejects(http.get(`/traffic/slow?run=${id}&ms=1`), lib.CircuitOpenException);
          assert.equal((await stats(id)).count, 2);
        },
      ),
  };
}
