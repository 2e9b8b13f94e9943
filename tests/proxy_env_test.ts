// The environment's proxies on Deno, each case in a child Deno whose whole
// environment the test sets: HTTP_PROXY honoured without withProxy() (with
// or without --allow-env), withProxy(null) connecting directly even so,
// noProxy refusing to be overridden by it, and withProxy() without --allow-env naming the flag.

import assert from "node:assert/strict";
import {
  PROXY_ENV_FLAG,
  proxyChildCode,
  recordingTarget,
  runDenoChild,
  startTinyproxy,
} from "./proxy_server.ts";

Deno.test("On Deno the environment's proxies apply without withProxy(), and withProxy(null) or NO_PROXY are never silently overridden", async () => {
  await using proxy = await startTinyproxy();
  const { server, origin, seen } = recordingTarget();
  await using _ = server;
  const run = (setup: string, path: string, env: Record<string, string>, flags: string[] = []) =>
    runDenoChild(proxyChildCode(setup, `${origin}${path}`), env, [
      "--allow-net=127.0.0.1",
      ...flags,
    ]);

  // Deno's own client reads HTTP_PROXY, with or without --allow-env.
  assert.equal(await run("", "/env", { HTTP_PROXY: proxy.url }), "status 200\n");
  assert.equal(
    await run("", "/env-flag", { http_proxy: proxy.url }, [PROXY_ENV_FLAG]),
    "status 200\n",
  );
  assert.equal(
    await run("", "/no-proxy", { HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1" }, [PROXY_ENV_FLAG]),
    "status 200\n",
  );
  // withProxy(null) connects directly even so (through the pool's own relay): the proxy sees nothing.
  assert.equal(
    await run(".withProxy(null)", "/null", { HTTP_PROXY: proxy.url }, [PROXY_ENV_FLAG]),
    "status 200\n",
  );
  assert.equal(
    await run(".withProxy(null)", "/null-no-flag", { HTTP_PROXY: proxy.url }),
    "status 200\n",
  );
  assert.equal(await run(".withProxy(null)", "/null-direct", {}, [PROXY_ENV_FLAG]), "status 200\n");
  // Without --allow-env, withProxy() cannot check the environment: it says so.
  assert.match(
    await run(`.withProxy(${JSON.stringify(proxy.url)})`, "/no-flag", {}),
    /^error HttpClientException Proxy settings need --allow-env on Deno: .*--allow-env=HTTP_PROXY,/,
  );
  assert.equal(
    await run(`.withProxy(${JSON.stringify(proxy.url)})`, "/explicit", {}, [PROXY_ENV_FLAG]),
    "status 200\n",
  );
  // Deno's NO_PROXY would take an explicit proxy's hosts around it: refused.
  assert.match(
    await run(
      `.withProxy(${JSON.stringify(proxy.url)})`,
      "/explicit-no",
      { NO_PROXY: "127.0.0.1" },
      [
        PROXY_ENV_FLAG,
      ],
    ),
    /^error HttpClientException .*cannot be used for 127\.0\.0\.1:\d+ on Deno: the environment's NO_PROXY/,
  );
  const log = await proxy.log();
  for (const path of ["/env", "/env-flag", "/explicit"]) {
    assert.ok(log.includes(`GET ${origin}${path} `), `${path}: ${log}`);
  }
  assert.ok(!log.includes("/no-proxy") && !log.includes("/null"), log);
  assert.deepEqual(seen, [
    "/env",
    "/env-flag",
    "/no-proxy",
    "/null",
    "/null-no-flag",
    "/null-direct",
    "/explicit",
  ]);
});
