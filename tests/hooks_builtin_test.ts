import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  CorrelationIdHook,
  HttpClient,
  HttpClientConfigBuilder,
  HttpRequest,
  HttpResponse,
  LoggingRequestHook,
  LoggingResponseHook,
  RateLimitResponseHook,
  type RequestBody,
  RequestContext,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { recordedWaits, recordingLogger } from "./helpers.ts";

const ID = "[0-9a-f]{8}";

Deno.test("LoggingRequestHook gives every call its own request ID, past a batch of random words", async () => {
  const { logger, lines } = recordingLogger();
  const config = new HttpClientConfigBuilder()
    .withFetch(() => Promise.resolve(new Response("ok")))
    .withLogging({ logger })
    .build();
  using client = new HttpClient(config);
  for (let i = 0; i < 600; i++) await client.get("http://127.0.0.1/x");
  const ids = lines.filter(([, message]) => message.includes("HTTP GET")).map(([, m]) =>
    m.slice(1, 9)
  );
  assert.equal(ids.length, 600);
  assert.ok(ids.every((id) => new RegExp(`^${ID}$`).test(id)));
  assert.ok(
    new Set(ids).size >= 599,
    "random 32-bit IDs: a repeat among 600 is a 1-in-24,000 event",
  );
});

Deno.test("withLogging() writes the exact request, response and error lines", async () => {
  await using server = startFixtureServer();
  const { logger, lines } = recordingLogger();
  const { sleep } = recordedWaits();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(`${server.url}/api`)
    .withRetry({ sleep, maxRetries: 1 })
    .withLogging({ logger })
    .build();
  await using client = new HttpClient(config);
  await client.get("/items", { params: { page: 2, q: "a b" } });
  assert.equal(lines.length, 2);
  assert.equal(lines[0]![0], "info");
  assert.match(lines[0]![1], new RegExp(`^\\[${ID}\\] HTTP GET /api/items\\?page=2&q=a\\+b$`));
  assert.equal(lines[1]![0], "info");
  assert.match(lines[1]![1], new RegExp(`^\\[${ID}\\] Response: 200 \\(\\d+\\.\\d{2}ms\\)$`));
  lines.length = 0;
  await client.get(`${server.url}/status/404`);
  assert.equal(lines[1]![0], "warn");
  assert.match(lines[1]![1], /Response: 404 \(/);
  lines.length = 0;
  const drops = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.dropUrl).withRetry({ sleep }).withLogging({
      logger,
    })
      .build(),
  );
  await assert.rejects(drops.get("/gone"));
  drops.close();
  const errors = lines.filter(([level]) => level === "error").map(([, message]) => message);
  assert.equal(errors.length, 3);
  errors.forEach((message, i) => {
    assert.match(
      message,
      new RegExp(
        `^\\[${ID}\\] Request failed \\(attempt ${
          i + 1
        }/3\\): ConnectionException: Connection failed: [a-z ]+ \\(.+\\): GET http://127\\.0\\.0\\.1:\\d+/gone$`,
      ),
    );
  });
});

Deno.test("withLogging() logs headers masked in any letter case, and bodies only when asked", async () => {
  await using server = startFixtureServer();
  server.route(
    "/fail",
    () => new Response("it broke", { status: 500, headers: { "Set-Cookie": "sid=zzz" } }),
  );
  const { logger, lines } = recordingLogger();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRetry({ maxRetries: 0 })
    .withLogging({ logger, logHeaders: true, logBody: true, sensitiveKeys: ["x-secret"] })
    .build();
  await using client = new HttpClient(config);
  await client.post("/fail", {
    jsonData: { user: "ada" },
    headers: {
      AUTHORIZATION: "Bearer t0ken",
      "x-API-key": "k3y",
      Cookie: "c=1",
      "Proxy-Authorization": "Basic p",
      "X-SECRET": "s3cret",
      Accept: "text/plain",
    },
  });
  const text = lines.map(([, message]) => message);
  for (const secret of ["t0ken", "k3y", "c=1", "Basic p", "s3cret", "zzz"]) {
    assert.ok(!text.some((line) => line.includes(secret)), `${secret} leaked`);
  }
  assert.match(
    text[1]!,
    new RegExp(
      `^\\[${ID}\\] Headers: \\{"AUTHORIZATION":"\\*\\*\\*","x-API-key":"\\*\\*\\*","Cookie":"\\*\\*\\*","Proxy-Authorization":"\\*\\*\\*","X-SECRET":"\\*\\*\\*","Accept":"text/plain"\\}$`,
    ),
  );
  assert.match(text[2]!, new RegExp(`^\\[${ID}\\] Body: \\{"user": "ada"\\}$`));
  assert.match(text[3]!, /Response: 500/);
  assert.match(text[4]!, /Response Headers: \{.*"set-cookie":"\*\*\*"/);
  assert.match(text[5]!, new RegExp(`^\\[${ID}\\] Response Body: it broke$`));
  lines.length = 0;
  await client.post("/echo", { data: { a: "1" } });
  assert.ok(lines.some(([, message]) => message.endsWith("Body: a=1")));
  assert.ok(
    !lines.some(([, message]) => message.includes("Response Body")),
    "a success body is not logged",
  );
  lines.length = 0;
  const quiet = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withLogging({ logger }).build(),
  );
  await quiet.post("/echo", { jsonData: { hidden: true } });
  quiet.close();
  assert.equal(lines.length, 2, "no header or body lines without logHeaders and logBody");
});

