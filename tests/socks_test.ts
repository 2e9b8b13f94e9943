// SOCKS5 proxies on Deno: withProxy("socks5://…") and socks5h:// through
// Debian's Dante (no authentication) and through a SOCKS5 server of the
// test's own that checks a user name and password (tests/node/socks_server.mjs),
// http and https; what the proxy is sent (Deno's client sends the host name
// for socks5:// too); its refusals named as the proxy's, the credentials
// masked in every view; ALL_PROXY=socks5h://…; what build() refuses.

import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  type HttpClientConfigBuilder as Builder,
} from "../mod.ts";
import { rejectsWith, throwsAtOnce } from "./helpers.ts";
import { makeTlsMaterial } from "./tls_material.ts";
import { PROXY_ENV_FLAG, proxyChildCode, recordingTarget, runDenoChild } from "./proxy_server.ts";
import { startDante, startSocks5 } from "./node/socks_server.mjs";

function through(proxy: string, more: (builder: Builder) => Builder = (b) => b) {
  return new HttpClient(
    more(new HttpClientConfigBuilder().withProxy(proxy).withRetry({ maxRetries: 0 }))
      .withTimeout(10).build(),
  );
}

Deno.test("socks5:// and socks5h:// through Dante carry http and https, the certificate checked for the URL's host", async () => {
  const dante = await startDante();
  const tls = await makeTlsMaterial();
  const { server, origin, seen } = recordingTarget();
  await using _ = server;
  await using secure = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.serverCert, key: tls.serverKey, onListen() {} },
    (request) => new Response(`secure ${new URL(request.url).pathname}`),
  );
  try {
    const port = new URL(origin).port;
    for (const scheme of ["socks5", "socks5h"]) {
      await using client = through(
        `${scheme}://127.0.0.1:${dante.port}`,
        (b) => b.withTls({ caCerts: [tls.caCert] }),
      );
      assert.equal((await client.get(`http://127.0.0.1:${port}/${scheme}`)).statusCode, 200);
      assert.equal((await client.get(`http://localhost:${port}/${scheme}-name`)).statusCode, 200);
      const response = await client.get(`https://127.0.0.1:${secure.addr.port}/${scheme}`);
      assert.equal(response.text, `secure /${scheme}`);
      // The certificate names 127.0.0.1 only: through the tunnel, it is checked for "localhost".
      await rejectsWith(
        client.get(`https://localhost:${secure.addr.port}/${scheme}`),
        ConnectionException,
        /TLS certificate name mismatch/,
      );
    }
    assert.deepEqual(seen, [
      "/socks5",
      "/socks5-name",
      "/socks5h",
      "/socks5h-name",
    ]);
    // Dante relayed every one: two to the plain server and two to the TLS one, per scheme.
    assert.equal(dante.relayed(), 8, dante.log());
  } finally {
    await dante.close();
  }
});

Deno.test("A SOCKS5 proxy's user name and password are sent, its refusal named as the proxy's, the password shown nowhere", async () => {
  const socks = await startSocks5({ auth: ["ada", "s3cret-pass"] });
  const { server, origin } = recordingTarget();
  await using _ = server;
  const port = new URL(origin).port;
  try {
    for (const scheme of ["socks5", "socks5h"]) {
      await using client = through(`${scheme}://ada:s3cret-pass@127.0.0.1:${socks.port}`);
      assert.equal((await client.get(`http://localhost:${port}/${scheme}`)).statusCode, 200);
      assert.equal((await client.get(`http://127.0.0.1:${port}/${scheme}-ip`)).statusCode, 200);
    }
    // Deno's client gives the proxy the host name for socks5:// as for socks5h://.
    assert.deepEqual(socks.requests, [
      `name localhost:${port}`,
      `ip 127.0.0.1:${port}`,
      `name localhost:${port}`,
      `ip 127.0.0.1:${port}`,
    ]);

    const wrong = `socks5://ada:wrong-pass@127.0.0.1:${socks.port}`;
    await using refused = through(wrong);
    const error = await rejectsWith(
      refused.get(`http://localhost:${port}/x`),
      ConnectionException,
      /Proxy socks5:\/\/ada:\*\*\*@127\.0\.0\.1:\d+ refused the credentials \(SOCKS5\)/,
    );
    assert.equal(socks.refused, 1);
    await using anonymous = through(`socks5h://127.0.0.1:${socks.port}`);
    await rejectsWith(
      anonymous.get(`http://localhost:${port}/y`),
      ConnectionException,
      /Proxy socks5h:\/\/127\.0\.0\.1:\d+ refused the credentials \(SOCKS5\)/,
    );
    await using right = through(`socks5://ada:s3cret-pass@127.0.0.1:${socks.port}`);
    await rejectsWith(
      right.get(`http://fetchline-test.invalid:${port}/z`),
      ConnectionException,
      /could not connect to the target \(SOCKS5 reply: host unreachable\)/,
    );
    const views = [
      error.message,
      String(error),
      JSON.stringify(error),
      Deno.inspect(error, { depth: 6 }),
      JSON.stringify(right.config),
      Deno.inspect(right.config, { depth: 6 }),
      Deno.inspect(right, { depth: 6 }),
      String(right.config.proxy),
    ];
    for (const view of views) assert.doesNotMatch(view, /s3cret-pass|wrong-pass/, view);
  } finally {
    await socks.close();
  }
});

Deno.test("ALL_PROXY=socks5h://… is honoured on Deno without withProxy(), the credentials masked in its errors", async () => {
  const socks = await startSocks5({ auth: ["ada", "s3cret-pass"] });
  const { server, origin } = recordingTarget();
  await using _ = server;
  const port = new URL(origin).port;
  try {
    const run = (password: string, path: string) =>
      runDenoChild(
        proxyChildCode("", `http://localhost:${port}${path}`),
        { ALL_PROXY: `socks5h://ada:${password}@127.0.0.1:${socks.port}` },
        ["--allow-net=127.0.0.1,localhost", PROXY_ENV_FLAG],
      );
    assert.equal(await run("s3cret-pass", "/env"), "status 200\n");
    assert.deepEqual(socks.requests, [`name localhost:${port}`]);
    const failed = await run("wrong-pass", "/env-wrong");
    assert.match(failed, /^error ConnectionException .*refused the credentials \(SOCKS5\)/);
    assert.doesNotMatch(failed, /wrong-pass/);
  } finally {
    await socks.close();
  }
});

Deno.test("build() refuses socks:// and SOCKS4, and a SOCKS5 proxy with a network policy, naming why", () => {
  for (const url of ["socks://127.0.0.1:1080", "socks4://127.0.0.1:1080", "socks4a://h:1"]) {
    throwsAtOnce(
      () => new HttpClientConfigBuilder().withProxy(url),
      TypeError,
      /^Invalid proxy: expected an absolute http:, https:, socks5: or socks5h: URL, got "socks[4a]*:\/\/.*" \(socks: and SOCKS4 are not supported; use socks5: or socks5h:\)$/,
    );
  }
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withProxy("socks5://u:p4ss@127.0.0.1/x"),
    TypeError,
    /^Invalid proxy: expected no path, query or fragment, got "socks5:\/\/u:\*\*\*@127\.0\.0\.1\/x"$/,
  );
  throwsAtOnce(
    () =>
      new HttpClientConfigBuilder().withProxy("socks5h://127.0.0.1:1080").withNetworkPolicy()
        .build(),
    TypeError,
    /^Invalid networkPolicy: a proxy resolves and connects to the target itself/,
  );
});
