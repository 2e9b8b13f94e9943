// The Node line a run is on: scripts/test_npm.ts runs the suite once for each
// line and names in FETCHLINE_NODE_LINE the one it started. A run on another
// Node than named would repeat a line and leave the named one untested, and a
// line CI runs must be one the package's `engines` range admits.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const expected = process.env.FETCHLINE_NODE_LINE;

test("the suite runs on the Node line it was started for", {
  skip: expected === undefined && "FETCHLINE_NODE_LINE is unset: run by deno task test:npm",
}, () => {
  assert.equal(process.versions.node.split(".")[0], expected, process.version);
});

/** `[major, minor, patch]` of a version such as `22.19.0` or `22` (a part left out is 0). */
function parts(version) {
  const match = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(version);
  if (match === null) throw new Error(`Unreadable version: ${version}`);
  return match.slice(1).map((part) => Number(part ?? 0));
}

/** -1, 0 or 1 as `a` is before, the same as, or after `b`. */
function compare(a, b) {
  for (let index = 0; index < 3; index++) {
    if (a[index] !== b[index]) return Math.sign(a[index] - b[index]);
  }
  return 0;
}

/**
 * Whether `version` is in `range`: comparators `^x.y.z` (same major, not
 * before) or `>=x.y.z`, joined by `||`; any other form fails, to be taught here.
 */
function satisfies(version, range) {
  const current = parts(version);
  return range.split("||").map((entry) => entry.trim()).some((entry) => {
    const caret = /^\^(.+)$/.exec(entry);
    if (caret !== null) {
      const floor = parts(caret[1]);
      return current[0] === floor[0] && compare(current, floor) >= 0;
    }
    const atLeast = /^>=(.+)$/.exec(entry);
    if (atLeast !== null) return compare(current, parts(atLeast[1])) >= 0;
    throw new Error(`Unreadable engines comparator: ${entry}`);
  });
}

test("the package's engines range admits the Node the suite runs on", () => {
  const file = new URL(import.meta.resolve("@fetchline/fetchline/package.json"));
  const { engines } = JSON.parse(readFileSync(file, "utf8"));
  assert.ok(satisfies(process.versions.node, engines.node), `${process.version}, ${engines.node}`);
  assert.ok(satisfies("22.19.0", engines.node) && !satisfies("22.18.0", engines.node));
  assert.ok(!satisfies("20.20.2", engines.node) && satisfies("24.0.0", engines.node));
});
