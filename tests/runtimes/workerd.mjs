// The npm package's Web build inside workerd: scripts/test_runtimes.ts gives
// workerd this worker, the build's files as modules (workerd resolves no
// package name, so no tough-cookie either; the cache needs none), the shared suite's files
// (tests/shared/, but not its node:http fixture) and a network that reaches
// 127.0.0.1. On `/`, it runs tests/runtimes/checks.mjs against the fixture
// named in the query (`url`, `refused`); on `/shared`, the shared suite
// against the fixture process whose JSON line is the query's `fixture`
// (`areas`, names joined by commas, keeps only those). The answer is the
// lines, with status 500 if any test failed.

import * as mod from "./web/mod.js";
import * as cache from "./web/cache.js";
import * as traffic from "./web/traffic.js";
import * as har from "./web/har.js";
import * as testing from "./web/testing.js";
import * as sse from "./web/sse.js";
import * as pagination from "./web/paginate.js";
import * as signing from "./web/signing.js";
import { toCurl } from "./web/utils.js";
import { checks, limits, noFiles, run, withoutToughCookie } from "./checks.mjs";
import * as areas from "./shared/areas.mjs";
import { runSuite } from "./shared/suite.mjs";

const lib = {
  ...mod,
  ...cache,
  ...traffic,
  ...har,
  ...testing,
  ...sse,
  ...pagination,
  ...signing,
  toCurl,
};

async function shared(query) {
  const fixture = JSON.parse(query.get("fixture"));
  const only = query.get("areas")?.split(",").filter(Boolean);
  const result = await runSuite(areas, { lib, fixture, runtime: "workerd" }, { only });
  return { lines: result.lines, failed: result.failed };
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const query = url.searchParams;
    if (url.pathname === "/shared") {
      const { lines, failed } = await shared(query);
      return new Response(lines.join("\n") + "\n", { status: failed > 0 ? 500 : 200 });
    }
    const fixture = {
      url: query.get("url"),
      refusedUrl: query.get("refused"),
      runtime: "workerd",
    };
    const all = {
      ...checks(lib, fixture),
      ...limits(lib, fixture),
      ...noFiles(lib, fixture),
      ...withoutToughCookie(lib, fixture),
    };
    const { lines, failed } = await run(all, "workerd (web build)");
    return new Response(lines.join("\n") + "\n", { status: failed > 0 ? 500 : 200 });
  },
};
