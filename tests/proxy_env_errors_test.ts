// The environment's proxy failing on Deno, without withProxy(): Deno's own
// client sends through HTTP_PROXY or HTTPS_PROXY, and the client names that
// proxy (masked) when it cannot be reached or refuses the credentials, as
// for withProxy() and as on Node, rather than blaming the target. Each case
// runs in a child Deno whose whole environment the test sets.

import assert from "node:assert/strict";
import { freePort, PROXY_ENV_FLAG, proxyChildCode, runDenoChild } from "./proxy_server.ts";

const run = (url: string, env: Record<string, string>, flags: string[] = [PROXY_ENV_FLAG]) =>
  runDenoChild(proxyChildCode("", url), env, ["--allow-net=127.0.0.1", ...flags]);

/** A server answering every request 407, as a forward proxy wanting other credentials does. */
function proxyWantingCredentials(): {
  server: Deno.HttpServer<Deno.NetAddr>;
  url: string;
  asked: string[];
} {
  const asked: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    asked.push(request.url);
    return new Response("Proxy credentials required\n", {
      status: 407,
      headers: { "Proxy-Authenticate": 'Basic realm="proxy"' },
    });
  });
  return { server, url: `http://127.0.0.1:${server.addr.port}`, asked };
}

Deno.test("On Deno an environment's proxy that cannot be reached is named in the ConnectionException, masked", async () => {
  const port = freePort();
  const proxy = `http://ada:s3cr-t@127.0.0.1:${port}`;
  for (const [scheme, name] of [["http", "HTTP_PROXY"], ["https", "HTTPS_PROXY"]] as const) {
    const url = `${scheme}://127.0.0.1:${freePort()}/x`;
    const out = await run(url, { [name]: proxy });
    assert.match(
      out,
      new RegExp(
        `^error ConnectionException Connection failed: Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${port}/? refused the connection: GET ${url}\n$`,
      ),
    );
    assert.ok(!out.includes("s3cr"), out);
  }
  // Without --allow-env the client cannot see the proxy Deno's client uses: docs/network.md says so.
  assert.match(
    await run(`http://127.0.0.1:${freePort()}/no-flag`, { HTTP_PROXY: proxy }, []),
    /^error ConnectionException Connection failed: connection refused /,
  );
  // ALL_PROXY serves both schemes, as Deno's client reads it.
  const url = `http://127.0.0.1:${freePort()}/all`;
  assert.match(
    await run(url, { ALL_PROXY: `127.0.0.1:${port}` }),
    new RegExp(`^error ConnectionException .*Proxy http://127\\.0\\.0\\.1:${port}/? refused`),
  );
});

Deno.test("On Deno an environment's proxy answering 407 to a forwarded http request fails with a ConnectionException naming it", async () => {
  const { server, url: proxyUrl, asked } = proxyWantingCredentials();
  await using _ = server;
  const port = server.addr.port;
  const target = `http://127.0.0.1:${freePort()}/x`;
  const out = await run(target, { HTTP_PROXY: `http://ada:wr0ng-pass@127.0.0.1:${port}` });
  assert.match(
    out,
    new RegExp(
      `^error ConnectionException Connection failed: Proxy http://ada:\\*\\*\\*@127\\.0\\.0\\.1:${port}/? refused the credentials \\(407 Proxy Authentication Required\\): GET ${target}\n$`,
    ),
  );
  assert.ok(!out.includes("wr0ng-pass"), out);
  // The proxy was asked in absolute form, once (no retries).
  assert.deepEqual(asked, [target]);
  // Where no proxy applies (Deno's NO_PROXY names the host), a 407 is the server's response.
  const direct = `${proxyUrl}/direct`;
  assert.equal(
    await run(direct, { HTTP_PROXY: `http://127.0.0.1:${freePort()}`, NO_PROXY: "127.0.0.1" }),
    "status 407\n",
  );
  assert.deepEqual(asked, [target, direct]);
});

Deno.test("On Deno a request's own Proxy-Authorization header is refused through the environment's proxy, as through withProxy()", async () => {
  const { server, asked } = proxyWantingCredentials();
  await using _ = server;
  const env = { HTTP_PROXY: `http://127.0.0.1:${server.addr.port}` };
  const token = btoa("ada:s3cr-t");
  const setup = `.withHeaders({ "Proxy-Authorization": "Basic ${token}" })`;
  const out = await runDenoChild(proxyChildCode(setup, `http://127.0.0.1:${freePort()}/own`), env, [
    "--allow-net=127.0.0.1",
    PROXY_ENV_FLAG,
  ]);
  assert.match(
    out,
    /^error HttpClientException Connection failed: Proxy http:\/\/127\.0\.0\.1:\d+\/? is not sent a request's own Proxy-Authorization header/,
  );
  assert.ok(!out.includes(token), out);
  assert.deepEqual(asked, []);
});