Deno.test("One request ID and one correlation ID serve every retry of a call", async () => {
  await using server = startFixtureServer();
  let calls = 0;
  server.route("/flaky", () => new Response(null, { status: ++calls < 3 ? 503 : 200 }));
  const { logger, lines } = recordingLogger();
  const { sleep } = recordedWaits();
  const contexts: RequestContext[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRetry({ sleep })
    .withLogging({ logger })
    .withRequestHook(new CorrelationIdHook())
    .withRequestHook({ beforeRequest: (request, context) => (contexts.push(context), request) })
    .build();
  await using client = new HttpClient(config);
  await client.get("/flaky");
  const ids = new Set(lines.map(([, message]) => message.slice(1, 9)));
  assert.equal(ids.size, 1);
  assert.equal(lines.length, 8, "3 request lines, 3 response lines, 2 retry lines");
  assert.equal(lines.filter(([, message]) => message.includes("] Retrying in ")).length, 2);
  const correlation = server.requests.map((r) => r.headers["x-correlation-id"]);
  assert.equal(new Set(correlation).size, 1);
  assert.equal(correlation[0], contexts[0]!.metadata.correlationId);
  assert.match(correlation[0]!, /^[0-9a-f-]{36}$/);
  assert.equal(contexts[0]!.metadata.requestId, [...ids][0]);
  assert.equal(typeof contexts[0]!.metadata.startTime, "number");
  await client.get("/flaky");
  assert.notEqual(server.last().headers["x-correlation-id"], correlation[0], "a new ID per call");
});

Deno.test("CorrelationIdHook sends its ID under the header name given", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook(new CorrelationIdHook({ headerName: "X-Request-Trace" }))
    .build();
  await using client = new HttpClient(config);
  await client.get("/x");
  assert.match(server.last().headers["x-request-trace"] ?? "", /^[0-9a-f-]{36}$/);
  assert.throws(() => new CorrelationIdHook({ headerName: "bad name" }), TypeError);
});

