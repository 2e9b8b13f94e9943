// The bad input matrix, part two: JSON bodies, files, bodies on
// GET and HEAD, and credentials with line breaks. Each row names the exact
// error class and checks that the message names the field, never a secret.

import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  AuthenticationException,
  AuthorizationHook,
  BasicAuthHook,
  clientCredentialsStep,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  TokenAuthHook,
  TokenManager,
} from "../mod.ts";
import { TokenData } from "../config.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { countingClient, rejectsWith, throwsAtOnce } from "./helpers.ts";

const json = (jsonData: unknown) => () => new HttpRequest("POST", "/x", { jsonData });

Deno.test("HttpRequest refuses jsonData with a BigInt with a TypeError naming the path", () => {
  throwsAtOnce(json(1n), TypeError, /^Invalid jsonData: BigInt is not JSON-serializable/);
  throwsAtOnce(
    json({ order: { total: 10n } }),
    TypeError,
    /^Invalid jsonData\.order\.total: BigInt is not JSON-serializable; convert it to a string or number$/,
  );
});

Deno.test("HttpRequest refuses jsonData with a cycle with a TypeError naming where it closes", () => {
  const root: Record<string, unknown> = {};
  root.a = { b: [root] };
  throwsAtOnce(json(root), TypeError, "Invalid jsonData.a.b[0]: circular reference");
  const list: unknown[] = [];
  list.push(list);
  throwsAtOnce(json(list), TypeError, "Invalid jsonData[0]: circular reference");
  const shared = { x: 1 };
  assert.equal(
    new HttpRequest("POST", "/x", { jsonData: { a: shared, b: [shared] } }).jsonText,
    '{"a": {"x": 1}, "b": [{"x": 1}]}',
    "a value used twice is no cycle",
  );
});

Deno.test("HttpRequest refuses jsonData with NaN or an infinity with a TypeError naming the path", () => {
  throwsAtOnce(json(NaN), TypeError, "Invalid jsonData: NaN is not JSON-serializable");
  throwsAtOnce(
    json({ items: [{ price: Infinity }] }),
    TypeError,
    "Invalid jsonData.items[0].price: Infinity is not JSON-serializable",
  );
  throwsAtOnce(json({ "a.b": -Infinity }), TypeError, /^Invalid jsonData\["a\.b"\]: -Infinity/);
});

Deno.test("HttpRequest refuses jsonData with functions, symbols, Maps or Sets with a TypeError", () => {
  throwsAtOnce(json({ f: () => 1 }), TypeError, /^Invalid jsonData\.f: a function/);
  throwsAtOnce(json({ s: Symbol("s") }), TypeError, /^Invalid jsonData\.s: a symbol/);
  throwsAtOnce(json({ m: new Map() }), TypeError, /^Invalid jsonData\.m: a Map/);
  throwsAtOnce(json([new Set()]), TypeError, /^Invalid jsonData\[0\]: a Set/);
});

Deno.test("HttpClient refuses a JSON body it cannot serialize with a TypeError before sending", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  await rejectsWith(client.put("/x", { jsonData: { id: 1n } }), TypeError, /jsonData\.id: BigInt/);
  await rejectsWith(client.post("/x", { jsonData: [NaN] }), TypeError, /jsonData\[0\]: NaN/);
  assert.deepEqual([attempts, server.requests.length], [[], 0]);
});

Deno.test("HttpRequest refuses both data and jsonData with a TypeError", () => {
  throwsAtOnce(
    () => new HttpRequest("POST", "/x", { data: { a: 1 }, jsonData: { a: 1 } }),
    TypeError,
    "Invalid body: give either data or jsonData, not both",
  );
});

Deno.test("HttpClient fails a file that does not exist with HttpClientException naming it, without retrying", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  await rejectsWith(
    client.put("/upload", { files: { doc: "/no/such/file.txt" } }),
    HttpClientException,
    /^Cannot read files\.doc from "\/no\/such\/file\.txt" \(NotFound\): PUT http:\/\/127\.0\.0\.1:\d+\/upload$/,
  );
  const directory = await Deno.makeTempDir();
  try {
    await rejectsWith(
      client.put("/upload", { files: { dir: directory } }),
      HttpClientException,
      /^Cannot read files\.dir from ".*" \(IsADirectory\): PUT /,
    );
  } finally {
    await Deno.remove(directory);
  }
  assert.deepEqual(attempts, [0, 0], "PUT is retried on connection failures, not on this");
  assert.equal(server.requests.length, 0);
});

Deno.test("HttpRequest refuses an empty file path or a value that is no file with a TypeError", () => {
  for (const [value, type] of [["", "string"], [42, "number"], [null, "null"]]) {
    throwsAtOnce(
      () => new HttpRequest("POST", "/x", { files: { doc: value as string } }),
      TypeError,
      `Invalid files.doc: expected a Blob, File, Uint8Array or a file path, got ${type}`,
    );
  }
});

