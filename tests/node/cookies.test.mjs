// Cookies on Node through the undici transport: Set-Cookie lines kept apart,
// the client's own jar (tough-cookie, loaded from the package's
// dependencies), redirect hops, and cookie values kept out of every view.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspect } from "node:util";
import { CookieJar } from "tough-cookie";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { fixture } from "./server.mjs";

const SECRET = "s3cr3t-session";
const COOKIES = ["a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=2; Path=/"];

function client(t, server, configure = (builder) => builder.withCookies()) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5)
    .withRetry({ maxRetries: 0 });
  const created = new HttpClient(configure(builder).build());
  t.after(() => created.close());
  return created;
}

/** A handler that answers with `lines` as Set-Cookie, redirecting to `location` when given. */
function setting(lines, location) {
  return (_req, res) => {
    res.setHeader("set-cookie", lines);
    if (location === undefined) res.end("set");
    else res.writeHead(302, { location }).end();
  };
}

test("headerValues() keeps two Set-Cookie lines apart on the undici transport", async (t) => {
  const server = await fixture(t);
  server.route("/two", (_req, res) => {
    res.setHeader("set-cookie", COOKIES);
    res.setHeader("x-many", ["one", "two"]);
    res.end("ok");
  });
  const plain = client(t, server, (builder) => builder);
  const response = await plain.get("/two");
  assert.deepEqual(response.headerValues("Set-Cookie"), COOKIES);
  assert.equal(response.headers["set-cookie"], COOKIES.join(", "));
  assert.deepEqual(response.headerValues("set-cookie"), COOKIES);
  // As fetch gives them: any other header's lines joined.
  assert.deepEqual(response.headerValues("x-many"), ["one, two"]);
  assert.deepEqual(response.headerValues("x-absent"), []);
  const streamed = await plain.stream("GET", "/two");
  assert.deepEqual(streamed.headerValues("set-cookie"), COOKIES);
  assert.deepEqual((await streamed.read()).headerValues("set-cookie"), COOKIES);
});

test("withCookies() keeps the cookies of every redirect hop in the client's own jar", async (t) => {
  const server = await fixture(t);
  server.route("/start", setting(["a=1; Path=/", `sid=${SECRET}; Secure; HttpOnly`], "/middle"));
  server.route("/middle", setting(["b=2; Path=/app"], "/app/end"));
  server.route("/delete", setting(["a=; Max-Age=0", "wide=1; Domain=com"]));
  const cookies = client(t, server);
  const response = await cookies.get("/start");
  assert.equal(response.url, `${server.url}/app/end`);
  assert.deepEqual(server.requests.map((request) => [request.path, request.headers.cookie]), [
    ["/start", undefined],
    // Secure is kept and sent over http to 127.0.0.1, a secure context.
    ["/middle", `a=1; sid=${SECRET}`],
    ["/app/end", `b=2; a=1; sid=${SECRET}`],
  ]);
  await cookies.get("/delete");
  await cookies.get("/me", { headers: { Cookie: "own=0" } });
  assert.equal(server.requests.at(-1).headers.cookie, `own=0; sid=${SECRET}`);
  // Off by default.
  await client(t, server, (builder) => builder).get("/me");
  assert.equal(server.requests.at(-1).headers.cookie, undefined);
});

test("withCookies(jar) fills the caller's tough-cookie jar; no view shows a cookie", async (t) => {
  const server = await fixture(t);
  server.route("/login", setting([`sid=${SECRET}`]));
  const jar = new CookieJar();
  const cookies = client(t, server, (builder) => builder.withCookies(jar));
  const response = await cookies.get("/login");
  assert.equal(await jar.getCookieString(server.url), `sid=${SECRET}`);
  await cookies.get("/me");
  assert.equal(server.requests.at(-1).headers.cookie, `sid=${SECRET}`);
  const shown = [
    inspect(cookies, { depth: 10 }),
    inspect(cookies.config, { depth: 10 }),
    JSON.stringify(cookies),
    JSON.stringify(cookies.config),
    inspect(response, { depth: 10 }),
    JSON.stringify(response),
  ];
  for (const text of shown) assert.ok(!text.includes(SECRET), text);
  assert.match(JSON.stringify(cookies.config), /"cookies":"\[cookie jar\]"/);
});
