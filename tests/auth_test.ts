import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  AuthenticationException,
  AuthorizationHook,
  BasicAuthHook,
  clientCredentialsStep,
  CompositeAuthHook,
  HttpClient,
  HttpClientConfigBuilder,
  type HttpRequest,
  NoAuthRetryStrategy,
  SimpleAuthRetryStrategy,
  TokenAuthHook,
  TokenManager,
} from "../mod.ts";
import { TokenData } from "../config.ts";
import { type FixtureServer, startFixtureServer } from "./fixture_server.ts";
import { recordingLogger, rejectsWith } from "./helpers.ts";

const CLIENT_SECRET = "cl1ent-s3cret-value";

/** An OAuth token endpoint on the fixture: issues tok-1, tok-2, … and counts the fetches. */
function tokenEndpoint(server: FixtureServer, expiresIn = 3600) {
  const state = { fetches: 0, valid: new Set<string>() };
  server.route("/oauth/token", async (request) => {
    const form = new URLSearchParams(await request.text());
    if (request.headers.get("authorization") !== `Basic ${btoa(`app:${CLIENT_SECRET}`)}`) {
      return Response.json({ error: "invalid_client" }, { status: 401 });
    }
    assert.equal(form.get("grant_type"), "client_credentials");
    const token = `tok-${++state.fetches}`;
    state.valid.add(token);
    return Response.json({ access_token: token, token_type: "Bearer", expires_in: expiresIn });
  });
  server.route("/api/data", (request) => {
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    return state.valid.has(token)
      ? Response.json({ token })
      : new Response("expired", { status: 401 });
  });
  return state;
}

function tokenClient(
  server: FixtureServer,
  manager: TokenManager,
  configure = (b: HttpClientConfigBuilder) => b,
) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTokenAuth({
    tokenManager: manager,
  });
  return new HttpClient(configure(builder).build());
}

function credentialsManager(server: FixtureServer, options: { refreshSkewSeconds?: number } = {}) {
  return new TokenManager([
    clientCredentialsStep({
      tokenUrl: `${server.url}/oauth/token`,
      clientId: "app",
      clientSecret: CLIENT_SECRET,
    }),
  ], options);
}

Deno.test("TokenAuthHook sends the token from the client-credentials grant and reuses it while valid", async () => {
  await using server = startFixtureServer();
  const state = tokenEndpoint(server);
  await using client = tokenClient(server, credentialsManager(server));
  for (let i = 0; i < 3; i++) {
    assert.deepEqual((await client.get("/api/data")).json(), { token: "tok-1" });
  }
  assert.equal(state.fetches, 1);
  const tokenRequest = server.requests.find((r) => r.path === "/oauth/token")!;
  assert.equal(tokenRequest.method, "POST");
  assert.equal(tokenRequest.headers["content-type"], "application/x-www-form-urlencoded");
});

Deno.test("TokenAuthHook fetches a new token when the cached one expires within the skew", async () => {
  await using server = startFixtureServer();
  const state = tokenEndpoint(server, 20);
  await using client = tokenClient(server, credentialsManager(server));
  await client.get("/api/data");
  await client.get("/api/data");
  assert.equal(state.fetches, 2, "20 s left is inside the default 30 s skew");
  const relaxed = credentialsManager(server, { refreshSkewSeconds: 5 });
  await using second = tokenClient(server, relaxed);
  await second.get("/api/data");
  await second.get("/api/data");
  assert.equal(state.fetches, 3);
});

Deno.test("TokenAuthHook writes the token into the header and prefix given", async () => {
  await using server = startFixtureServer();
  const manager = new TokenManager([{
    name: "fixed",
    fetch: () => Promise.resolve(new TokenData({ accessToken: "abc" })),
  }]);
  const hook = new TokenAuthHook(manager, { authHeaderName: "X-Auth", authHeaderPrefix: "Token" });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(hook).build(),
  );
  await client.get("/x");
  assert.equal(server.last().headers["x-auth"], "Token abc");
  assert.equal(hook.tokenManager, manager);
  assert.ok(hook.retryStrategy instanceof SimpleAuthRetryStrategy);
  assert.equal((await hook.getToken()).accessToken, "abc");
});

