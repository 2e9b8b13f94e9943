// Recording and replay (API.md "Recording and replay", `@fetchline/fetchline/har`
// and MockTransport.fromHar) on each runtime's transport: a recorded session
// is a HAR 1.2 log with every secret masked, which replays through
// MockTransport with the same statuses, headers and bytes and reaches no
// server; a streamed body is recorded as the caller reads it; a cache hit
// and a failed exchange are entries. The HAR 1.2 JSON schema check, a
// Chromium recording's replay and the sanitizers' proof that a replay opens
// no socket are in the Deno suite (tests/har_test.ts) and the Node suite
// (tests/node/har.test.mjs).

const SECRETS = /SECRET/;

export default function ({ lib, fixture, runtime, assert }) {
  const newKey = () => crypto.randomUUID();
  const browser = runtime === "chromium" || runtime === "firefox";

  /** A client of the fixture through `middleware`, no retries; a browser's own HTTP cache bypassed. */
  function clientOf(middleware, configure = (builder) => builder) {
    const builder = new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(10)
      .withRetry({ maxRetries: 0 }).withMiddleware(...middleware);
    if (browser) builder.withFetch((input, init) => fetch(input, { ...init, cache: "no-store" }));
    return new lib.HttpClient(configure(builder).build());
  }

  async function serverCalls(key) {
    return (await (await fetch(`${fixture.url}/har/calls?key=${key}`)).json()).count;
  }

  /** The fields HAR 1.2 requires of an entry, with their types (the full schema is checked on Deno and Node). */
  function assertEntryShape(entry) {
    assert.equal(typeof entry.startedDateTime, "string");
    assert.ok(!Number.isNaN(Date.parse(entry.startedDateTime)));
    assert.ok(entry.time >= 0);
    for (const part of ["send", "wait", "receive"]) assert.ok(entry.timings[part] >= 0, part);
    assert.equal(typeof entry.cache, "object");
    const { request, response } = entry;
    for (const field of ["method", "url", "httpVersion"]) {
      assert.equal(typeof request[field], "string");
    }
    for (const field of ["cookies", "headers", "queryString"]) {
      assert.ok(Array.isArray(request[field]));
    }
    assert.equal(request.headersSize, -1);
    assert.equal(typeof request.bodySize, "number");
    for (const field of ["statusText", "httpVersion", "redirectURL"]) {
      assert.equal(typeof response[field], "string");
    }
    assert.equal(typeof response.status, "number");
    assert.ok(Array.isArray(response.cookies) && Array.isArray(response.headers));
    assert.equal(typeof response.content.size, "number");
    assert.equal(typeof response.content.mimeType, "string");
  }

  /** Records a session with secrets everywhere; gives the HAR's text and the responses. */
  async function recordSession(key) {
    const recorder = new lib.HarRecorder();
    const http = clientOf([recorder]);
    try {
      const path = `/har/session?key=${key}`;
      const responses = [
        await http.get(`${path}&token=qtok-SECRET-3&page=2`, {
          headers: {
            Authorization: "Bearer tok-SECRET-1",
            "X-API-Key": "key-SECRET-2",
            Cookie: "session=ck-SECRET-5",
          },
        }),
        await http.post(path, { jsonData: { user: "ada", password: "pw-SECRET-4" } }),
        await http.post(path, { data: { client_secret: "form-SECRET-6", scope: "read" } }),
        await http.get(`${path}&bytes=1`),
        await http.get(path),
        await http.get(path),
      ];
      return { text: JSON.stringify(recorder.toHar()), responses };
    } finally {
      await http.close();
    }
  }

  /** A HAR of one entry a `[method, url, response fields]`, each answering 200 with `text`. */
  function harOf(...entries) {
    return {
      log: {
        version: "1.2",
        creator: { name: "test", version: "1" },
        entries: entries.map(([method, url, response = {}, request = {}]) => ({
          startedDateTime: "2026-01-01T00:00:00.000Z",
          time: 1,
          cache: {},
          timings: { send: 0, wait: 1, receive: 0 },
          request: {
            method,
            url,
            httpVersion: "HTTP/1.1",
            cookies: [],
            headers: [],
            queryString: [],
            headersSize: -1,
            bodySize: 0,
            ...request,
          },
          response: {
            status: 200,
            statusText: "OK",
            httpVersion: "HTTP/1.1",
            cookies: [],
            headers: [{ name: "content-type", value: "text/plain" }],
            content: { size: 2, mimeType: "text/plain", text: "ok" },
            redirectURL: "",
            headersSize: -1,
            bodySize: 2,
            ...response,
          },
        })),
      },
    };
  }

  /** A client of `mock` that retries twice at once: a replay's error that is retried shows. */
  function replayClient(mock) {
    return new lib.HttpClient(
      new lib.HttpClientConfigBuilder().withFetch(mock.fetch)
        .withRetry({ maxRetries: 2, backoff: 0.001 }).build(),
    );
  }

  return {
    "a recorded session is a HAR 1.2 log, one entry an exchange, with no secret in its text":
      async () => {
        const { text, responses } = await recordSession(newKey());
        assert.ok(!SECRETS.test(text), "a secret in the HAR");
        const { log } = JSON.parse(text);
        assert.equal(log.version, "1.2");
        assert.equal(log.creator.name, "fetchline");
        assert.equal(log.entries.length, responses.length);
        log.entries.forEach(assertEntryShape);
        const [get, json, form, bytes] = log.entries;
        assert.deepEqual(get.request.queryString.map(({ name, value }) => [name, value]), [
          ["key", new URL(get.request.url).searchParams.get("key")],
          ["token", "***"],
          ["page", "2"],
        ]);
        const header = (name) => get.request.headers.find((h) => h.name.toLowerCase() === name);
        assert.equal(header("authorization").value, "***");
        assert.equal(header("x-api-key").value, "***");
        assert.equal(get.response.status, 200);
        assert.equal(JSON.parse(get.response.content.text).method, "GET");
        assert.deepEqual(JSON.parse(json.request.postData.text), { user: "ada", password: "***" });
        assert.deepEqual(form.request.postData.params, [
          { name: "client_secret", value: "***" },
          { name: "scope", value: "read" },
        ]);
        assert.equal(bytes.response.content.encoding, "base64");
        assert.equal(bytes.response.content.size, 256);
      },
    "fromHar replays the session: same statuses, headers and bytes, and no server is called":
      async () => {
        const key = newKey();
        const { text, responses } = await recordSession(key);
        const before = await serverCalls(key);
        const mock = lib.MockTransport.fromHar(JSON.parse(text));
        const http = new lib.HttpClient(
          new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withFetch(mock.fetch).build(),
        );
        try {
          const path = `/har/session?key=${key}`;
          const replayed = [
            await http.get(`${path}&token=another&page=2`, {
              headers: { Authorization: "Bearer other" },
            }),
            await http.post(path, { jsonData: { user: "ada", password: "another" } }),
            await http.post(path, { data: { client_secret: "another", scope: "read" } }),
            await http.get(`${path}&bytes=1`),
            await http.get(path),
            await http.get(path),
          ];
          replayed.forEach((response, i) => {
            const recorded = responses[i];
            assert.equal(response.statusCode, recorded.statusCode);
            assert.deepEqual([...response.content], [...recorded.content]);
            const masked = (headers) =>
              Object.fromEntries(
                Object.entries(headers).map(([n, v]) => [n, n === "set-cookie" ? "***" : v]),
              );
            assert.deepEqual(masked(response.headers), masked(recorded.headers));
          });
          // A request the recording does not hold, or one more than it holds.
          await assert.rejects(http.get(`${path}&other=1`), lib.UnmatchedRequestException);
          await assert.rejects(http.get(path), lib.UnmatchedRequestException);
        } finally {
          await http.close();
        }
        assert.equal(await serverCalls(key), before);
      },
    "a streamed body is recorded as the caller reads it, never read ahead": async () => {
      const recorder = new lib.HarRecorder();
      const http = clientOf([recorder]);
      const run = newKey();
      const call = (path) => fetch(`${fixture.url}${path}`);
      try {
        const type = encodeURIComponent("text/event-stream");
        const streaming = http.stream("GET", `/streams/held?run=${run}&type=${type}`);
        // The first piece is written once the head is sent, before stream()
        // is awaited: Firefox's fetch resolves only at the body's first byte
        // (tests/shared/streams.mjs). So on every runtime the piece has
        // reached the client, not yet read by the caller, when the entry is
        // first looked at.
        for (const started = Date.now();;) {
          const status = await (await call(`/streams/status?run=${run}`)).json();
          if (status.held) break;
          if (Date.now() - started > 5000) throw new Error("The head was not sent within 5 s");
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await call(`/streams/write?run=${run}&text=${encodeURIComponent("data: one\n\n")}`);
        const response = await streaming;
        const content = () => recorder.toHar().log.entries[0].response.content;
        assert.equal(content().size, 0);
        assert.equal(content()._partial, true);
        const reader = response.body.getReader();
        let read = "";
        const decoder = new TextDecoder();
        for (let i = 0; i < 50 && !read.includes("one\n\n"); i++) {
          read += decoder.decode((await reader.read()).value);
        }
        assert.equal(content().text, "data: one\n\n");
        await call(`/streams/write?run=${run}&text=${encodeURIComponent("data: two\n\n")}`);
        // Written by the server, not yet read by the caller: not in the entry.
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(content().text, "data: one\n\n");
        await call(`/streams/end?run=${run}`);
        for (let i = 0; i < 50 && !(await reader.read()).done; i++);
        assert.equal(content().text, "data: one\n\ndata: two\n\n");
        assert.equal(content()._partial, undefined);
      } finally {
        await http.close();
      }
    },
    "a cache hit is an entry with its Cache-Status when the recorder is outside the cache":
      async () => {
        const recorder = new lib.HarRecorder();
        const cache = new lib.HttpCache({ store: new lib.MemoryCacheStore() });
        const http = clientOf([recorder, cache]);
        try {
          const path = `/har/session?key=${newKey()}&cache=1`;
          await http.get(path);
          await http.get(path);
          await cache.whenIdle();
        } finally {
          await http.close();
        }
        const [miss, hit] = recorder.toHar().log.entries;
        assert.match(miss.cache._cacheStatus, /fwd=miss; stored/);
        assert.equal(hit.cache._cacheStatus, "fetchline; hit");
        assert.equal(hit.response.bodySize, 0);
        assert.equal(JSON.parse(hit.response.content.text).method, "GET");
      },
    "an inner middleware's error quoting the call's credentials is recorded masked in _error":
      async () => {
        const recorder = new lib.HarRecorder();
        const leaky = () => {
          throw new Error(
            "upstream refused Authorization: Bearer tok-SECRET-1 (raw tok-SECRET-1), " +
              `X-API-Key key-SECRET-2, at ${fixture.url}/up?token=qtok-SECRET-3`,
          );
        };
        const http = clientOf([recorder, leaky]);
        try {
          await assert.rejects(
            http.get("/har/session", {
              headers: { Authorization: "Bearer tok-SECRET-1", "X-API-Key": "key-SECRET-2" },
            }),
            Error,
          );
        } finally {
          await http.close();
        }
        const error = recorder.toHar().log.entries[0].response._error;
        assert.ok(!SECRETS.test(error), error);
        assert.match(
          error,
          /^Error: upstream refused Authorization: Bearer \*\*\* \(raw \*\*\*\), X-API-Key \*\*\*, at .*\/up\?token=\*\*\*$/,
        );
      },
    "fromHar refuses a corrupt entry with a TypeError naming the entry, its request and what is wrong":
      () => {
        const good = ["GET", "https://api.test/a"];
        const url = "https://api.test/b?token=tok-SECRET-1";
        const named = (field, what) =>
          new RegExp(
            `^Invalid har\\.log\\.entries\\[1\\]\\.${field}: expected ${what}, got .* \\(the entry of GET https://api\\.test/b\\?token=\\*\\*\\*\\)$`,
          );
        const corrupt = [
          [{ content: { size: 3, mimeType: "x", encoding: "base64", text: "n0t base64!" } }, {}, [
            "response\\.content\\.text",
            "base64 text",
          ]],
          [{ headers: { "content-type": "text/plain" } }, {}, [
            "response\\.headers",
            "a list of \\{ name, value \\}",
          ]],
          [{ headers: [null] }, {}, ["response\\.headers\\[0\\]", "\\{ name, value \\}"]],
          [{ headers: [{ name: "x-n", value: 1 }] }, {}, [
            "response\\.headers\\[0\\]\\.value",
            "text",
          ]],
          [{ content: { size: 1, mimeType: "text/plain", text: 7 } }, {}, [
            "response\\.content\\.text",
            "text",
          ]],
          [{ status: 200.5 }, {}, ["response\\.status", "an integer"]],
          [{ statusText: "OK\r\nX-Injected: 1" }, {}, ["response\\.statusText", "a reason phrase"]],
          [{}, {
            postData: { mimeType: "application/octet-stream", _encoding: "base64", text: "%%" },
          }, [
            "request\\.postData\\.text",
            "base64 text",
          ]],
          [{}, { postData: { mimeType: "application/x-www-form-urlencoded", params: "a=1" } }, [
            "request\\.postData\\.params",
            "a list of \\{ name, value \\}",
          ]],
        ];
        for (const [response, request, [field, what]] of corrupt) {
          const har = harOf(good, ["GET", url, response, request]);
          const error = assert.throws(() => lib.MockTransport.fromHar(har), TypeError);
          assert.match(error.message, named(field, what));
          assert.ok(!SECRETS.test(error.message), error.message);
        }
      },
    "a recorded entry found corrupt at replay fails the call once, naming the entry, not retried":
      async () => {
        const har = harOf(["GET", "https://api.test/a?token=tok-SECRET-1"]);
        const mock = lib.MockTransport.fromHar(har);
        // Changed after fromHar checked it: only the replay can find it.
        har.log.entries[0].response.headers = { "content-type": "text/plain" };
        const http = replayClient(mock);
        try {
          const error = await assert.rejects(
            http.get("https://api.test/a?token=tok-SECRET-1"),
            lib.HttpClientException,
            /^The recorded har\.log\.entries\[0\] \(GET https:\/\/api\.test\/a\?token=\*\*\*\) cannot be replayed: TypeError: /,
          );
          assert.ok(
            !(error instanceof lib.ConnectionException),
            "a replay's mistake is no network failure",
          );
          assert.ok(!SECRETS.test(error.message), error.message);
        } finally {
          await http.close();
        }
        assert.equal(mock.calls.length, 1, "not retried");
      },
    "a request past the recording's entries for it says they are used up and names repeat: true":
      async () => {
        const mock = lib.MockTransport.fromHar(
          harOf(["GET", "https://api.test/a"], ["GET", "https://api.test/a"], [
            "POST",
            "https://api.test/b",
          ]),
        );
        const http = replayClient(mock);
        try {
          await http.get("https://api.test/a");
          await http.get("https://api.test/a");
          const error = await assert.rejects(
            http.get("https://api.test/a"),
            lib.UnmatchedRequestException,
          );
          assert.equal(
            error.message,
            "No mock route matches GET https://api.test/a: the recording's 2 entries for it are used up " +
              "(fromHar's repeat: true answers again with the last); routes POST https://api.test/b",
          );
          await http.post("https://api.test/b");
          const last = await assert.rejects(
            http.post("https://api.test/b"),
            lib.UnmatchedRequestException,
          );
          assert.equal(
            last.message,
            "No mock route matches POST https://api.test/b: the recording's 1 entry for it is used up " +
              "(fromHar's repeat: true answers again with the last); no other routes",
          );
        } finally {
          await http.close();
        }
        assert.equal(mock.calls.length, 5, "not retried");
      },
    "a failed exchange is an entry with status 0 and the error, masked; replayed, it fails again":
      async () => {
        const recorder = new lib.HarRecorder();
        const http = clientOf([recorder], (builder) => builder.withBaseUrl(fixture.refusedUrl));
        try {
          await assert.rejects(http.get("/gone?token=qtok-SECRET-3"), lib.ConnectionException);
        } finally {
          await http.close();
        }
        const har = recorder.toHar();
        const [entry] = har.log.entries;
        assertEntryShape(entry);
        assert.equal(entry.response.status, 0);
        assert.match(entry.response._error, /^ConnectionException: /);
        assert.ok(!SECRETS.test(JSON.stringify(har)), "a secret in the HAR");
        const mock = lib.MockTransport.fromHar(har);
        const replay = new lib.HttpClient(
          new lib.HttpClientConfigBuilder().withFetch(mock.fetch).withRetry({ maxRetries: 0 })
            .build(),
        );
        try {
          await assert.rejects(
            replay.get(`${fixture.refusedUrl}/gone?token=other`),
            lib.ConnectionException,
          );
        } finally {
          await replay.close();
        }
      },
  };
}
