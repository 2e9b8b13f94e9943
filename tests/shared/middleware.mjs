// The exchange-level middleware (withMiddleware) around each runtime's
// transport: the chain's order and the request and response changes the
// server and the caller see; every redirect hop and every retry attempt
// passing through it once; a middleware's own answer, which sends nothing
// and is followed or retried like the transport's; its error, which reaches
// the caller as it is; a streamed call's head; and the call's timeout ending
// a middleware's wait. Cookies, auth tokens and the 401 resend are in the
// Deno suite (tests/middleware_test.ts).
//
// The middleware's count of exchanges is the library's own and exact on
// every runtime. The server's count of calls is exact on Deno and Node;
// where a runtime's fetch resends a request by itself after a reset (Bun,
// workerd, the browsers; see retries.mjs), it is held to that bound.

import { callsAssertion, FOLLOWS, HIDDEN } from "./runtimes.mjs";

export default function ({ lib, fixture, runtime, assert }) {
  const key = () => crypto.randomUUID();

  const assertCalls = callsAssertion(runtime, assert);

  /** The paths the server saw under `k`, asked with the platform's fetch (outside any chain). */
  async function serverCalls(k) {
    const response = await fetch(`${fixture.url}/middleware/calls?key=${k}`);
    return (await response.json()).calls;
  }

  /** Resolves with `promise`, or fails after `ms` (a wait that must end). */
  function within(promise, ms, what) {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Still waiting after ${ms} ms: ${what}`)), ms);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Runs `body` with a client whose middleware is `middleware`, with no
   * retries unless `retry` says, its waits recorded in `waits`
   * (milliseconds) and not slept, the jitter fixed at one half.
   */
  async function withClient(middleware, body, retry = {}, configure = (builder) => builder) {
    const waits = [];
    const sleep = (ms) => {
      waits.push(ms);
      return Promise.resolve();
    };
    const builder = new lib.HttpClientConfigBuilder()
      .withBaseUrl(fixture.url)
      .withTimeout(10)
      .withRetry({ maxRetries: 0, random: () => 0.5, sleep, ...retry })
      .withMiddleware(...middleware);
    const http = new lib.HttpClient(configure(builder).build());
    try {
      return await body(http, waits);
    } finally {
      await http.close();
    }
  }

  /** A middleware that records the path of every request it sees in `seen`. */
  function recorder(seen) {
    return (request, next) => {
      seen.push(new URL(request.url).pathname);
      return next(request);
    };
  }

  /** The request header `name`, whatever its spelling in the request. */
  function headerOf(request, name) {
    const found = Object.keys(request.headers ?? {}).find((key) => key.toLowerCase() === name);
    return found === undefined ? undefined : request.headers[found];
  }

  /** A copy of `response` with `headers` added. */
  function withHeaders(response, headers) {
    return new lib.HttpResponse({
      statusCode: response.statusCode,
      headers: { ...response.headers, ...headers },
      content: response.content,
      elapsedMs: response.elapsedMs,
      url: response.url,
      request: response.request,
    });
  }

  /** A response of the middleware's own to `request`, with no body. */
  function answer(request, statusCode, headers = {}) {
    return new lib.HttpResponse({
      statusCode,
      headers,
      content: new Uint8Array(),
      elapsedMs: 0,
      url: request.url,
      request,
    });
  }

  return {
    "the first registered is outermost; the server and the caller see each one's change": () => {
      const order = [];
      /** Appends its name to X-Order on the way in and to X-Trail on the way out. */
      const named = (name) => async (request, next) => {
        order.push(`${name} in`);
        const sent = [headerOf(request, "x-order"), name].filter(Boolean).join(",");
        const response = await next(request.withHeaders({ "X-Order": sent }));
        order.push(`${name} out`);
        return withHeaders(response, { "x-trail": `${response.header("x-trail")},${name}` });
      };
      return withClient([named("outer"), { handle: named("inner") }], async (http) => {
        const k = key();
        const response = await http.get("/middleware/echo", { params: { key: k } });
        assert.deepEqual(order, ["outer in", "inner in", "inner out", "outer out"]);
        assert.equal(response.json().headers["x-order"], "outer,inner", "the server's request");
        assert.equal(response.header("x-trail"), "server,inner,outer", "the caller's response");
        assert.equal(response.statusCode, 200);
        assert.deepEqual(await serverCalls(k), ["/middleware/echo"]);
      });
    },
    "every redirect hop passes through the chain once": {
      runtimes: FOLLOWS,
      reason: HIDDEN,
      run: () => {
        const seen = [];
        return withClient([recorder(seen)], async (http) => {
          const k = key();
          const response = await http.get("/middleware/chain", { params: { n: 2, key: k } });
          assert.equal(response.statusCode, 200);
          const hops = ["/middleware/chain", "/middleware/chain", "/middleware/chain"];
          assert.deepEqual(seen, [...hops, "/middleware/echo"]);
          assert.deepEqual(await serverCalls(k), [...hops, "/middleware/echo"]);
        });
      },
    },
    "every retry attempt passes through the chain once": () => {
      const seen = [];
      return withClient([recorder(seen)], async (http, waits) => {
        const k = key();
        const response = await http.get("/middleware/status", {
          params: { code: 503, times: 2, key: k },
        });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(seen, ["/middleware/status", "/middleware/status", "/middleware/status"]);
        assert.deepEqual(waits, [250, 500], "the library's retry waits");
        assertCalls((await serverCalls(k)).length, 3, "server calls");
      }, { maxRetries: 2 });
    },
    "a middleware's own answer sends nothing, and a redirect it returns is followed": () => {
      const seen = [];
      const k = key();
      const canned = (request, next) => {
        if (new URL(request.url).pathname !== "/middleware/cached") return next(request);
        return Promise.resolve(
          answer(request, 301, { location: `/middleware/echo?key=${k}` }),
        );
      };
      return withClient([recorder(seen), canned], async (http) => {
        const response = await http.get("/middleware/cached", { params: { key: k } });
        assert.equal(response.statusCode, 200);
        assert.equal(response.url, `${fixture.url}/middleware/echo?key=${k}`);
        assert.deepEqual(seen, ["/middleware/cached", "/middleware/echo"]);
        assert.deepEqual(await serverCalls(k), ["/middleware/echo"], "the server's calls");
      });
    },
    "a 503 a middleware returns is retried like the transport's": () => {
      const k = key();
      let answered = 0;
      const busyOnce = (request, next) =>
        answered++ === 0 ? Promise.resolve(answer(request, 503)) : next(request);
      return withClient([busyOnce], async (http, waits) => {
        const response = await http.get("/middleware/echo", { params: { key: k } });
        assert.equal(response.statusCode, 200);
        assert.equal(answered, 2);
        assert.equal(waits.length, 1, "one retry");
        assert.deepEqual(await serverCalls(k), ["/middleware/echo"], "the server's calls");
      }, { maxRetries: 2 });
    },
    "a middleware's error reaches the caller as it is and is not retried": () => {
      const k = key();
      const own = new TypeError("broken middleware");
      let calls = 0;
      const breaks = async (request, next) => {
        calls++;
        await next(request);
        throw own;
      };
      return withClient([breaks], async (http, waits) => {
        const error = await assert.rejects(
          http.get("/middleware/echo", { params: { key: k } }),
          TypeError,
          /^broken middleware$/,
        );
        assert.equal(error, own, "the very error thrown");
        assert.equal(calls, 1, "middleware calls");
        assert.deepEqual(waits, [], "no retry wait");
        assertCalls((await serverCalls(k)).length, 1, "server calls");
      }, { maxRetries: 2 });
    },
    "a streamed call's next resolves at the head, and the caller reads the body": () => {
      const k = key();
      let streamed;
      const look = async (request, next) => {
        const response = await next(request);
        streamed = response.isStreamed;
        return response;
      };
      return withClient([look], async (http) => {
        // The server holds the body's end until released: a next that read
        // the body would not resolve, and the bounded wait would fail.
        const response = await within(
          http.stream("GET", "/middleware/held", { params: { key: k } }),
          5000,
          "the streamed call's head through the middleware",
        );
        try {
          assert.equal(streamed, true, "the middleware saw a streamed response");
          assert.equal(response.statusCode, 200);
          const released = await fetch(`${fixture.url}/middleware/release?key=${k}`);
          assert.deepEqual(await released.json(), { released: true });
          const read = await within(response.read(), 5000, "the body after its release");
          assert.equal(read.text, "first,rest");
        } finally {
          await response.cancel();
        }
      });
    },
    "the call's timeout ends a middleware that never resolves": () => {
      const stuck = () => new Promise(() => {});
      return withClient(
        [stuck],
        async (http) => {
          await assert.rejects(
            within(http.get("/middleware/echo"), 5000, "a call whose middleware never resolves"),
            lib.TimeoutException,
            /^Request timed out after 0\.2 s: GET http:\/\/127\.0\.0\.1:\d+\/middleware\/echo$/,
          );
        },
        {},
        (builder) => builder.withTimeout(0.2),
      );
    },
    "a user's concurrency limit frees its place when a streamed body ends, as concurrency() does":
      async () => {
        // Written as a user would, with the public Exchange only.
        let inFlight = 0;
        const waiting = [];
        const ownLimit = async (request, next, exchange) => {
          if (inFlight >= 1) await new Promise((resolve) => waiting.push(resolve));
          inFlight++;
          exchange.onEnd(() => {
            inFlight--;
            waiting.shift()?.();
          });
          return await next(request);
        };
        for (const limit of [ownLimit, lib.concurrency({ max: 1 })]) {
          await withClient([limit], async (http) => {
            const first = key();
            const second = key();
            const streamed = await http.stream("GET", `/middleware/echo?key=${first}`);
            const later = http.get(`/middleware/echo?key=${second}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
            assert.deepEqual(await serverCalls(second), [], "the second call waits for the place");
            assert.equal((await streamed.read()).statusCode, 200);
            const response = await within(later, 5000, "the call after the body's end");
            assert.equal(response.statusCode, 200);
            assert.deepEqual(await serverCalls(second), ["/middleware/echo"]);
          });
        }
      },
    "a user's recorder sees what HarRecorder sees: each exchange, its status and the body as read":
      async () => {
        const own = [];
        const ownRecorder = async (request, next, exchange) => {
          const entry = { url: request.url, attempt: exchange.attempt, reason: exchange.reason };
          own.push(entry);
          const response = await next(request);
          entry.status = response.statusCode;
          const chunks = [];
          return exchange.observe(response, {
            onChunk: (chunk) => chunks.push(new TextDecoder().decode(chunk)),
            onEnd: () => (entry.text = chunks.join("")),
          });
        };
        const har = new lib.HarRecorder();
        const k = key();
        await withClient([ownRecorder, har], async (http) => {
          await http.get(`/middleware/status?code=503&times=1&key=${k}`);
          const streamed = await http.stream("GET", `/middleware/echo?key=${k}`);
          await streamed.read();
        }, { maxRetries: 1 });
        const entries = har.toHar().log.entries;
        assert.equal(own.length, entries.length);
        assert.deepEqual(own.map((entry) => [entry.attempt, entry.reason]), [
          [1, "first"],
          [2, "retry"],
          [1, "first"],
        ]);
        own.forEach((entry, index) => {
          // The HAR masks the `key` parameter (a credential's name): the paths are compared.
          assert.equal(new URL(entry.url).pathname, new URL(entries[index].request.url).pathname);
          assert.equal(entry.status, entries[index].response.status);
          // ...and masks it where the server echoes it back.
          assert.equal(entry.text.replaceAll(k, "***"), entries[index].response.content.text ?? "");
        });
      },
  };
}
