// The npm package's browser build in a real browser: scripts/test_browser.ts
// serves this module, the package's files and an import map for
// `@fetchline/fetchline` on one port, and a fixture that answers CORS (and
// its preflights) on another, so every call is cross-origin as a page's
// would be. The checks of tests/runtimes/checks.mjs run, then those only a
// browser has, and those of tests/runtimes/cors.mjs; the lines go to the
// console and to `globalThis.report`, which tests/runtimes/chromium.mjs waits
// for. Given `fixture` in the query (the shared suite's fixture process, its
// JSON line), the shared suite (tests/shared/) runs after them, its lines and
// failures joining the report (`areas`, names joined by commas, keeps only
// those areas).

import { lib } from "./shared/package_lib.mjs";
import { checks, limits, noFiles, run } from "./checks.mjs";
import { cors } from "./cors.mjs";
import * as areas from "./shared/areas.mjs";
import { runSuite } from "./shared/suite.mjs";

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/** What only a browser's fetch does: keep cookies, hide headers, and hide a redirect. */
function browserOnly(lib, { url, runtime }) {
  const http = () => lib.createClient(url);
  return {
    "a cookie jar is refused, naming the runtime": () => {
      try {
        new lib.HttpClientConfigBuilder().withCookies().build();
      } catch (error) {
        check(error instanceof TypeError, `${error?.name}`);
        check(error.message.includes(runtime), error.message);
        return;
      }
      throw new Error("withCookies() was accepted");
    },
    "only the CORS-exposed headers are visible": async () => {
      const client = http();
      try {
        const response = await client.get("/headers");
        check(response.header("x-exposed") === "yes", "x-exposed not visible");
        check(response.header("x-hidden") === undefined, "x-hidden visible");
        check(response.header("content-type") === "application/json", "no content type");
      } finally {
        await client.close();
      }
    },
    "a redirect fails, naming the runtime": async () => {
      const client = http();
      try {
        await client.get("/redirect");
      } catch (error) {
        check(error instanceof TypeError, `${error?.name}: ${error?.message}`);
        check(error.message.includes(runtime), error.message);
        return;
      } finally {
        await client.close();
      }
      throw new Error("the opaque redirect came back as a response");
    },
  };
}

const query = new URLSearchParams(location.search);
const fixture = { url: query.get("url"), refusedUrl: query.get("refused"), runtime: "a browser" };
const all = {
  ...checks(lib, fixture),
  ...limits(lib, fixture),
  ...noFiles(lib, fixture),
  ...browserOnly(lib, fixture),
  ...cors(lib, fixture),
};
const label = `${query.get("browser") === "firefox" ? "Firefox" : "Chromium"} (browser build)`;
const report = await run(all, label).catch((error) => ({
  lines: [`not ok ${label}: ${error?.message ?? error}`],
  failed: 1,
}));
if (query.get("fixture") !== null) {
  const only = query.get("areas")?.split(",").filter(Boolean);
  const shared = await runSuite(
    areas,
    {
      lib,
      fixture: JSON.parse(query.get("fixture")),
      runtime: query.get("browser") === "firefox" ? "firefox" : "chromium",
    },
    { only },
  ).catch((error) => ({ lines: [`not ok shared suite: ${error?.stack ?? error}`], failed: 1 }));
  report.lines.push(...shared.lines);
  report.failed += shared.failed;
}
for (const line of report.lines) console.log(line);
globalThis.report = report;
