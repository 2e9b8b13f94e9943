import assert from "node:assert/strict";
import { CookieJar } from "tough-cookie";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  LoggingRequestHook,
  LoggingResponseHook,
} from "../mod.ts";
import type { CookieJarLike } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import type { FixtureServer } from "./fixture_server.ts";
import { recordingLogger, rejectsWith } from "./helpers.ts";

const SECRET = "s3cr3t-session";

function cookieClient(
  server: FixtureServer,
  configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder = (b) => b.withCookies(),
): HttpClient {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withRetry({
    maxRetries: 0,
  });
  return new HttpClient(configure(builder).build());
}

/** Answers with the given Set-Cookie lines, and a redirect to `location` when given. */
function setting(lines: string[], location?: string): () => Response {
  return () => {
    const headers = new Headers(location === undefined ? {} : { location });
    for (const line of lines) headers.append("set-cookie", line);
    return new Response(location === undefined ? "set" : null, {
      status: location === undefined ? 200 : 302,
      headers,
    });
  };
}

Deno.test("withCookies() stores a response's cookies and sends them on the next call", async () => {
  await using server = startFixtureServer();
  server.route("/login", setting([`sid=${SECRET}; Path=/; HttpOnly`, "theme=dark"]));
  await using client = cookieClient(server);
  await client.post("/login");
  assert.equal(server.last().headers["cookie"], undefined);
  await client.get("/me");
  assert.equal(server.last().headers["cookie"], `sid=${SECRET}; theme=dark`);
});

Deno.test("HttpClient keeps no cookies without withCookies()", async () => {
  await using server = startFixtureServer();
  server.route("/login", setting([`sid=${SECRET}`]));
  await using client = cookieClient(server, (builder) => builder);
  await client.post("/login");
  await client.get("/me");
  assert.equal(server.last().headers["cookie"], undefined);
  // withCookies(null) turns a jar off again.
  await using off = cookieClient(server, (builder) => builder.withCookies().withCookies(null));
  await off.post("/login");
  await off.get("/me");
  assert.equal(server.last().headers["cookie"], undefined);
});

Deno.test("withCookies() stores the cookies of every redirect hop, each hop sending its own", async () => {
  await using server = startFixtureServer();
  server.route("/start", setting(["a=1; Path=/"], "/middle"));
  server.route("/middle", setting(["b=2; Path=/app"], "/app/end"));
  await using client = cookieClient(server);
  const response = await client.get("/start");
  assert.equal(response.url, `${server.url}/app/end`);
  const cookies = server.requests.map((request) => [request.path, request.headers["cookie"]]);
  assert.deepEqual(cookies, [
    ["/start", undefined],
    ["/middle", "a=1"],
    // b's Path=/app: it goes with the hop to /app/end, before a's shorter path.
    ["/app/end", "b=2; a=1"],
  ]);
  await client.get("/elsewhere");
  assert.equal(server.last().headers["cookie"], "a=1");
});

Deno.test("withCookies() deletes a cookie on Max-Age=0 and lets one expire after its Max-Age", async () => {
  await using server = startFixtureServer();
  server.route("/set", setting(["gone=1", "brief=2; Max-Age=1", "kept=3; Max-Age=3600"]));
  server.route("/delete", setting(["gone=; Max-Age=0"]));
  server.route("/past", setting(["old=4; Expires=Thu, 01 Jan 1970 00:00:01 GMT"]));
  await using client = cookieClient(server);
  await client.get("/set");
  await client.get("/delete");
  await client.get("/past");
  await client.get("/check");
  assert.equal(server.last().headers["cookie"], "brief=2; kept=3");
  // The jar reads the clock itself (tough-cookie takes no `now` when it
  // gives cookies out): a real wait past the one second of Max-Age.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await client.get("/check");
  assert.equal(server.last().headers["cookie"], "kept=3");
});

Deno.test("withCookies() stores a Secure cookie from 127.0.0.1 and sends it back there", async () => {
  // Loopback is a secure context for browsers and tough-cookie alike.
  await using server = startFixtureServer();
  server.route("/login", setting(["sid=1; Secure", "__Host-id=2; Secure; Path=/"]));
  await using client = cookieClient(server);
  await client.get("/login");
  await client.get("/me");
  assert.equal(server.last().headers["cookie"], "sid=1; __Host-id=2");
});

Deno.test("withCookies() refuses a cookie for another domain and keeps the call going", async () => {
  await using server = startFixtureServer();
  server.route("/login", setting(["x=1; Domain=example.com", "y=2; Domain=127.0.0.2", "ok=3"]));
  await using client = cookieClient(server);
  await client.get("/login");
  await client.get("/me");
  assert.equal(server.last().headers["cookie"], "ok=3");
});

