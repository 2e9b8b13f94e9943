// withProxy() and the environment's proxies on the npm build: a real
// tinyproxy sees http forwarded in absolute form and https tunnelled with
// CONNECT; refusals name the proxy; HTTP_PROXY, HTTPS_PROXY and NO_PROXY are
// honoured without withProxy(), and ignored with withProxy(null).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:https";
import { inspect } from "node:util";
import { ConnectionException, HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { startServer } from "./server.mjs";
import { freePort, runNodeChild, startTinyproxy } from "./proxy_server.mjs";
import { makeTlsMaterial } from "./tls_material.mjs";
import { rejection } from "./helpers.mjs";

// tinyproxy takes only word characters, dots and dashes in a password: the
// URL spells the dash percent-encoded, which the client must decode.
const ENCODED = "s3cr%2Dt";

function client(proxy, options = {}, caCert = undefined) {
  const builder = new HttpClientConfigBuilder().withProxy(proxy, options);
  if (caCert !== undefined) builder.withTls({ caCerts: [caCert] });
  return new HttpClient(builder.withRetry({ maxRetries: 0 }).withTimeout(10).build());
}

test("withProxy() forwards an http request through the proxy in absolute form", async () => {
  const proxy = await startTinyproxy();
  const server = await startServer();
  const http = client(proxy.url);
  try {
    const response = await http.get(`${server.url}/through?a=1`);
    assert.equal(response.json().path, "/through");
    assert.ok(proxy.log().includes(`GET ${server.url}/through?a=1 `), proxy.log());
  } finally {
    http.close();
    await server.close();
    await proxy.close();
  }
});

test("withProxy() tunnels https with CONNECT and sends the URL's decoded credentials", async () => {
  const tls = await makeTlsMaterial();
  const proxy = await startTinyproxy({ auth: ["ada", "s3cr-t"] });
  const server = createServer(
    { cert: tls.serverCert, key: tls.serverKey },
    (_req, res) => res.end("secure"),
  );
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  const https = client(`http://ada:${ENCODED}@127.0.0.1:${proxy.port}`, {}, tls.caCert);
  try {
    assert.equal((await https.get(`https://127.0.0.1:${port}/tls`)).text, "secure");
    assert.ok(proxy.log().includes(`CONNECT 127.0.0.1:${port} `), proxy.log());
  } finally {
    https.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await proxy.close();
  }
});

test("A proxy that refuses the credentials or the tunnel fails with a ConnectionException naming it, masked", async () => {
  const proxy = await startTinyproxy({ auth: ["ada", "s3cr-t"], connectPorts: [await freePort()] });
  const wrong = client(`http://ada:wr0ng-pass@127.0.0.1:${proxy.port}`);
  const right = client(`http://ada:${ENCODED}@127.0.0.1:${proxy.port}`);
  try {
    const target = `https://127.0.0.1:${await freePort()}/x`;
    const refused = await rejection(wrong.get(target));
    assert.ok(refused instanceof ConnectionException, String(refused));
    assert.match(
      refused.message,
      new RegExp(
        `Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${proxy.port}/? refused the credentials \\(status 40[17]\\)`,
      ),
    );
    for (const text of [refused.message, inspect(refused), JSON.stringify(refused)]) {
      assert.ok(!text.includes("wr0ng-pass"), text);
    }
    const forbidden = await rejection(right.get(target));
    assert.ok(forbidden instanceof ConnectionException, String(forbidden));
    assert.match(forbidden.message, /refused the CONNECT tunnel \(status 403\)/);
    assert.ok(!forbidden.message.includes("s3cr"), forbidden.message);
  } finally {
    wrong.close();
    right.close();
    await proxy.close();
  }
});

test("A proxy that cannot be reached fails with a ConnectionException saying it refused", async () => {
  const port = await freePort();
  const http = client(`http://ada:${ENCODED}@127.0.0.1:${port}`);
  try {
    for (const scheme of ["http", "https"]) {
      const error = await rejection(http.get(`${scheme}://127.0.0.1:${await freePort()}/x`));
      assert.ok(error instanceof ConnectionException, String(error));
      assert.match(
        error.message,
        new RegExp(`Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${port}/? refused the connection`),
      );
      assert.ok(!error.message.includes("s3cr"), error.message);
    }
  } finally {
    http.close();
  }
});

test("withProxy() reaches its noProxy hosts directly, and only those", async () => {
  const proxy = await startTinyproxy();
  const direct = await startServer();
  const other = await startServer();
  const http = client(proxy.url, { noProxy: `example.invalid, ${new URL(direct.url).host}` });
  try {
    await http.get(`${direct.url}/direct`);
    assert.ok(!proxy.log().includes("/direct"), proxy.log());
    await http.get(`${other.url}/proxied`);
    assert.ok(proxy.log().includes(`GET ${other.url}/proxied `), proxy.log());
  } finally {
    http.close();
    await direct.close();
    await other.close();
    await proxy.close();
  }
});

test("A proxy's password is masked in util.inspect() and JSON.stringify() of the config and client", () => {
  const config = new HttpClientConfigBuilder().withProxy(`http://ada:${ENCODED}@127.0.0.1:3128`)
    .build();
  const http = new HttpClient(config);
  try {
    for (
      const text of [
        inspect(config, { depth: 10 }),
        inspect(http, { depth: 10 }),
        JSON.stringify(config),
        JSON.stringify(http),
        inspect(config.proxy),
      ]
    ) {
      assert.ok(!text.includes("s3cr"), text);
    }
    assert.equal(
      JSON.parse(JSON.stringify(http)).config.proxy.url,
      "http://ada:***@127.0.0.1:3128",
    );
  } finally {
    http.close();
  }
});

// A child node with the environment given: the test process's own stays as it is.
const CHILD = (setup) => `
  import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
  const http = new HttpClient(new HttpClientConfigBuilder()${setup}.withRetry({ maxRetries: 0 }).build());
  try {
    const response = await http.get(process.argv.at(-1) ?? "");
    console.log("status", response.statusCode);
  } catch (error) {
    console.log("error", error.message);
  } finally {
    http.close();
  }
`;

async function inChild(setup, env, url) {
  return await runNodeChild(
    CHILD(setup).replace('process.argv.at(-1) ?? ""', JSON.stringify(url)),
    env,
  );
}

test("HTTP_PROXY and HTTPS_PROXY are honoured without withProxy(), NO_PROXY and withProxy(null) bypass them", async () => {
  const proxy = await startTinyproxy();
  const server = await startServer();
  const host = new URL(server.url).host;
  try {
    assert.equal(
      await inChild("", { HTTP_PROXY: proxy.url }, `${server.url}/env-upper`),
      "status 200\n",
    );
    assert.ok(proxy.log().includes(`GET ${server.url}/env-upper `), proxy.log());
    assert.equal(
      await inChild("", { http_proxy: proxy.url }, `${server.url}/env-lower`),
      "status 200\n",
    );
    assert.ok(proxy.log().includes(`GET ${server.url}/env-lower `), proxy.log());
    // Where both spellings are set the upper-case one wins, as on Deno.
    const both = { HTTP_PROXY: proxy.url, http_proxy: `http://127.0.0.1:${await freePort()}` };
    assert.equal(await inChild("", both, `${server.url}/env-both`), "status 200\n");
    assert.ok(proxy.log().includes(`GET ${server.url}/env-both `), proxy.log());
    // HTTPS_PROXY is for https targets only.
    assert.equal(
      await inChild("", { HTTPS_PROXY: proxy.url }, `${server.url}/https-only`),
      "status 200\n",
    );
    assert.equal(
      await inChild(
        "",
        { HTTP_PROXY: proxy.url, NO_PROXY: `x.invalid,${host}` },
        `${server.url}/no-proxy`,
      ),
      "status 200\n",
    );
    assert.equal(
      await inChild(".withProxy(null)", { HTTP_PROXY: proxy.url }, `${server.url}/null`),
      "status 200\n",
    );
    // An explicit proxy bypasses only its own noProxy hosts, not the environment's.
    assert.equal(
      await inChild(
        `.withProxy(${JSON.stringify(proxy.url)})`,
        { NO_PROXY: host },
        `${server.url}/explicit`,
      ),
      "status 200\n",
    );
    const log = proxy.log();
    for (const path of ["/https-only", "/no-proxy", "/null"]) assert.ok(!log.includes(path), log);
    assert.ok(log.includes(`GET ${server.url}/explicit `), log);
    const paths = server.requests.map((request) => request.path);
    assert.deepEqual(paths, [
      "/env-upper",
      "/env-lower",
      "/env-both",
      "/https-only",
      "/no-proxy",
      "/null",
      "/explicit",
    ]);
  } finally {
    await server.close();
    await proxy.close();
  }
});
