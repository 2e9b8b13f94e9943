// Which Node lines the npm build's suite runs on (scripts/test_npm.ts): the
// machine's own line when it is 22 or later, the LTS lines from the registry,
// or the lines FETCHLINE_NODE_LINES names.

import assert from "node:assert/strict";
import { nodeLines } from "../scripts/node_lines.ts";

const started = (spec: string | undefined, machine: number | undefined) =>
  nodeLines(spec, machine).map((line) => [line.major, [line.command, ...line.args].join(" ")]);

Deno.test("nodeLines() runs the LTS lines from the registry beside a machine's end-of-life Node 20", () => {
  assert.deepEqual(started(undefined, 20), [
    [22, "npx -y node@22"],
    [24, "npx -y node@24"],
  ]);
  assert.deepEqual(started("  ", 20), started(undefined, 20));
});

Deno.test("nodeLines() runs an LTS line the machine has on the machine's node, once", () => {
  assert.deepEqual(started(undefined, 22), [[22, "node"], [24, "npx -y node@24"]]);
  assert.deepEqual(started(undefined, 25), [
    [22, "npx -y node@22"],
    [24, "npx -y node@24"],
    [25, "node"],
  ]);
});

Deno.test("nodeLines() leaves out a machine's Node older than 22, or none", () => {
  assert.deepEqual(started(undefined, 18), [[22, "npx -y node@22"], [24, "npx -y node@24"]]);
  assert.deepEqual(started(undefined, undefined), started(undefined, 18));
});

Deno.test("nodeLines() runs the lines FETCHLINE_NODE_LINES names, sorted, each once", () => {
  assert.deepEqual(started("24, 22,24", 22), [[22, "node"], [24, "npx -y node@24"]]);
  assert.deepEqual(started("24", 22), [[24, "npx -y node@24"]]);
});

Deno.test("nodeLines() refuses an entry that is not a major of 22 or later, naming the variable", () => {
  for (const spec of ["20", "18", "22.1", "v22", "22,", "lts", "1e2"]) {
    assert.throws(
      () => nodeLines(spec, 22),
      (error: unknown) =>
        error instanceof RangeError &&
        /^Invalid FETCHLINE_NODE_LINES: expected Node major versions of 22 or later/.test(
          error.message,
        ),
      spec,
    );
  }
});
