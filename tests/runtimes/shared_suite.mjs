// The shared behavioural suite (tests/shared/, copied next to this file as
// shared/) on a runtime with no test runner of ours, here Bun, against the
// installed npm package: scripts/test_runtimes.ts starts the fixture process
// and gives its JSON line ({ url, otherUrl, refusedUrl }) as the argument.
// One TAP-like line per test, then `shared suite on bun: …`; the exit code
// is 1 on any failure. FETCHLINE_SHARED_AREAS (names joined by commas) keeps
// only those areas.

import process from "node:process";
import { lib } from "./shared/package_lib.mjs";
import * as areas from "./shared/areas.mjs";
import { runSuite } from "./shared/suite.mjs";

const runtime = globalThis.Bun !== undefined
  ? "bun"
  : globalThis.Deno !== undefined
  ? "deno"
  : "node";
const fixture = JSON.parse(process.argv[2]);
const only = process.env.FETCHLINE_SHARED_AREAS?.split(",").filter(Boolean);
const result = await runSuite(areas, {
  lib,
  fixture,
  runtime,
}, {
  only,
  onLine: (line) => console.log(line),
});
process.exit(result.failed > 0 ? 1 : 0);
