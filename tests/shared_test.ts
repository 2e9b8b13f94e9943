// The shared behavioural suite (tests/shared/) on Deno, against the source:
// one Deno.test per shared test, so the sanitizers check each of them. The
// fixture runs as its own process (tests/shared/fixture_server.mjs on Node),
// as it does for every runtime; it exits when this process ends. Arguments
// after `--` keep only the areas they name:
// `deno test ... tests/shared_test.ts -- client`.

import * as mod from "../mod.ts";
import * as cache from "../cache.ts";
import * as traffic from "../traffic.ts";
import * as har from "../har.ts";
import * as testing from "../testing.ts";
import * as sse from "../sse.ts";
import * as pagination from "../paginate.ts";
import * as signing from "../signing.ts";
import { toCurl } from "../utils.ts";
import { bounded, collect, summary } from "./shared/suite.mjs";
import * as areas from "./shared/areas.mjs";

const folder = new URL("./shared/", import.meta.url);
const notAreas = new Set([
  "areas.mjs",
  "assert.mjs",
  "fixture_server.mjs",
  "package_lib.mjs",
  "runtimes.mjs",
  "suite.mjs",
]);

/** Starts the fixture process and reads the line that gives its URLs. */
async function startFixture(): Promise<{ url: string; otherUrl: string; refusedUrl: string }> {
  const child = new Deno.Command("node", {
    args: [decodeURIComponent(new URL("fixture_server.mjs", folder).pathname)],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`The fixture process ended before its URLs: ${text}`);
    text += value;
  }
  reader.releaseLock();
  child.unref();
  return JSON.parse(text.slice(0, text.indexOf("\n")));
}

const fixture = await startFixture();
const env = {
  lib: {
    ...mod,
    ...cache,
    ...traffic,
    ...har,
    ...testing,
    ...sse,
    ...pagination,
    ...signing,
    toCurl,
  },
  fixture,
  runtime: "deno",
};

Deno.test("shared suite: every area file is listed in areas.mjs", async () => {
  const listed = new Set(Object.keys(areas));
  for await (const entry of Deno.readDir(folder)) {
    const area = entry.name.replace(/\.mjs$/, "");
    if (entry.isFile && entry.name.endsWith(".mjs") && !notAreas.has(entry.name)) {
      if (!listed.has(area)) throw new Error(`tests/shared/${entry.name} is not in areas.mjs`);
    }
  }
});

const counts = { passed: 0, failed: 0, skipped: 0 };
for (const test of collect(areas, env, Deno.args)) {
  if (test.skip !== undefined) counts.skipped++;
  Deno.test({
    name: `shared ${test.name}`,
    ignore: test.skip !== undefined,
    async fn() {
      try {
        await bounded(test.run);
        counts.passed++;
      } catch (error) {
        counts.failed++;
        throw error;
      }
    },
  });
}

// Deno runs a file's tests in the order they were registered: this one last.
Deno.test("shared suite: the closing line", () => {
  console.log(summary("deno", counts));
});
