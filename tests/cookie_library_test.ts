import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { MemoryCookieJar } from "../src/cookies/memory_jar.ts";
import { CookieLibraryError } from "../src/cookies/jar.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith } from "./helpers.ts";

const SECRET = "s3cr3t-session";

// A runtime that resolves no package name (a browser without a bundler) fails
// the default jar's import() so.
const unresolvable = () =>
  Promise.reject(new TypeError('Failed to resolve module specifier "tough-cookie"'));

Deno.test("the default jar that cannot load tough-cookie fails naming the runtime", async () => {
  const jar = new MemoryCookieJar(unresolvable);
  const error = await rejectsWith(
    jar.setCookie(`sid=${SECRET}`, "http://127.0.0.1/"),
    CookieLibraryError,
    /^Invalid cookies: Deno could not load the tough-cookie package of the default jar \(TypeError\); give withCookies\(\) a jar of your own$/,
  );
  assert.ok(error.cause instanceof TypeError);
  assert.doesNotMatch(error.message, new RegExp(SECRET));
});

Deno.test("a call whose cookies the default jar cannot store fails instead of dropping them", async () => {
  await using server = startFixtureServer();
  server.route("/login", () => new Response("set", { headers: { "set-cookie": `sid=${SECRET}` } }));
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withRetry({ maxRetries: 0 })
      .withCookies(new MemoryCookieJar(unresolvable)).build(),
  );
  // The caller's environment, not the network: as it is, and not retried.
  const error = await rejectsWith(
    client.get("/login"),
    CookieLibraryError,
    /^Invalid cookies: Deno /,
  );
  assert.doesNotMatch(error.message, new RegExp(SECRET));
  assert.equal(server.requests.length, 1);
});
