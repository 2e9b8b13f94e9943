// The full load test, run by `deno task test:load` with
// --expose-gc so the heap figures are taken after a collection.

import assert from "node:assert/strict";
import { describeLoad, runLoad } from "./run_load.ts";

Deno.test("HttpClient completes 10,000 requests at concurrency 200, each matched to its response, in bounded memory", async () => {
  const result = await runLoad(10_000, 200);
  console.log(describeLoad(result));
  assert.deepEqual(result.errors, []);
  assert.deepEqual(result.mismatched, []);
  assert.equal(result.served, 10_000);
  assert.ok(result.collected, "run with --v8-flags=--expose-gc");
  const growth = result.heapAfter - result.heapBefore;
  // Keeping even 1 KB per request would add 10 MB.
  assert.ok(growth < 8 * 2 ** 20, `the heap grew by ${growth} bytes`);
});
