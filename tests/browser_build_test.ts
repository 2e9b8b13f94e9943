// The files the npm package's browser build compiles in place of others
// (scripts/build_npm.ts): its runtime, the global fetch and nothing else; its
// default jar, which has no tough-cookie; its network settings, unchecked,
// which build() refuses. Which build each bundler picks, and that the browser
// one carries neither tough-cookie nor proxies, is checked by esbuild in
// `deno task test:runtimes` (scripts/check_conditions.ts) and by
// `deno task check:layout`.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { runtime } from "../src/transport/runtime_browser.ts";
import { MemoryCookieJar } from "../src/cookies/memory_jar_browser.ts";
import { CookieLibraryError } from "../src/cookies/jar.ts";
import * as browser from "../src/config/network_settings_browser.ts";
import { checkNetwork } from "../src/config/network.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith } from "./helpers.ts";

const SECRET = "s3cr3t-session";

Deno.test("the browser runtime sends with the global fetch and has no pool or files", async () => {
  await using server = startFixtureServer();
  server.route("/hello", () => new Response("hi"));
  assert.equal(runtime.pooled, false);
  assert.equal(runtime.files, false);
  const pool = runtime.createPool();
  const response = await pool.transport(
    { method: "GET", url: `${server.url}/hello`, headers: {} },
    // A step that is never aborted: the transport only listens.
    { aborted: false, onAbort() {}, offAbort() {}, signal: () => new AbortController().signal },
  );
  assert.equal(response.status, 200);
  assert.equal(await new Response(response.body).text(), "hi");
  pool.close();
  await rejectsWith(runtime.openFile("/etc/hostname"), TypeError, /^Invalid files: a file path/);
});

Deno.test("the browser runtime refuses a proxy and TLS options, naming the runtime", () => {
  const proxy = { url: "http://127.0.0.1:9", noProxy: [] };
  assert.throws(
    () => runtime.createPool({}, { proxy }),
    (error) =>
      error instanceof TypeError &&
      error.message === "Invalid proxy: Deno has no pool to send through a proxy",
  );
  assert.throws(
    () => runtime.createPool({}, { tls: { caCerts: ["-----BEGIN CERTIFICATE-----"] } }),
    (error) =>
      error instanceof TypeError &&
      error.message === "Invalid tls: Deno has no pool to apply TLS options",
  );
  // No proxy (null) and no TLS are what a browser's client always asks for.
  runtime.createPool({}, { proxy: null }).close();
});

Deno.test("the browser build's default jar fails the call on the first cookie, not in silence", async () => {
  await using server = startFixtureServer();
  server.route("/login", () => new Response("set", { headers: { "set-cookie": `sid=${SECRET}` } }));
  server.route("/plain", () => new Response("plain"));
  const jar = new MemoryCookieJar();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withRetry({ maxRetries: 0 })
      .withCookies(jar).build(),
  );
  // No cookie received: the call goes as any other, with no Cookie header.
  assert.equal((await client.get("/plain")).text, "plain");
  assert.equal(server.last().headers["cookie"], undefined);
  const error = await rejectsWith(
    client.get("/login"),
    CookieLibraryError,
    /^Invalid cookies: Deno runs the npm package's browser build, which has no default jar \(tough-cookie\); give withCookies\(\) a jar of your own$/,
  );
  assert.doesNotMatch(error.message, new RegExp(SECRET));
  assert.equal(server.requests.length, 2);
  assert.equal(await jar.getCookieString(server.url), "");
});

Deno.test("the browser build's network settings, kept unchecked, are each refused at build()", () => {
  // Deno has a pool, so the refusal for a custom fetch stands in for the one
  // for a runtime without a pool: both ask whether the setting is there.
  const fetch = () => {};
  const cases = [
    ["proxy", { proxy: browser.checkProxy(undefined) }],
    ["tls", { tls: browser.checkTls(undefined) }],
    ["networkPolicy", { networkPolicy: browser.checkNetworkPolicy("nonsense") }],
    ["unixSocket", { unixSocket: browser.checkUnixSocket("") }],
  ] as const;
  for (const [field, config] of cases) {
    assert.throws(() => checkNetwork({ ...config, fetch }), {
      name: "TypeError",
      message: new RegExp(`^Invalid ${field}: a custom fetch`),
    });
  }
});
