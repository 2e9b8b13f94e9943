// The client's everyday behaviour through each runtime's transport: requests
// as sent, responses as received, errors of the network and of the lifecycle.

/** `size` bytes whose byte i is i modulo 251, as the fixture's /client/bytes sends. */
function pattern(size) {
  return Uint8Array.from({ length: size }, (_, index) => index % 251);
}

export default function ({ lib, fixture, runtime, assert }) {
  /** Runs `body` with a client on the fixture, closed at its end. */
  async function withClient(body, configure = (builder) => builder) {
    const builder = new lib.HttpClientConfigBuilder().withBaseUrl(fixture.url).withTimeout(10);
    const http = new lib.HttpClient(configure(builder).build());
    try {
      return await body(http);
    } finally {
      await http.close();
    }
  }

  return {
    "get() sends params and headers": () =>
      withClient(async (http) => {
        const response = await http.get("/client/echo", {
          params: { page: 2, q: "a b" },
          headers: { "X-Trace": "t-1" },
        });
        assert.equal(response.statusCode, 200);
        const sent = response.json();
        assert.equal(sent.method, "GET");
        assert.equal(sent.query, "page=2&q=a+b");
        assert.equal(sent.headers["x-trace"], "t-1");
      }),
    "post() sends JSON text with its content type": () =>
      withClient(async (http) => {
        const sent = (await http.post("/client/echo", { jsonData: { name: "Ada", n: [1, 2] } }))
          .json();
        assert.equal(sent.method, "POST");
        assert.equal(sent.body, '{"name": "Ada", "n": [1, 2]}');
        assert.equal(sent.headers["content-type"], "application/json");
      }),
    'withJsonStyle("compact") sends the bytes of JSON.stringify, and toCurl() renders them': () => {
      const value = {
        name: "Ada ü",
        quote: 'it\'s "so"',
        n: [1, 2.5, -0, 1e21, { deep: null }],
        skipped: undefined,
        when: new Date(0),
      };
      const text = JSON.stringify(value);
      return withClient(
        async (http) => {
          const sha256 = async (bytes) =>
            Array.from(
              new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
              (byte) => byte.toString(16).padStart(2, "0"),
            ).join("");
          const response = await http.post("/client/sha256", { jsonData: value });
          assert.equal(response.json().sha256, await sha256(new TextEncoder().encode(text)));
          assert.equal(response.request.jsonText, text);
          assert.ok(response.request.toCurl().includes(`--data ${lib.shellQuote(text)}`));
          // A hook's copy of the request keeps the style; the default stays Python's.
          const echoed = await http.put("/client/echo", { jsonData: { a: [1, 2] } });
          assert.equal(echoed.json().body, '{"a":[1,2]}');
          const python = http.extend((builder) => builder.withJsonStyle("python"));
          assert.equal(
            (await python.put("/client/echo", { jsonData: { a: [1, 2] } })).json().body,
            '{"a": [1, 2]}',
          );
        },
        (builder) =>
          builder.withJsonStyle("compact").withRequestHook({
            beforeRequest: (request) => request.withHeaders({ "X-Hooked": "1" }),
          }),
      );
    },
    "put() sends form data": () =>
      withClient(async (http) => {
        const sent = (await http.put("/client/echo", { data: { a: "1 2", b: "é" } })).json();
        assert.equal(sent.method, "PUT");
        assert.equal(sent.body, "a=1+2&b=%C3%A9");
        assert.match(sent.headers["content-type"], /^application\/x-www-form-urlencoded/);
      }),
    "query() sends its body with the QUERY method": () =>
      withClient(async (http) => {
        const sent = (await http.query("/client/echo", {
          params: { page: 2 },
          jsonData: { q: "Ada" },
        })).json();
        assert.deepEqual([sent.method, sent.query, sent.body], ["QUERY", "page=2", '{"q": "Ada"}']);
        assert.equal(sent.headers["content-type"], "application/json");
      }),
    "a response header the server sets is readable": () =>
      withClient(async (http) => {
        const response = await http.get("/client/echo");
        assert.equal(response.header("X-Request-Id"), "rid-7");
        assert.match(response.header("content-type"), /^application\/json/);
      }),
    "a 404 and a 500 are responses, not errors": () =>
      withClient(async (http) => {
        const missing = await http.get("/client/status", { params: { code: 404 } });
        assert.equal(missing.statusCode, 404);
        assert.ok(missing.isClientError && !missing.isSuccess, "404 is a client error");
        assert.equal(missing.text, "status 404");
        const failed = await http.post("/client/status", { params: { code: 500 } });
        assert.equal(failed.statusCode, 500);
        assert.ok(failed.isServerError, "500 is a server error");
      }, (builder) => builder.withRetry({ maxRetries: 0 })),
    "a gzip body is decoded": () =>
      withClient(async (http) => {
        const response = await http.get("/client/gzip");
        assert.equal(response.text, "hello, gzip ".repeat(100));
      }),
    "a 1 MiB binary body arrives whole": () =>
      withClient(async (http) => {
        const size = 1024 * 1024;
        const response = await http.get("/client/bytes", { params: { size } });
        assert.equal(response.content.length, size);
        assert.deepEqual(response.content, pattern(size));
      }),
    "head() reads the head and no body": () =>
      withClient(async (http) => {
        const response = await http.head("/client/bytes", { params: { size: 10 } });
        assert.equal(response.statusCode, 200);
        assert.equal(response.content.length, 0);
      }),
    "an absolute URL reaches another origin": () =>
      withClient(async (http) => {
        const response = await http.get(`${fixture.otherUrl}/client/echo`);
        assert.equal(response.url, `${fixture.otherUrl}/client/echo`);
        assert.equal(response.json().path, "/client/echo");
      }),
    "a body that is not JSON fails json() with ResponseParseException": () =>
      withClient(async (http) => {
        const response = await http.get("/client/not-json");
        const error = assert.throws(() => response.json(), lib.ResponseParseException);
        assert.equal(error.response, response);
        assert.equal(response.jsonOrUndefined(), undefined);
      }),
    "a refused port is a ConnectionException": async () => {
      const http = lib.createClient(fixture.refusedUrl);
      try {
        await assert.rejects(
          http.get("/", { timeout: 10 }),
          lib.ConnectionException,
        );
      } finally {
        await http.close();
      }
    },
    "a call after close() fails with HttpClientException": async () => {
      const http = lib.createClient(fixture.url);
      assert.equal((await http.get("/client/echo")).statusCode, 200);
      await http.close();
      await assert.rejects(http.get("/client/echo"), lib.HttpClientException, /closed/);
    },
    "toCurl() replays the request": () => {
      const request = new lib.HttpRequest("POST", `${fixture.url}/x`, { jsonData: { a: 1 } });
      const command = lib.toCurl(request);
      assert.equal(command, request.toCurl());
      assert.ok(command.startsWith("curl ") && command.includes(`${fixture.url}/x`), command);
    },
    "every response carries frozen timings: waitMs to the head, totalMs, downloadMs once a streamed body ends":
      () =>
        withClient(async (http) => {
          const buffered = await http.get("/client/echo");
          const { timings } = buffered;
          assert.ok(Object.isFrozen(timings), "frozen");
          assert.ok(timings.waitMs >= 0 && timings.totalMs >= timings.waitMs, "waitMs <= totalMs");
          for (const [phase, value] of Object.entries(timings)) {
            if (phase === "reused") assert.equal(typeof value, "boolean", phase);
            else assert.ok(Number.isFinite(value) && value >= 0, `${phase} ${value}`);
          }
          const streamed = await http.stream("GET", "/client/bytes?size=100000");
          assert.equal(streamed.timings.downloadMs, undefined, "no download before the body ends");
          const read = await streamed.read();
          assert.equal(read.content.byteLength, 100000);
          const ended = streamed.timings;
          assert.ok(ended.downloadMs !== undefined && ended.downloadMs >= 0, "downloadMs");
          assert.ok(ended.totalMs >= ended.waitMs, "totalMs");
        }),
    "each exchange is published on fetchline:exchange where the runtime has node:diagnostics_channel":
      {
        runtimes: ["deno", "node", "bun"],
        reason: "workerd and the browsers have no node:diagnostics_channel",
        run: async () => {
          // A name in a variable, so a page or workerd never resolves it.
          const name = "node:diagnostics_channel";
          const diagnostics = await import(name);
          const seen = [];
          const subscribers = {
            start: ({ attempt, reason }) => void seen.push(`${attempt} ${reason}`),
            end() {},
            asyncStart() {},
            asyncEnd() {},
            error() {},
          };
          const channel = diagnostics.tracingChannel("fetchline:exchange");
          channel.subscribe(subscribers);
          try {
            await withClient(async (http) => void await http.get("/client/echo"));
          } finally {
            channel.unsubscribe(subscribers);
          }
          assert.deepEqual(seen, ["1 first"], runtime);
        },
      },
  };
}