Deno.test("TokenAuthHook refreshes and resends after a 401, without counting a retry", async () => {
  await using server = startFixtureServer();
  const state = tokenEndpoint(server);
  const manager = credentialsManager(server);
  await manager.getToken();
  state.valid.clear();
  const attempts: number[] = [];
  await using client = tokenClient(
    server,
    manager,
    (b) =>
      b.withRequestHook({
        beforeRequest: (request, context) => (attempts.push(context.attempt), request),
      }),
  );
  const response = await client.get("/api/data");
  assert.deepEqual(response.json(), { token: "tok-2" });
  assert.equal(state.fetches, 2);
  assert.deepEqual(attempts, [0]);
  const api = server.requests.filter((r) => r.path === "/api/data").map((r) =>
    r.headers["authorization"]
  );
  assert.deepEqual(api, ["Bearer tok-1", "Bearer tok-2"]);
});

Deno.test("TokenAuthHook returns a 401 that persists after the allowed refreshes, with no loop", async () => {
  await using server = startFixtureServer();
  const state = tokenEndpoint(server);
  server.route("/api/never", () => new Response("no", { status: 401 }));
  await using client = tokenClient(server, credentialsManager(server));
  assert.equal((await client.get("/api/never")).statusCode, 401);
  assert.equal(server.requests.filter((r) => r.path === "/api/never").length, 2);
  assert.equal(state.fetches, 2);
  const strict = new TokenAuthHook(credentialsManager(server), {
    retryStrategy: new SimpleAuthRetryStrategy({ maxRetries: 3 }),
  });
  await using three = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(strict).build(),
  );
  await three.get("/api/never");
  assert.equal(server.requests.filter((r) => r.path === "/api/never").length, 2 + 4);
  const none = new TokenAuthHook(credentialsManager(server), {
    retryStrategy: new NoAuthRetryStrategy(),
  });
  await using never = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(none).build(),
  );
  await never.get("/api/never");
  assert.equal(server.requests.filter((r) => r.path === "/api/never").length, 2 + 4 + 1);
});

Deno.test("TokenManager fetches once for 100 concurrent requests meeting an expired token", async () => {
  await using server = startFixtureServer();
  const state = tokenEndpoint(server);
  await using client = tokenClient(server, credentialsManager(server));
  const responses = await Promise.all(Array.from({ length: 100 }, () => client.get("/api/data")));
  assert.ok(responses.every((r) => r.statusCode === 200));
  assert.equal(state.fetches, 1);
});

Deno.test("TokenAuthHook refreshes once for 100 concurrent requests that all receive 401", async () => {
  await using server = startFixtureServer();
  const state = tokenEndpoint(server);
  const manager = credentialsManager(server);
  await using client = tokenClient(server, manager);
  await client.get("/api/data");
  let rejected = 0;
  server.route("/api/gated", async (request) => {
    const sent = request.headers.get("authorization");
    if (sent === "Bearer tok-1") {
      // Staggered: the later 401s arrive after the refresh has finished.
      await new Promise((resolve) => setTimeout(resolve, rejected++ * 2));
      return new Response(null, { status: 401 });
    }
    return state.valid.has(sent?.slice(7) ?? "")
      ? new Response("ok")
      : new Response(null, { status: 401 });
  });
  const responses = await Promise.all(Array.from({ length: 100 }, () => client.get("/api/gated")));
  assert.ok(responses.every((r) => r.statusCode === 200));
  assert.equal(rejected, 100);
  assert.equal(state.fetches, 2, "one fetch at the start, one refresh for all 100");
});