Deno.test("HttpRequest refuses a body on GET and HEAD with a TypeError, as fetch cannot send one", async () => {
  const bodies = [{ jsonData: { a: 1 } }, { jsonData: null }, { data: { a: 1 } }, {
    files: { f: new Uint8Array([1]) },
  }];
  for (const method of ["GET", "HEAD"]) {
    for (const body of bodies) {
      throwsAtOnce(
        () => new HttpRequest(method, "/x", body),
        TypeError,
        `Invalid body: a ${method} request cannot have body, data, jsonData or files`,
      );
    }
  }
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).build(),
  );
  await rejectsWith(client.get("/x", { jsonData: {} }), TypeError, /a GET request cannot have/);
  assert.equal(server.requests.length, 0);
});

Deno.test("HttpClient sends a body on DELETE and OPTIONS as given", async () => {
  await using server = startFixtureServer();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).build(),
  );
  await client.delete("/items", { jsonData: { ids: [1, 2] } });
  await client.options("/items", { data: { a: "1" } });
  const [deleted, options] = server.requests.map((r) => new TextDecoder().decode(r.body));
  assert.deepEqual([deleted, options], ['{"ids": [1, 2]}', "a=1"]);
});

Deno.test("ApiKeyAuthHook refuses a key with CR, LF or NUL with a TypeError that does not show it", () => {
  for (const [name, char] of [["CR", "\r"], ["LF", "\n"], ["NUL", "\0"]]) {
    const error = throwsAtOnce(
      () => new ApiKeyAuthHook(`k3y-${char}X-Evil: 1`),
      TypeError,
      `Invalid value for header "X-API-Key" in apiKey: character ${name} at index 4 is not allowed`,
    );
    assert.ok(!String(error).includes("k3y"));
  }
});

Deno.test("Auth hooks refuse a bad header name or a prefix with a newline with a TypeError naming that option", () => {
  const manager = new TokenManager([{
    name: "static",
    fetch: () => Promise.resolve(new TokenData({ accessToken: "t" })),
  }]);
  throwsAtOnce(
    () => new TokenAuthHook(manager, { authHeaderPrefix: "Bea\nrer" }),
    TypeError,
    'Invalid value for header "Authorization" in authHeaderPrefix: character LF at index 3 is not allowed',
  );
  throwsAtOnce(
    () => new TokenAuthHook(manager, { authHeaderName: "X Auth" }),
    TypeError,
    'Invalid header name in authHeaderName: "X Auth"',
  );
  throwsAtOnce(
    () => new AuthorizationHook(() => "t", { prefix: "a\rb" }),
    TypeError,
    'Invalid value for header "Authorization" in prefix: character CR at index 1 is not allowed',
  );
  throwsAtOnce(
    () => new ApiKeyAuthHook("k", { headerName: "X-Key\r" }),
    TypeError,
    'Invalid header name in headerName: "X-Key\\r"',
  );
});

Deno.test("clientCredentialsStep fails with AuthenticationException, sending nothing, when the token endpoint returns a token with CRLF", async () => {
  await using server = startFixtureServer();
  server.route(
    "/oauth/token",
    () => Response.json({ access_token: "t0ken\r\nX-Evil: 1", token_type: "Bearer" }),
  );
  const manager = new TokenManager([
    clientCredentialsStep({
      tokenUrl: `${server.url}/oauth/token`,
      clientId: "app",
      clientSecret: "s3cret",
    }),
  ]);
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withTokenAuth({ tokenManager: manager })
    .build();
  await using client = new HttpClient(config);
  const error = await rejectsWith(
    client.get("/api/data"),
    AuthenticationException,
    /^Token step 'client_credentials' failed: the access_token holds characters a header cannot carry \(status 200\)$/,
  );
  assert.ok(!String(error).includes("t0ken") && !Deno.inspect(error).includes("t0ken"));
  assert.deepEqual(server.requests.map((r) => r.path), ["/oauth/token"]);
});

Deno.test("AuthorizationHook fails the call with an AuthenticationException naming the header when its token has a newline", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook(new AuthorizationHook(() => "t0ken\nX-Evil: 1"))
    .build();
  await using client = new HttpClient(config);
  const error = await rejectsWith(
    client.get("/x"),
    AuthenticationException,
    /^The token provider returned a token a header cannot carry: GET /,
  );
  assert.ok(error.cause instanceof TypeError);
  assert.match(error.cause.message, /"Authorization".*LF at index 5/);
  assert.ok(!error.message.includes("t0ken") && !error.cause.message.includes("t0ken"));
  assert.equal(server.requests.length, 0);
});

Deno.test("Basic credentials with a newline are sent base64-encoded, so they cannot split the header", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withAuthHook(new BasicAuthHook("ada", "pa\r\nX-Evil: 1"))
    .build();
  await using client = new HttpClient(config);
  await client.get("/hook");
  await client.get("/field", { auth: ["bob", "pw\nX-Evil: 2"] });
  const [hook, field] = server.requests;
  assert.equal(hook!.headers["authorization"], `Basic ${btoa("ada:pa\r\nX-Evil: 1")}`);
  assert.equal(field!.headers["authorization"], `Basic ${btoa("bob:pw\nX-Evil: 2")}`);
  assert.ok(server.requests.every((r) => r.headers["x-evil"] === undefined));
});
