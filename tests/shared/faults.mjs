// Faults: every way a server or the network can fail a call, through the
// runtime's transport, each ending with the right exception after the right
// number of attempts (GET retried twice by default, POST never; a body that
// cannot be decoded never, as the same bytes would come again). The cause
// named in the message is asserted where the runtime's error tells it
// (Deno's and Node's); a fetch-only runtime's error may say no more than
// "fetch failed", so there only the class and the call are asserted.

export default function ({ lib, fixture, runtime, assert }) {
  const names = runtime === "deno" || runtime === "node";

  /** A fresh key, so each test's counts on the shared fixture are its own. */
  const newKey = () => `k${Math.random().toString(36).slice(2)}${Date.now()}`;

  /** The methods of the requests the fixture saw under `key`, in order. */
  async function served(key) {
    const response = await fetch(`${fixture.url}/faults/seen?run=${key}`);
    return (await response.json()).methods;
  }

  /**
   * Runs `body` with a client on the fixture that retries with waits of about
   * a millisecond and notes every attempt and every exception its error
   * hooks see; closed at the end.
   */
  async function withFaultClient(body, retry = { backoff: 0.001 }) {
    const attempts = [];
    const errors = [];
    const config = new lib.HttpClientConfigBuilder()
      .withBaseUrl(fixture.url)
      .withTimeout(5)
      .withRetry(retry)
      .withRequestHook({
        beforeRequest(request, context) {
          attempts.push(`${request.method}#${context.attempt}`);
          return request;
        },
      })
      .withErrorHook({ onError: (error) => void errors.push(error) })
      .build();
    const http = new lib.HttpClient(config);
    try {
      return await body(http, attempts, errors);
    } finally {
      await http.close();
    }
  }

  /**
   * The most requests a runtime's own fetch sends for one call, by method,
   * when its connection fails before any answer (a pooled connection the
   * server may have closed): Bun and workerd resend a GET once, Chromium
   * even a POST; Firefox sends a GET up to 10 times in all, and any other
   * method (POST included) twice.
   */
  const RESENT_BEFORE_ANSWER = {
    bun: { GET: 2 },
    workerd: { GET: 2 },
    chromium: { GET: 2, POST: 2 },
    firefox: { GET: 10, POST: 2 },
  };

  /** Three attempts of GET (the first and two retries), then one of POST. */
  const GET_RETRIED_POST_NOT = ["GET#0", "GET#1", "GET#2", "POST#0"];

  /**
   * GET then POST to a route with `fault`: both fail with ConnectionException
   * naming the call (and `cause` where the runtime tells it), each attempt's
   * exception reaches the error hooks, and the fixture saw three GETs and one
   * POST (up to the factor `resends` gives a method on the runtime, whose
   * fetch resends a request on its own).
   */
  function retriedFault(fault, cause, resends = {}) {
    return () =>
      withFaultClient(async (http, attempts, errors) => {
        const key = newKey();
        const path = `/faults/${fault}?run=${key}`;
        const prefix = names && cause !== undefined ? `^Connection failed: ${cause} \\(.+` : "";
        const get = await assert.rejects(
          http.get(path),
          lib.ConnectionException,
          new RegExp(`${prefix}: GET http://127\\.0\\.0\\.1:\\d+/faults/${fault}\\?run=${key}$`),
        );
        const post = await assert.rejects(
          http.post(path, { jsonData: { id: 7 } }),
          lib.ConnectionException,
          new RegExp(`POST .*/faults/${fault}`),
        );
        assert.ok(get.cause !== undefined, "the runtime's error is the cause");
        assert.deepEqual(attempts, GET_RETRIED_POST_NOT);
        const seen = await served(key);
        for (const [method, attemptsSent] of [["GET", 3], ["POST", 1]]) {
          const count = seen.filter((sent) => sent === method).length;
          const factor = resends[runtime]?.[method];
          if (factor !== undefined) {
            // This runtime's fetch itself sends the request again when a
            // connection (perhaps a pooled one) fails before any answer.
            assert.ok(
              count >= attemptsSent && count <= factor * attemptsSent,
              `${count} ${method}s for ${attemptsSent} attempts`,
            );
          } else {
            assert.equal(count, attemptsSent, `${method}s the server saw`);
          }
        }
        assert.equal(errors.length, 4, "the error hooks saw every attempt's exception");
        assert.equal(errors[2], get);
        assert.equal(errors[3], post);
      });
  }

  /** One GET to a route with `fault` fails with exactly `type`, after one attempt. */
  function notRetried(fault, type, message) {
    return withFaultClient(async (http, attempts, errors) => {
      const key = newKey();
      const error = await assert.rejects(http.get(`/faults/${fault}?run=${key}`), type, message);
      assert.equal(error.constructor, type, `exactly ${type.name}, got ${error.name}`);
      assert.deepEqual(attempts, ["GET#0"]);
      assert.deepEqual(await served(key), ["GET"], "the server saw one request");
      assert.deepEqual(errors, [error]);
      return error;
    });
  }

  const tests = {
    "a refused port fails with ConnectionException; GET is retried twice, POST not at all": () =>
      withFaultClient(async (_http, attempts, errors) => {
        const http = new lib.HttpClient(
          new lib.HttpClientConfigBuilder().withBaseUrl(fixture.refusedUrl)
            .withRetry({ backoff: 0.001 })
            .withRequestHook({
              beforeRequest: (request, context) => (
                attempts.push(`${request.method}#${context.attempt}`), request
              ),
            })
            .withErrorHook({ onError: (error) => void errors.push(error) })
            .build(),
        );
        try {
          const prefix = names ? "^Connection failed: connection refused \\(.+" : "";
          await assert.rejects(
            http.get("/refused"),
            lib.ConnectionException,
            new RegExp(`${prefix}: GET ${fixture.refusedUrl.replaceAll(".", "\\.")}/refused$`),
          );
          await assert.rejects(http.post("/refused", { data: { a: 1 } }), lib.ConnectionException);
        } finally {
          await http.close();
        }
        assert.deepEqual(attempts, GET_RETRIED_POST_NOT);
        assert.equal(errors.length, 4);
      }),
    "a connection reset before the response is retried for GET, not for POST": retriedFault(
      "reset",
      "connection reset",
      RESENT_BEFORE_ANSWER,
    ),
    "a connection reset in the middle of the body is retried for GET, not for POST": retriedFault(
      "reset-mid-body",
    ),
    "a connection closed before the response head is retried for GET, not for POST": retriedFault(
      "closed-before-head",
      "connection closed early",
      RESENT_BEFORE_ANSWER,
    ),
    "a body cut short of its Content-Length is retried for GET, not for POST": retriedFault(
      "cut-body",
    ),
    "a chunked body cut before its last chunk is retried for GET, not for POST": retriedFault(
      "truncated-chunked",
    ),
    "a gzip body cut short by the connection is a ConnectionException, not a DecodingException": {
      runtimes: ["deno", "node", "bun", "workerd", "chromium"],
      reason: "Firefox's fetch answers a gzip body cut short as a whole one (the next test)",
      run: retriedFault("truncated-gzip"),
    },
    "a gzip body cut short by the connection is the bytes decoded so far, without error": {
      runtimes: ["firefox"],
      reason: "only Firefox's fetch ends a cut gzip body without an error",
      // Firefox ends the decoded body where the connection ended: neither its
      // Content-Length nor the gzip trailer is checked, so the call succeeds.
      run: () =>
        withFaultClient(async (http, attempts, errors) => {
          const key = newKey();
          const response = await http.get(`/faults/truncated-gzip?run=${key}`);
          assert.equal(response.statusCode, 200);
          const text = response.text;
          assert.ok(text.length > 0 && text.length < 64 * 1024, `${text.length} of 65536 bytes`);
          assert.equal(text, "a".repeat(text.length), "the decoded bytes so far");
          assert.deepEqual(attempts, ["GET#0"]);
          assert.deepEqual(await served(key), ["GET"]);
          assert.equal(errors.length, 0);
        }),
    },
    "a status line that is not HTTP is a malformed response": {
      runtimes: ["deno", "node", "bun", "workerd"],
      reason: "Chromium reads a status line whose code is not a number leniently, as an answer",
      run: retriedFault("bad-status-line", "malformed response", RESENT_BEFORE_ANSWER),
    },
    "an answer that is not HTTP at all is a malformed response": retriedFault(
      "garbage",
      "malformed response",
      RESENT_BEFORE_ANSWER,
    ),
    "a streamed body reset mid-way fails its reader with ConnectionException": () =>
      withFaultClient(async (http) => {
        const response = await http.stream("GET", `/faults/reset-mid-body?run=${newKey()}`);
        assert.equal(response.statusCode, 200, "the head arrived");
        await assert.rejects(response.read(), lib.ConnectionException, /GET .*reset-mid-body/);
      }, { maxRetries: 0 }),
  };
  for (const coding of ["gzip", "br", "deflate"]) {
    tests[
      `a corrupt ${coding} body fails with DecodingException, not retried (Chromium: as a network failure)`
    ] = async () => {
      if (runtime === "chromium") {
        // Chromium's fetch fails a body it cannot decode with the TypeError of a
        // network failure ("Failed to fetch"): the client cannot tell them apart.
        // Firefox's says "Decoding failed.", and is a DecodingException below.
        return withFaultClient(async (http, attempts) => {
          await assert.rejects(
            http.get(`/faults/corrupt-${coding}?run=${newKey()}`),
            lib.ConnectionException,
            new RegExp(
              "^Connection failed: refused, unreachable or blocked by CORS \\(Failed to fetch\\): " +
                `GET http://127\\.0\\.0\\.1:\\d+/faults/corrupt-${coding}\\?run=\\w+$`,
            ),
          );
          assert.deepEqual(attempts, ["GET#0", "GET#1", "GET#2"]);
        });
      }
      const error = await notRetried(
        `corrupt-${coding}`,
        lib.DecodingException,
        // A page cannot see a Content-Encoding the server does not expose:
        // Firefox's failure then names no coding.
        new RegExp(
          `^Response body could not be decoded${
            runtime === "firefox" ? `(?: \\(${coding}\\))?` : ` \\(${coding}\\)`
          }: GET http://127\\.0\\.0\\.1:\\d+/faults/corrupt-${coding}\\?run=\\w+$`,
        ),
      );
      assert.ok(error.cause instanceof Error, "cause is the runtime's error");
    };
  }
  tests["gzip, br, zlib deflate and raw deflate bodies are decoded"] = () =>
    withFaultClient(async (http) => {
      const text = JSON.stringify({ text: "héllo ".repeat(1000) });
      for (const coding of ["gzip", "br", "deflate", "deflate-raw"]) {
        const response = await http.get("/faults/encoded", { params: { coding } });
        assert.equal(response.text, text, coding);
      }
    });
  tests["a response head past the parser's limit is a malformed response, not retried"] = {
    runtimes: ["deno", "node"],
    reason: "a 20 KB head is within the limits of Bun's, workerd's and a browser's fetch",
    run: () =>
      notRetried(
        "many-headers",
        lib.HttpClientException,
        runtime === "deno"
          ? /^Malformed response \(too many response headers\): GET /
          : /^Malformed response \(response headers too large\): GET /,
      ),
  };
  return tests;
}