Deno.test("clientCredentialsStep fails with AuthenticationException naming the step and status, never the secret", async () => {
  await using server = startFixtureServer();
  server.route("/bad-status", () => Response.json({ error: "invalid_client" }, { status: 401 }));
  server.route("/not-json", () => new Response("<html>oops</html>"));
  server.route("/no-token", () => Response.json({ token_type: "Bearer" }));
  const cases: [string, RegExp][] = [
    ["/bad-status", /^Token step 'login' failed: status 401 \(invalid_client\)$/],
    ["/not-json", /^Token step 'login' failed: the response is not JSON \(status 200\)$/],
    ["/no-token", /^Token step 'login' failed: the response has no access_token \(status 200\)$/],
  ];
  for (const [path, message] of cases) {
    const manager = new TokenManager([
      clientCredentialsStep({
        name: "login",
        tokenUrl: server.url + path,
        clientId: "app",
        clientSecret: CLIENT_SECRET,
      }),
    ]);
    await using client = tokenClient(server, manager, (b) => b.withRetry({ maxRetries: 0 }));
    const error = await rejectsWith(client.get("/api/data"), AuthenticationException, message);
    assert.ok(
      !String(error).includes(CLIENT_SECRET) && !Deno.inspect(error).includes(CLIENT_SECRET),
    );
  }
  assert.equal(server.requests.filter((r) => r.path === "/api/data").length, 0);
});

Deno.test("TokenManager wraps a failing step in AuthenticationException with the cause", async () => {
  const cause = new Error("directory unreachable");
  const manager = new TokenManager([
    { name: "first", fetch: () => Promise.resolve(new TokenData({ accessToken: "a" })) },
    { name: "second", fetch: () => Promise.reject(cause) },
  ]);
  const error = await rejectsWith(
    manager.getToken(),
    AuthenticationException,
    /^Token step 'second' failed: it threw Error$/,
  );
  assert.equal(error.cause, cause);
  assert.ok(manager.context.hasValidToken("first"));
  assert.throws(() => new TokenManager([]), TypeError);
  assert.throws(
    () =>
      new TokenManager([{ name: "x", fetch: () => Promise.reject() }], { refreshSkewSeconds: -1 }),
    RangeError,
  );
});

Deno.test("TokenManager runs its steps in order, skips valid ones and uses the last step's token", async () => {
  const calls: string[] = [];
  const manager = new TokenManager([
    {
      name: "login",
      fetch: () => (calls.push("login"), Promise.resolve(new TokenData({ accessToken: "L" }))),
    },
    {
      name: "exchange",
      fetch: (context) => {
        calls.push("exchange");
        return Promise.resolve(
          new TokenData({ accessToken: `X(${context.getTokenValue("login")})` }),
        );
      },
    },
  ], { refreshSkewSeconds: 0 });
  assert.equal((await manager.getToken()).accessToken, "X(L)");
  await manager.getToken();
  assert.equal((await manager.refreshToken()).accessToken, "X(L)");
  assert.deepEqual(calls, ["login", "exchange", "exchange"]);
});

Deno.test("ApiKeyAuthHook and BasicAuthHook send their credentials and return them as tokens", async () => {
  await using server = startFixtureServer();
  const apiKey = new ApiKeyAuthHook("k-123");
  await using keyed = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(apiKey).build(),
  );
  await keyed.get("/k");
  assert.equal(server.last().headers["x-api-key"], "k-123");
  assert.deepEqual(
    await apiKey.getToken(),
    new TokenData({ accessToken: "k-123", tokenType: "ApiKey" }),
  );
  const basic = new BasicAuthHook("Zoë", "pä$$");
  await using based = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(basic).build(),
  );
  await based.get("/b");
  const encoded = btoa(String.fromCharCode(...new TextEncoder().encode("Zoë:pä$$")));
  assert.equal(server.last().headers["authorization"], `Basic ${encoded}`);
  const token = await basic.getToken();
  assert.deepEqual([token.tokenType, token.accessToken], ["Basic", encoded]);
  assert.ok(!String(basic).includes("pä$$") && !String(apiKey).includes("k-123"));
});

