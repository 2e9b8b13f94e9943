// What a jar keeps of the cookies a server sets: a cookie too large for a
// browser to keep is not kept either (every later request to its host would
// carry it, and servers refuse such a request), and the client's own jar
// keeps at most 180 cookies per site (150 once more came) and 3300 in all
// (3000 once more came), evicting as RFC 6265 §5.3 says: expired cookies
// first, then the least recently used.

import assert from "node:assert/strict";
import { CookieJar } from "tough-cookie";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import type { CookieJarLike } from "../mod.ts";
import { MemoryCookieJar } from "../src/cookies/memory_jar.ts";
import { startFixtureServer } from "./fixture_server.ts";
import type { FixtureServer } from "./fixture_server.ts";

/** Answers with the Set-Cookie lines the test gives for the path (none by default). */
function cookieServer(): FixtureServer & { sets: Map<string, string[]> } {
  const server = startFixtureServer();
  const sets = new Map<string, string[]>();
  const route = (request: Request) => {
    const headers = new Headers();
    for (const line of sets.get(new URL(request.url).pathname) ?? []) {
      headers.append("set-cookie", line);
    }
    return new Response("ok", { headers });
  };
  for (const path of ["/set", "/keep", "/other"]) server.route(path, route);
  return Object.assign(server, { sets });
}

function cookieClient(server: FixtureServer, jar?: CookieJarLike): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withRetry({ maxRetries: 0 })
      .withCookies(jar).build(),
  );
}

/** The cookie names the server received with a GET of `path`. */
async function sentNames(client: HttpClient, server: FixtureServer, path: string) {
  await client.get(path);
  const header = server.last().headers["cookie"];
  return header === undefined ? [] : header.split("; ").map((pair) => pair.split("=")[0]).sort();
}

for (const own of [false, true]) {
  const which = own ? "a jar of the caller's" : "the client's own jar";
  Deno.test(`${which} is not given a cookie whose name and value pass 4096 bytes`, async () => {
    await using server = cookieServer();
    const jar = own ? new CookieJar() : undefined;
    await using client = cookieClient(server, jar);
    server.sets.set("/set", [
      `huge=${"h".repeat(100_000)}`,
      `edge=${"e".repeat(4096 - 4)}; Path=/`, // 4096 bytes: kept
      `over=${"o".repeat(4096 - 3)}; Path=/`, // 4097 bytes: ignored
      "small=1",
    ]);
    await client.get("/set");
    server.sets.clear();
    assert.deepEqual(await sentNames(client, server, "/other"), ["edge", "small"]);
    if (jar) assert.match(await jar.getCookieString(server.url), /^edge=e+; small=1$/);
  });

  Deno.test(`${which} drops an attribute whose value passes 1024 bytes, keeping the cookie`, async () => {
    await using server = cookieServer();
    await using client = cookieClient(server, own ? new CookieJar() : undefined);
    server.sets.set("/set", [
      // Without its Path, the cookie takes the default path, "/".
      `wide=1; Path=/${"p".repeat(1024)}`,
      `narrow=2; Path=/${"p".repeat(1022)}`, // 1023 bytes: kept
      `short=3; Max-Age=${"9".repeat(1025)}; Path=/`,
    ]);
    await client.get("/set");
    server.sets.clear();
    assert.deepEqual(await sentNames(client, server, "/other"), ["short", "wide"]);
    assert.deepEqual(await sentNames(client, server, `/${"p".repeat(1022)}`), [
      "narrow",
      "short",
      "wide",
    ]);
  });
}

/** `count` Set-Cookie lines, `name0`…, in responses of at most 50 (a head must stay small). */
async function setMany(
  client: HttpClient,
  server: FixtureServer & { sets: Map<string, string[]> },
  name: string,
  count: number,
  attributes = "",
) {
  for (let first = 0; first < count; first += 50) {
    const lines = [];
    for (let i = first; i < Math.min(count, first + 50); i++) {
      lines.push(`${name}${i}=1${attributes}`);
    }
    server.sets.set("/set", lines);
    await client.get("/set");
  }
  server.sets.clear();
}

Deno.test("the client's own jar keeps 150 to 180 cookies per site, the most recently used", async () => {
  await using server = cookieServer();
  await using client = cookieClient(server);
  // As a server that set 7440 cookies: 150 are kept at the 181st, and 30 come before the next eviction.
  await setMany(client, server, "c", 7440);
  const names = await sentNames(client, server, "/other");
  const kept = 150 + (7440 - 181) % 31;
  assert.deepEqual(names, Array.from({ length: kept }, (_, i) => `c${7440 - kept + i}`).sort());
});

Deno.test("the client's own jar evicts the cookie least recently sent, not the oldest", async () => {
  await using server = cookieServer();
  await using client = cookieClient(server);
  await setMany(client, server, "old", 1, "; Path=/keep");
  await setMany(client, server, "other", 179, "; Path=/other");
  // Sent now: used more recently than every /other cookie.
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(await sentNames(client, server, "/keep"), ["old0"]);
  // The 181st: the 31 least recently used go.
  await setMany(client, server, "new", 1, "; Path=/other");
  assert.deepEqual(await sentNames(client, server, "/keep"), ["old0"]);
  const other = await sentNames(client, server, "/other");
  assert.equal(other.length, 149);
  assert.ok(!other.includes("other30"));
  assert.ok(other.includes("other31") && other.includes("new0"));
});

Deno.test("the client's own jar evicts expired cookies before any other", async () => {
  await using server = cookieServer();
  await using client = cookieClient(server);
  await setMany(client, server, "c", 179);
  // In one response: a jar removes an expired cookie it meets when it is asked for the cookies.
  server.sets.set("/set", ["gone=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "new=1"]);
  await client.get("/set");
  server.sets.clear();
  // Without the expired one, 180: none other goes.
  const names = await sentNames(client, server, "/other");
  assert.equal(names.length, 180);
  assert.ok(names.includes("c0") && names.includes("new"));
});

Deno.test("the client's own jar keeps 3300 cookies in all, then the 3000 most recently used", async () => {
  const jar = new MemoryCookieJar();
  const set = async (site: number, count: number) => {
    for (let i = 0; i < count; i++) await jar.setCookie(`c${i}=1`, `http://example${site}.com/`);
  };
  for (let site = 0; site < 18; site++) await set(site, 180);
  await set(18, 60);
  const count = async (site: number) =>
    (await jar.getCookieString(`http://example${site}.com/`)).split("; ").filter(Boolean);
  // The 3301st: the 301 least recently used go, all of the first site's and 121 of the second's.
  await jar.setCookie("c60=1", "http://example18.com/");
  assert.deepEqual(await count(0), []);
  const second = await count(1);
  assert.equal(second.length, 59);
  assert.equal(second[0], "c121=1");
  assert.equal((await count(18)).length, 61);
});