Deno.test("RateLimitResponseHook stores the rate-limit headers as numbers, and nothing when absent", async () => {
  await using server = startFixtureServer();
  server.route(
    "/limited",
    () =>
      new Response("ok", {
        headers: { "X-RateLimit-Remaining": "7", "X-RateLimit-Reset": "1767225600" },
      }),
  );
  const contexts: RequestContext[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withResponseHook(new RateLimitResponseHook())
    .withResponseHook({ afterResponse: (response, context) => (contexts.push(context), response) })
    .build();
  await using client = new HttpClient(config);
  await client.get("/limited");
  assert.equal(contexts[0]!.metadata.rateLimitRemaining, 7);
  assert.equal(contexts[0]!.metadata.rateLimitReset, 1767225600);
  await client.get("/plain");
  assert.ok(!("rateLimitRemaining" in contexts[1]!.metadata));
  assert.ok(!("rateLimitReset" in contexts[1]!.metadata));
});

Deno.test("LoggingResponseHook alone writes [unknown] for the request ID", () => {
  const { logger, lines } = recordingLogger();
  const request = new HttpRequest("GET", "http://127.0.0.1/");
  const response = new HttpResponse({
    statusCode: 200,
    headers: {},
    content: new Uint8Array(),
    elapsedMs: 3.14159,
    url: request.url,
    request,
  });
  new LoggingResponseHook({ logger }).afterResponse(response, new RequestContext(request));
  assert.deepEqual(lines, [["info", "[unknown] Response: 200 (3.14ms)"]]);
});

Deno.test("LoggingRequestHook logs a raw string body as text and other raw bodies by kind and size", () => {
  const { logger, lines } = recordingLogger();
  const hook = new LoggingRequestHook({ logger, logBody: true });
  const cases: [RequestBody, string][] = [
    ["a=1 ✓", "a=1 ✓"],
    [new Uint8Array([1, 2, 3]), "Uint8Array(3)"],
    [new Uint8Array([1, 2]).buffer, "ArrayBuffer(2)"],
    [new Blob(["xy"]), "Blob(2)"],
    [new ReadableStream(), "ReadableStream"],
  ];
  for (const [body, shown] of cases) {
    lines.length = 0;
    const request = new HttpRequest("PUT", "http://127.0.0.1/x", { body });
    hook.beforeRequest(request, new RequestContext(request));
    assert.match(lines[1]?.[1] ?? "", new RegExp(`^\\[${ID}\\] Body: `));
    assert.equal(lines[1]?.[1].split("] ")[1], `Body: ${shown}`);
  }
});

Deno.test("LoggingRequestHook masks credential-like fields of a form body", () => {
  const { logger, lines } = recordingLogger();
  const hook = new LoggingRequestHook({ logger, logBody: true, sensitiveKeys: ["Tenant"] });
  const request = new HttpRequest("POST", "http://127.0.0.1/token", {
    data: {
      grant_type: "password",
      username: "ada",
      password: "pw-s3cret",
      client_secret: "cs-s3cret",
      tenant: "t-s3cret",
    },
  });
  hook.beforeRequest(request, new RequestContext(request));
  assert.equal(
    lines[1]?.[1].split("] ")[1],
    "Body: grant_type=password&username=ada&password=***&client_secret=***&tenant=***",
  );
});

Deno.test("LoggingRequestHook masks credential-like fields of a JSON body, at any depth, and sensitiveKeys", () => {
  const { logger, lines } = recordingLogger();
  const hook = new LoggingRequestHook({ logger, logBody: true, sensitiveKeys: ["Tenant"] });
  const request = new HttpRequest("POST", "http://127.0.0.1/login", {
    jsonData: {
      username: "ada",
      password: "pw-s3cret",
      client: { client_secret: "cs-s3cret", scopes: ["read"] },
      tenant: "t-s3cret",
    },
  });
  hook.beforeRequest(request, new RequestContext(request));
  const line = lines[1]?.[1] ?? "";
  assert.doesNotMatch(line, /s3cret/);
  assert.deepEqual(JSON.parse(line.split("] Body: ")[1]!), {
    username: "ada",
    password: "***",
    client: { client_secret: "***", scopes: ["read"] },
    tenant: "***",
  });
  // A body with nothing to mask is logged as it is sent, its spelling kept.
  lines.length = 0;
  const plain = new HttpRequest("POST", "http://127.0.0.1/x", { jsonData: { user: "ada" } });
  hook.beforeRequest(plain, new RequestContext(plain));
  assert.equal(lines[1]?.[1].split("] ")[1], 'Body: {"user": "ada"}');
});

Deno.test("LoggingRequestHook logs each call's own path, query and params when the URLs take turns", () => {
  const { logger, lines } = recordingLogger();
  const hook = new LoggingRequestHook({ logger, sensitiveKeys: ["code"] });
  const requests = [
    new HttpRequest("GET", "http://127.0.0.1/a?code=1"),
    new HttpRequest("GET", "http://127.0.0.1/b"),
    new HttpRequest("GET", "http://127.0.0.1/b", { params: { page: 2 } }),
    new HttpRequest("GET", "http://127.0.0.1/b"),
    new HttpRequest("GET", "http://127.0.0.1/a?code=1"),
  ];
  for (const request of requests) hook.beforeRequest(request, new RequestContext(request));
  assert.deepEqual(lines.map(([, message]) => message.replace(/^\[\w+\] /, "")), [
    "HTTP GET /a?code=***",
    "HTTP GET /b",
    "HTTP GET /b?page=2",
    "HTTP GET /b",
    "HTTP GET /a?code=***",
  ]);
});

Deno.test("CorrelationIdHook and ApiKeyAuthHook send their header unchecked only under the name they checked", () => {
  const request = new HttpRequest("GET", "http://127.0.0.1/");
  const correlation = new CorrelationIdHook();
  const apiKey = new ApiKeyAuthHook("k3y-value");
  const sent = correlation.beforeRequest(request, new RequestContext(request));
  assert.match(sent.headers?.["X-Correlation-ID"] ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(apiKey.beforeRequest(request).headers?.["X-API-Key"], "k3y-value");
  // A name changed after the hook was made is checked as any header is.
  (correlation as { headerName: string }).headerName = "Bad Name";
  (apiKey as { headerName: string }).headerName = "Bad\nName";
  assert.throws(
    () => correlation.beforeRequest(request, new RequestContext(request)),
    TypeError,
  );
  assert.throws(() => apiKey.beforeRequest(request), /Invalid header name/);
});