Deno.test("Auth hooks leave a request that carries its own credentials as it is", async () => {
  await using server = startFixtureServer();
  const hook = new BasicAuthHook("hook-user", "hook-pass");
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(hook).build(),
  );
  await client.get("/own", { headers: { authorization: "Bearer mine" } });
  assert.equal(server.last().headers["authorization"], "Bearer mine");
  await client.get("/own", { auth: ["me", "pw"] });
  assert.equal(server.last().headers["authorization"], `Basic ${btoa("me:pw")}`);
});

Deno.test("Excluded paths and patterns skip authentication", async () => {
  await using server = startFixtureServer();
  const hook = new ApiKeyAuthHook("k", {
    excludedPaths: ["/login"],
    excludedPathPatterns: ["/public/*", "*health*"],
  });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(hook).build(),
  );
  const cases: [string, boolean][] = [
    ["/login", false],
    ["/login/extra", true],
    ["/public/a/b.css", false],
    ["/publicity", true],
    ["/v1/healthz", false],
    ["/api/data", true],
  ];
  for (const [path, authenticated] of cases) {
    await client.get(path, { params: { q: "/public/x" } });
    assert.equal(server.last().headers["x-api-key"] !== undefined, authenticated, path);
  }
});

Deno.test("CompositeAuthHook applies the first matching hook, or all of them", async () => {
  await using server = startFixtureServer();
  const key = new ApiKeyAuthHook("k", { excludedPathPatterns: ["/admin/*"] });
  const basic = new BasicAuthHook("root", "pw");
  await using first = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(
      new CompositeAuthHook([key, basic]),
    ).build(),
  );
  await first.get("/data");
  assert.deepEqual([server.last().headers["x-api-key"], server.last().headers["authorization"]], [
    "k",
    undefined,
  ]);
  await first.get("/admin/users");
  assert.deepEqual([server.last().headers["x-api-key"], server.last().headers["authorization"]], [
    undefined,
    `Basic ${btoa("root:pw")}`,
  ]);
  const all = new CompositeAuthHook([key, basic], { strategy: "all" });
  await using both = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withAuthHook(all).build(),
  );
  await both.get("/data");
  assert.deepEqual([server.last().headers["x-api-key"], server.last().headers["authorization"]], [
    "k",
    `Basic ${btoa("root:pw")}`,
  ]);
  assert.equal((await all.getToken()).tokenType, "ApiKey");
  assert.throws(() => new CompositeAuthHook([]), TypeError);
  assert.throws(() => new CompositeAuthHook([key], { strategy: "any" as "all" }), TypeError);
});

Deno.test("AuthorizationHook writes the provider's token as a request hook", async () => {
  await using server = startFixtureServer();
  let n = 0;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook(new AuthorizationHook(() => Promise.resolve(`t-${++n}`)))
    .build();
  await using client = new HttpClient(config);
  await client.get("/a");
  assert.equal(server.last().headers["authorization"], "Bearer t-1");
  const empty = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withRequestHook(
      new AuthorizationHook(() => ""),
    ).build(),
  );
  await rejectsWith(empty.get("/a"), AuthenticationException, /no token/);
  empty.close();
});

Deno.test("Auth hooks refuse empty credentials at construction", () => {
  assert.throws(() => new ApiKeyAuthHook(""), /apiKey/);
  assert.throws(() => new ApiKeyAuthHook("a\nb"), TypeError);
  assert.throws(() => new BasicAuthHook("", "pw"), /username/);
  assert.throws(() => new BasicAuthHook("a:b", "pw"), /username/);
  assert.throws(() => new TokenData({ accessToken: "" }), /accessToken/);
  assert.throws(
    () => clientCredentialsStep({ tokenUrl: "http://127.0.0.1/", clientId: "", clientSecret: "s" }),
    /clientId/,
  );
  assert.throws(() => new HttpClientConfigBuilder().withAuthHook({} as never), TypeError);
});

