// The shared behavioural suite (tests/shared/, copied next to this file as
// shared/ by scripts/test_npm.ts) against the packed npm build: one node:test
// test per shared test, so `node --test` counts them with the rest of the
// Node suite. The fixture runs as its own process, as on every runtime, and
// exits when this one ends. FETCHLINE_SHARED_AREAS (area names joined by
// commas) keeps only those areas.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { lib } from "./shared/package_lib.mjs";
import * as areas from "./shared/areas.mjs";
import { bounded, collect, summary } from "./shared/suite.mjs";

/** Starts the fixture process and reads the line that gives its URLs. */
async function startFixture() {
  const child = spawn(process.execPath, [
    fileURLToPath(import.meta.resolve("./shared/fixture_server.mjs")),
  ], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let text = "";
  for await (const chunk of child.stdout) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  if (!text.includes("\n")) throw new Error(`The fixture process ended before its URLs: ${text}`);
  return { child, fixture: JSON.parse(text.slice(0, text.indexOf("\n"))) };
}

const { child, fixture } = await startFixture();
const only = process.env.FETCHLINE_SHARED_AREAS?.split(",").filter(Boolean);
const counts = { passed: 0, failed: 0, skipped: 0 };
const env = {
  lib,
  fixture,
  runtime: "node",
};

for (const shared of collect(areas, env, only)) {
  if (shared.skip !== undefined) {
    counts.skipped++;
    test(shared.name, { skip: shared.skip }, () => {});
    continue;
  }
  test(shared.name, async () => {
    try {
      await bounded(shared.run);
      counts.passed++;
    } catch (error) {
      counts.failed++;
      throw error;
    }
  });
}

after(() => {
  child.stdin.end();
  console.log(summary(`node ${process.versions.node}`, counts));
});
