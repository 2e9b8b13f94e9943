// SOCKS5 proxies on the npm build: withProxy("socks5://…") and socks5h://
// through Debian's Dante and through a SOCKS5 server of the test's own that
// checks a user name and password (socks_server.mjs); socks5:// resolves the
// host here and sends the proxy its address, socks5h:// sends the name, as
// curl; https through the tunnel with the certificate checked; the proxy's
// refusals named as its own, the password shown nowhere; ALL_PROXY; no
// warning printed.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:https";
import { inspect } from "node:util";
import { ConnectionException, HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { startServer } from "./server.mjs";
import { runNodeChild } from "./proxy_server.mjs";
import { startDante, startSocks5 } from "./socks_server.mjs";
import { makeTlsMaterial } from "./tls_material.mjs";
import { rejection } from "./helpers.mjs";

function client(proxy, caCert = undefined) {
  const builder = new HttpClientConfigBuilder().withProxy(proxy);
  if (caCert !== undefined) builder.withTls({ caCerts: [caCert] });
  return new HttpClient(builder.withRetry({ maxRetries: 0 }).withTimeout(10).build());
}

test("socks5:// and socks5h:// through Dante carry http and https, the certificate checked for the URL's host", async () => {
  const dante = await startDante();
  const server = await startServer();
  const tls = await makeTlsMaterial();
  const secure = createServer({ cert: tls.serverCert, key: tls.serverKey }, (req, res) => {
    res.end(`secure ${req.url}`);
  });
  await new Promise((resolve) => secure.listen(0, "127.0.0.1", resolve));
  const { port } = secure.address();
  const port80 = new URL(server.url).port;
  try {
    for (const scheme of ["socks5", "socks5h"]) {
      const http = client(`${scheme}://127.0.0.1:${dante.port}`, tls.caCert);
      try {
        assert.equal((await http.get(`${server.url}/${scheme}`)).json().path, `/${scheme}`);
        assert.equal((await http.get(`http://localhost:${port80}/${scheme}-name`)).statusCode, 200);
        assert.equal(
          (await http.get(`https://127.0.0.1:${port}/${scheme}`)).text,
          `secure /${scheme}`,
        );
        const error = await rejection(http.get(`https://localhost:${port}/${scheme}`));
        assert.ok(error instanceof ConnectionException);
        assert.match(error.message, /TLS certificate name mismatch/);
      } finally {
        http.close();
      }
    }
    assert.deepEqual(server.requests.map((request) => request.path), [
      "/socks5",
      "/socks5-name",
      "/socks5h",
      "/socks5h-name",
    ]);
    assert.equal(dante.relayed(), 8, dante.log());
  } finally {
    secure.close();
    await server.close();
    await dante.close();
  }
});

test("socks5:// sends the proxy the address it resolved, socks5h:// the name; credentials sent, refusals named, the password shown nowhere", async () => {
  const socks = await startSocks5({ auth: ["ada", "s3cret-pass"] });
  const server = await startServer();
  const port = new URL(server.url).port;
  const clients = [];
  const make = (proxy) => {
    const made = client(proxy);
    clients.push(made);
    return made;
  };
  try {
    for (const scheme of ["socks5", "socks5h"]) {
      const http = make(`${scheme}://ada:s3cret-pass@127.0.0.1:${socks.port}`);
      assert.equal((await http.get(`http://localhost:${port}/${scheme}`)).statusCode, 200);
    }
    assert.equal(socks.requests[1], `name localhost:${port}`);
    // localhost resolved here: to 127.0.0.1 or ::1, whichever the system gives first.
    assert.match(socks.requests[0], new RegExp(`^ip (127\\.0\\.0\\.1|[0:]+1):${port}$`));

    const wrong = make(`socks5://ada:wrong-pass@127.0.0.1:${socks.port}`);
    const error = await rejection(wrong.get(`http://localhost:${port}/x`));
    assert.ok(error instanceof ConnectionException);
    assert.match(
      error.message,
      /Proxy socks5:\/\/ada:\*\*\*@127\.0\.0\.1:\d+ refused the credentials \(SOCKS5\)/,
    );
    assert.equal(socks.refused, 1);
    const anonymous = make(`socks5h://127.0.0.1:${socks.port}`);
    assert.match(
      (await rejection(anonymous.get(`http://localhost:${port}/y`))).message,
      /refused the credentials \(SOCKS5\)/,
    );
    const right = make(`socks5h://ada:s3cret-pass@127.0.0.1:${socks.port}`);
    assert.match(
      (await rejection(right.get(`http://fetchline-test.invalid:${port}/z`))).message,
      /could not connect to the target \(SOCKS5 reply: host unreachable\)/,
    );
    const views = [
      error.message,
      String(error),
      JSON.stringify(error),
      inspect(error, { depth: 6 }),
      JSON.stringify(right.config),
      inspect(right.config, { depth: 6 }),
      inspect(right, { depth: 6 }),
    ];
    for (const view of views) assert.doesNotMatch(view, /s3cret-pass|wrong-pass/, view);
  } finally {
    for (const made of clients) made.close();
    await server.close();
    await socks.close();
  }
});

test("ALL_PROXY=socks5h://… is honoured without withProxy(), and SOCKS prints no warning", async () => {
  const socks = await startSocks5({ auth: ["ada", "s3cret-pass"] });
  const server = await startServer();
  const port = new URL(server.url).port;
  const code = (path) => `
    import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
    const warnings = [];
    process.on("warning", (warning) => warnings.push(warning.name));
    const http = new HttpClient(new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).build());
    try {
      console.log("status", (await http.get("http://localhost:${port}${path}")).statusCode);
    } catch (error) {
      console.log("error", error.name, error.message);
    }
    http.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    console.log("warnings", warnings.join(","));
  `;
  try {
    const env = (password) => ({ ALL_PROXY: `socks5h://ada:${password}@127.0.0.1:${socks.port}` });
    assert.equal(await runNodeChild(code("/env"), env("s3cret-pass")), "status 200\nwarnings \n");
    assert.deepEqual(socks.requests, [`name localhost:${port}`]);
    const failed = await runNodeChild(code("/env-wrong"), env("wrong-pass"));
    assert.match(failed, /^error ConnectionException .*refused the credentials \(SOCKS5\)/);
    assert.doesNotMatch(failed, /wrong-pass/);
  } finally {
    await server.close();
    await socks.close();
  }
});