Deno.test("A token with a newline fails the call with an AuthenticationException that does not show it", async () => {
  await using server = startFixtureServer();
  const manager = new TokenManager([{
    name: "bad",
    fetch: () => Promise.resolve(new TokenData({ accessToken: "sec\nret" })),
  }]);
  await using client = tokenClient(server, manager);
  const error = await rejectsWith(
    client.get("/x"),
    AuthenticationException,
    /^Token step 'bad' failed: its token holds characters a header cannot carry$/,
  );
  assert.ok(!error.message.includes("sec"));
  assert.equal(server.requests.length, 0);
});

Deno.test("The auth hook runs only for allowed origins", async () => {
  await using home = startFixtureServer();
  await using other = startFixtureServer();
  const hook = new ApiKeyAuthHook("k");
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(home.url).withAuthHook(hook).build(),
  );
  await client.get(`${other.url}/elsewhere`);
  assert.equal(other.last().headers["x-api-key"], undefined);
  await using wide = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(home.url).withAuthHook(hook).withAuthOrigins([
      home.url,
      other.url,
    ]).build(),
  );
  await wide.get(`${other.url}/elsewhere`);
  assert.equal(other.last().headers["x-api-key"], "k");
  assert.throws(() => new HttpClientConfigBuilder().withAuthOrigins(["ftp://x"]), TypeError);
});

Deno.test("A redirect to another port strips Authorization, Cookie, Proxy-Authorization and the API key", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(first.url)
    .withAuthHook(new ApiKeyAuthHook("k-secret"))
    .build();
  await using client = new HttpClient(config);
  await client.get("/redirect/302", {
    params: { to: `${second.url}/landed` },
    headers: { Cookie: "sid=1", "Proxy-Authorization": "Basic x", "X-Plain": "kept" },
  });
  assert.equal(first.last().headers["x-api-key"], "k-secret");
  const landed = second.last();
  assert.equal(landed.path, "/landed");
  for (const name of ["authorization", "cookie", "proxy-authorization", "x-api-key"]) {
    assert.equal(landed.headers[name], undefined, name);
  }
  assert.equal(landed.headers["x-plain"], "kept");
  await client.get("/redirect/307", { params: { to: "/same-origin" } });
  assert.equal(first.last().headers["x-api-key"], "k-secret", "kept on the same origin");
});

Deno.test("A redirect to another allowed origin applies the auth hook again", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(first.url)
    .withAuthHook(new ApiKeyAuthHook("k"))
    .withAuthOrigins([first.url, second.url])
    .build();
  await using client = new HttpClient(config);
  await client.get("/redirect/302", {
    params: { to: `${second.url}/landed` },
    headers: { Cookie: "c=1" },
  });
  assert.equal(second.last().headers["x-api-key"], "k");
  assert.equal(second.last().headers["cookie"], undefined);
});

