// The npm package's Web build inside workerd: scripts/test_runtimes.ts gives
// workerd this worker, the build's files as modules (workerd resolves no
// package name, so no tough-cookie either) and a network that reaches
// 127.0.0.1, then asks it to run tests/runtimes/checks.mjs against its
// fixture, named in the query (`url`, `refused`). The answer is the lines,
// with status 500 if any check failed.

import * as mod from "./web/mod.js";
import { toCurl } from "./web/utils.js";
import { checks, limits, noFiles, run, withoutToughCookie } from "./checks.mjs";

export default {
  async fetch(request) {
    const query = new URL(request.url).searchParams;
    const fixture = {
      url: query.get("url"),
      refusedUrl: query.get("refused"),
      runtime: "workerd",
    };
    const lib = { ...mod, toCurl };
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