Deno.test("withCookies() merges a request's own Cookie header: its names win, the jar adds the rest", async () => {
  await using server = startFixtureServer();
  server.route("/login", setting(["a=jar", "b=jar"]));
  await using client = cookieClient(server);
  await client.get("/login");
  await client.get("/me", { headers: { Cookie: "a=mine; c=3" } });
  assert.equal(server.last().headers["cookie"], "a=mine; c=3; b=jar");
  await client.get("/me", { headers: { cookie: "a=x; b=y" } });
  assert.equal(server.last().headers["cookie"], "a=x; b=y");
});

Deno.test("withCookies(jar) uses the caller's tough-cookie jar, which reads the cookies back", async () => {
  await using server = startFixtureServer();
  server.route("/login", setting([`sid=${SECRET}`]));
  const jar = new CookieJar();
  await jar.setCookie("pre=0", server.url);
  await using client = cookieClient(server, (builder) => builder.withCookies(jar));
  await client.get("/login");
  assert.equal(server.last().headers["cookie"], "pre=0");
  assert.equal(await jar.getCookieString(server.url), `pre=0; sid=${SECRET}`);
});

Deno.test("withCookies(): concurrent calls share the client's jar; two clients of one config do not", async () => {
  await using server = startFixtureServer();
  server.route("/a", setting(["a=1"]));
  server.route("/b", setting(["b=2"]));
  const config = new HttpClientConfigBuilder().withBaseUrl(server.url).withCookies().build();
  await using one = new HttpClient(config);
  await using other = new HttpClient(config);
  await Promise.all([one.get("/a"), one.get("/b")]);
  await one.get("/me");
  assert.deepEqual(server.last().headers["cookie"]?.split("; ").sort(), ["a=1", "b=2"]);
  await other.get("/me");
  assert.equal(server.last().headers["cookie"], undefined);
});

Deno.test("withCookies() with a failing jar fails the call with HttpClientException, not retried", async () => {
  await using server = startFixtureServer();
  let asked = 0;
  const jar: CookieJarLike = {
    getCookieString: () => (asked++, Promise.reject(new Error("store is down"))),
    setCookie: () => Promise.resolve(),
  };
  const configure = (builder: HttpClientConfigBuilder) => builder.withCookies(jar).withRetry({});
  await using client = cookieClient(server, configure);
  const error = await rejectsWith(
    client.get("/me"),
    HttpClientException,
    /^Cookie jar failed: GET/,
  );
  assert.equal((error.cause as Error).message, "store is down");
  assert.equal(asked, 1);
  assert.equal(server.requests.length, 0);
});

Deno.test("withCookies() checks its jar", () => {
  const builder = new HttpClientConfigBuilder();
  for (const bad of [{}, "jar", 1, { getCookieString() {} }]) {
    assert.throws(
      () => builder.withCookies(bad as unknown as CookieJarLike),
      (error: unknown) =>
        error instanceof TypeError &&
        /^Invalid cookies: expected a jar with getCookieString\(\) and setCookie\(\), got /
          .test(error.message),
    );
  }
});

Deno.test("withCookies(): cookie values show in no log, view, JSON or error", async () => {
  await using server = startFixtureServer();
  server.route("/login", setting([`sid=${SECRET}`]));
  const { logger, lines } = recordingLogger();
  const jar = new CookieJar();
  const configure = (builder: HttpClientConfigBuilder) =>
    builder.withCookies(jar)
      .withRequestHook(new LoggingRequestHook({ logger, logHeaders: true }))
      .withResponseHook(new LoggingResponseHook({ logger, logHeaders: true }));
  await using client = cookieClient(server, configure);
  const response = await client.get("/login");
  await client.get("/me", { headers: { Cookie: `own=${SECRET}` } });
  assert.equal(server.last().headers["cookie"], `own=${SECRET}; sid=${SECRET}`);
  // The jar's cookies are added as the request goes on the wire: the
  // request a response carries, and its cURL command, never hold them.
  const later = await client.get("/me");
  assert.equal(server.last().headers["cookie"], `sid=${SECRET}`);
  assert.equal(later.request.headers, undefined);
  // The jar's cookie goes to the dropping listener too (a cookie ignores the port).
  const error = await rejectsWith(client.get(server.dropUrl), ConnectionException, /GET/);
  const shown = [
    JSON.stringify(client),
    JSON.stringify(client.config),
    Deno.inspect(client, { depth: 10 }),
    Deno.inspect(client.config, { depth: 10 }),
    JSON.stringify(response),
    Deno.inspect(response, { depth: 10 }),
    JSON.stringify(error),
    later.request.toCurl(),
    Deno.inspect(error, { depth: 10 }),
    String(error),
    ...lines.map(([, message]) => message),
  ];
  for (const text of shown) assert.ok(!text.includes(SECRET), text);
  assert.match(JSON.stringify(client.config), /"cookies":"\[cookie jar\]"/);
  assert.match(JSON.stringify(cookieClient(server).config), /"cookies":true/);
});
