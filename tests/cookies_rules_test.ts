// The cookie rules that need host names: every request of these clients
// goes to the fixture on 127.0.0.1 whatever its host (a `withFetch` that
// rewrites the URL and names the host in `X-Host`), while the jar sees the
// URL the client meant. No name here is ever resolved.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import type { FetchLike } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import type { FixtureServer } from "./fixture_server.ts";

/** A client whose every request reaches `server`, with its host in `X-Host`. */
function namedHostsClient(server: FixtureServer): HttpClient {
  const toFixture: FetchLike = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers = new Headers(init?.headers);
    headers.set("x-host", `${url.protocol}//${url.host}`);
    return fetch(`${server.url}${url.pathname}${url.search}`, { ...init, headers });
  };
  const builder = new HttpClientConfigBuilder().withFetch(toFixture).withCookies();
  return new HttpClient(builder.withRetry({ maxRetries: 0 }).build());
}

/** Answers with one Set-Cookie line a query parameter names, and a redirect when `to` is given. */
function setCookieRoute(request: Request): Response {
  const params = new URL(request.url).searchParams;
  const to = params.get("to");
  const headers = new Headers(to === null ? {} : { location: to });
  for (const line of params.getAll("c")) headers.append("set-cookie", line);
  return new Response(null, { status: to === null ? 204 : 302, headers });
}

/** The Cookie header `url` receives. */
async function cookieAt(client: HttpClient, server: FixtureServer, url: string) {
  await client.get(url);
  assert.equal(server.last().headers["x-host"], new URL(url).origin);
  return server.last().headers["cookie"];
}

Deno.test("withCookies() refuses Domain=com and Domain=co.uk, public suffixes", async () => {
  await using server = startFixtureServer();
  server.route("/set", setCookieRoute);
  await using client = namedHostsClient(server);
  await client.get("http://www.example.com/set", { params: { c: "wide=1; Domain=com" } });
  await client.get("http://shop.example.co.uk/set", {
    params: { c: ["wide=2; Domain=co.uk", "site=3; Domain=example.co.uk"] },
  });
  assert.equal(await cookieAt(client, server, "http://other.com/"), undefined);
  assert.equal(await cookieAt(client, server, "http://www.example.com/"), undefined);
  assert.equal(await cookieAt(client, server, "http://other.co.uk/"), undefined);
  assert.equal(await cookieAt(client, server, "http://www.example.co.uk/"), "site=3");
});

Deno.test("withCookies() sends a Domain cookie to subdomains and a host-only one to its host only", async () => {
  await using server = startFixtureServer();
  server.route("/set", setCookieRoute);
  await using client = namedHostsClient(server);
  await client.get("http://www.example.com/set", {
    params: { c: ["wide=1; Domain=example.com", "host=2", "stray=3; Domain=example.org"] },
  });
  assert.equal(await cookieAt(client, server, "http://www.example.com/"), "wide=1; host=2");
  assert.equal(await cookieAt(client, server, "http://api.example.com/"), "wide=1");
  assert.equal(await cookieAt(client, server, "http://example.com/"), "wide=1");
  assert.equal(await cookieAt(client, server, "http://example.org/"), undefined);
  // A cookie ignores the port.
  assert.equal(await cookieAt(client, server, "http://api.example.com:8080/"), "wide=1");
});

Deno.test("withCookies() sends a Path cookie under its path only", async () => {
  await using server = startFixtureServer();
  server.route("/set", setCookieRoute);
  await using client = namedHostsClient(server);
  await client.get("http://example.com/set", {
    params: { c: ["app=1; Path=/app", "all=2; Path=/"] },
  });
  assert.equal(await cookieAt(client, server, "http://example.com/app"), "app=1; all=2");
  assert.equal(await cookieAt(client, server, "http://example.com/app/x"), "app=1; all=2");
  assert.equal(await cookieAt(client, server, "http://example.com/apple"), "all=2");
  assert.equal(await cookieAt(client, server, "http://example.com/"), "all=2");
});

Deno.test("withCookies() keeps a Secure cookie to https, and refuses one set over http", async () => {
  await using server = startFixtureServer();
  server.route("/set", setCookieRoute);
  await using client = namedHostsClient(server);
  await client.get("https://example.com/set", { params: { c: "safe=1; Secure" } });
  await client.get("http://example.com/set", { params: { c: "plain=2; Secure" } });
  assert.equal(await cookieAt(client, server, "https://example.com/"), "safe=1");
  assert.equal(await cookieAt(client, server, "http://example.com/"), undefined);
});

Deno.test("withCookies() sends each redirect hop the cookies of its own host", async () => {
  await using server = startFixtureServer();
  server.route("/set", setCookieRoute);
  await using client = namedHostsClient(server);
  const hop2 = `http://b.example.org/set?c=${encodeURIComponent("b=2")}&to=/landed`;
  const response = await client.get("http://a.example.com/set", {
    params: { c: "a=1", to: hop2 },
    headers: { Cookie: "own=0" },
  });
  assert.equal(response.url, "http://b.example.org/landed");
  const hops = server.requests.map((r) => [r.headers["x-host"], r.path, r.headers["cookie"]]);
  assert.deepEqual(hops, [
    ["http://a.example.com", "/set", "own=0"],
    // The request's own Cookie header leaves with the origin; a's cookie stays home.
    ["http://b.example.org", "/set", undefined],
    ["http://b.example.org", "/landed", "b=2"],
  ]);
  assert.equal(await cookieAt(client, server, "http://a.example.com/"), "a=1");
});