Deno.test("A redirect from https to http drops the credentials", async () => {
  const sent: Request[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("https://secure.test")
    .withAuthHook(new ApiKeyAuthHook("k"))
    .withAuthOrigins(["https://secure.test", "http://secure.test"])
    .withFetch((input, init) => {
      const request = new Request(input, init);
      sent.push(request);
      return Promise.resolve(
        sent.length === 1
          ? new Response(null, { status: 302, headers: { location: "http://secure.test/plain" } })
          : new Response("ok"),
      );
    })
    .build();
  await using client = new HttpClient(config);
  await client.get("/start", { headers: { Authorization: "Bearer t", Cookie: "c" } });
  assert.equal(sent[0]!.headers.get("authorization"), "Bearer t");
  assert.equal(sent[1]!.url, "http://secure.test/plain");
  assert.equal(sent[1]!.headers.get("authorization"), null);
  assert.equal(sent[1]!.headers.get("cookie"), null);
  assert.equal(
    sent[1]!.headers.get("x-api-key"),
    "k",
    "the hook applies again: http://secure.test is allowed",
  );
});

Deno.test("No log line or error of the whole auth flow contains a secret", async () => {
  await using server = startFixtureServer();
  const state = tokenEndpoint(server);
  const { logger, lines } = recordingLogger();
  const manager = credentialsManager(server);
  await using client = tokenClient(
    server,
    manager,
    (b) =>
      b.withLogging({ logger, logHeaders: true, logBody: true }).withRetry({
        maxRetries: 1,
        sleep: () => Promise.resolve(),
      }),
  );
  await client.get("/api/data");
  state.valid.clear();
  await client.get("/api/data");
  await client.get("/status/500");
  await client.get("/api/data", { headers: { Authorization: "Bearer user-supplied-s3cret" } });
  const keyed = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.dropUrl).withAuthHook(
      new ApiKeyAuthHook("api-k3y"),
    ).withLogging({
      logger,
      logHeaders: true,
    }).withRetry({ maxRetries: 0 }).build(),
  );
  const error = await keyed.get("/x").catch((e) => e);
  keyed.close();
  const texts = [...lines.map(([, line]) => line), String(error), Deno.inspect(error)];
  const secrets = [
    CLIENT_SECRET,
    "tok-1",
    "tok-2",
    "api-k3y",
    btoa(`app:${CLIENT_SECRET}`),
    "user-supplied-s3cret",
  ];
  for (const secret of secrets) {
    assert.ok(!texts.some((text) => text.includes(secret)), `${secret} leaked`);
  }
  assert.ok(
    lines.some(([, line]) => line.includes('"Authorization":"***"')),
    "the header was logged, masked",
  );
  assert.ok(
    lines.some(([, line]) => line.includes("Request failed (attempt 1/1): ConnectionException")),
  );
});

Deno.test("A chained redirect drops the API key the hook added on a middle hop", async () => {
  await using start = startFixtureServer();
  await using allowed = startFixtureServer();
  await using last = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(allowed.url)
    .withAuthHook(new ApiKeyAuthHook("k-secret", { headerName: "X-Custom-Key" }))
    .withRetry({ maxRetries: 0 })
    .build();
  await using client = new HttpClient(config);
  const toLast = `${allowed.url}/redirect/302?to=${encodeURIComponent(`${last.url}/landed`)}`;
  await client.get(`${start.url}/redirect/302`, { params: { to: toLast } });
  assert.equal(start.last().headers["x-custom-key"], undefined, "not an allowed origin");
  assert.equal(allowed.last().headers["x-custom-key"], "k-secret", "applied where allowed");
  assert.equal(last.last().path, "/landed");
  assert.equal(last.last().headers["x-custom-key"], undefined, "dropped when leaving again");
});

Deno.test("An auth hook's own error during a redirect reaches the caller unchanged, not retried", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  const boom = new RangeError("hook refused the hop");
  class PickyHook extends ApiKeyAuthHook {
    override beforeRequest(request: HttpRequest): HttpRequest {
      if (request.url.includes("/landed")) throw boom;
      return super.beforeRequest(request);
    }
  }
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(first.url)
    .withAuthHook(new PickyHook("k"))
    .withAuthOrigins([first.url, second.url])
    .build();
  await using client = new HttpClient(config);
  await assert.rejects(
    client.get("/redirect/302", { params: { to: `${second.url}/landed` } }),
    (e) => e === boom,
  );
  assert.equal(first.requests.length, 1);
  assert.equal(second.requests.length, 0);
});

Deno.test("TokenManager refuses a step that returns no TokenData", async () => {
  const manager = new TokenManager([{
    name: "sloppy",
    fetch: () => Promise.resolve({ accessToken: "x" } as never),
  }]);
  await rejectsWith(
    manager.getToken(),
    AuthenticationException,
    /^Token step 'sloppy' failed: it returned no TokenData$/,
  );
});
