// The environment's NO_PROXY as Deno's own HTTP client reads it, which is
// what withProxy() must check on Deno: an IP range (`127.0.0.0/8`) names
// the addresses in it; `*` names host names but no IP address; entries are
// compared as written, case and all; `*.domain` is no pattern. A request
// Deno would route around withProxy(url) fails, whatever the spelling,
// instead of going around the proxy it should use; withProxy(null) goes
// direct whatever the environment says, and the proxy sees none of it.

import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import {
  PROXY_ENV_FLAG,
  proxyChildCode,
  recordingTarget,
  runDenoChild,
  startTinyproxy,
} from "./proxy_server.ts";

const UNRESOLVABLE = "fetchline-test.invalid";

Deno.test("withProxy() on Deno refuses every request Deno's NO_PROXY rules would route around it", async () => {
  await using proxy = await startTinyproxy();
  const { server, origin, seen } = recordingTarget();
  await using _ = server;
  const run = (setup: string, url: string, env: Record<string, string>) =>
    runDenoChild(proxyChildCode(setup, url), env, [
      `--allow-net=127.0.0.1,${UNRESOLVABLE}`,
      PROXY_ENV_FLAG,
    ]);
  const explicit = `.withProxy(${JSON.stringify(proxy.url)})`;
  const nullProxy = ".withProxy(null)";
  const around =
    /^error HttpClientException .*cannot be used for .* on Deno: the environment's NO_PROXY/;

  // Deno connects directly to an address in a NO_PROXY range.
  assert.match(await run(explicit, `${origin}/range`, { NO_PROXY: "127.0.0.0/8" }), around);
  assert.match(await run(explicit, `${origin}/range6`, { NO_PROXY: "::/0, 127.0.0.1/32" }), around);
  // ... and a NO_PROXY whose ranges leave the address out changes nothing.
  assert.equal(
    await run(explicit, `${origin}/other-range`, { NO_PROXY: "10.0.0.0/8" }),
    "status 200\n",
  );
  // withProxy(null) connects directly whatever the environment says, through the pool's own
  // relay where Deno would send through HTTP_PROXY: NO_PROXY=* names no IP address on Deno,
  // entries are compared as written, `*.` is no pattern, an empty NO_PROXY hides no_proxy.
  const star = { HTTP_PROXY: proxy.url, NO_PROXY: "*" };
  assert.equal(await run(nullProxy, `${origin}/star`, star), "status 200\n");
  const direct = /^error ConnectionException Connection failed: host not found/;
  const upper = { HTTP_PROXY: proxy.url, NO_PROXY: UNRESOLVABLE.toUpperCase() };
  assert.match(await run(nullProxy, `http://${UNRESOLVABLE}/upper`, upper), direct);
  const wildcard = { HTTP_PROXY: proxy.url, NO_PROXY: "*.invalid" };
  assert.match(await run(nullProxy, `http://${UNRESOLVABLE}/wildcard`, wildcard), direct);
  const hidden = { HTTP_PROXY: proxy.url, NO_PROXY: "", no_proxy: "127.0.0.1" };
  assert.equal(await run(nullProxy, `${origin}/hidden`, hidden), "status 200\n");
  // What Deno's rules bypass goes direct by Deno's own client.
  const named = { HTTP_PROXY: proxy.url, NO_PROXY: ".invalid, 127.0.0.0/8" };
  assert.equal(await run(nullProxy, `${origin}/named`, named), "status 200\n");

  const log = await proxy.log();
  for (const path of ["/range", "/star", "/upper", "/wildcard", "/hidden", "/named"]) {
    assert.ok(!log.includes(`${path} `), `${path}: ${log}`);
  }
  assert.ok(log.includes(`GET ${origin}/other-range `), log);
  assert.deepEqual(seen, ["/other-range", "/star", "/hidden", "/named"]);
});

Deno.test("withProxy()'s noProxy names an IP address by its value or a range, never by a suffix", async () => {
  await using proxy = await startTinyproxy();
  const { server, origin, seen } = recordingTarget();
  await using _ = server;
  const send = async (noProxy: string, path: string) => {
    const config = new HttpClientConfigBuilder().withProxy(proxy.url, { noProxy })
      .withRetry({ maxRetries: 0 }).build();
    await using http = new HttpClient(config);
    assert.equal((await http.get(`${origin}${path}`)).text, "ok");
  };
  await send("127.0.0.0/30", "/range");
  await send("10.0.0.0/8, ::ffff:0:0/96", "/other-ranges");
  // "0.0.1" is no domain 127.0.0.1 is under.
  await send("0.0.1", "/suffix");
  const log = await proxy.log();
  assert.ok(!log.includes("/range "), log);
  assert.ok(log.includes(`GET ${origin}/other-ranges `), log);
  assert.ok(log.includes(`GET ${origin}/suffix `), log);
  assert.deepEqual(seen, ["/range", "/other-ranges", "/suffix"]);
});
