// The load test at the suite's scale; the full 10,000 requests
// at concurrency 200, with heap figures after GC, run in `deno task
// test:load` (tests/load/). The sanitizers check that nothing is left open.

import assert from "node:assert/strict";
import { runLoad } from "./load/run_load.ts";

Deno.test("HttpClient completes 1,000 requests at concurrency 50, each matched to its response", async () => {
  const result = await runLoad(1_000, 50);
  assert.deepEqual(result.errors, []);
  assert.deepEqual(result.mismatched, []);
  assert.equal(result.served, 1_000);
});
