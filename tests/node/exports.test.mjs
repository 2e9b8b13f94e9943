// The npm build's public surface: every subpath exports exactly the values
// pinned in exports.json, the list the Deno suite checks the sources against.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const pinned = JSON.parse(readFileSync(new URL("./exports.json", import.meta.url), "utf8"));

for (const [entry, { values }] of Object.entries(pinned)) {
  const subpath = entry === "mod.ts" ? "" : `/${entry.replace(/\.ts$/, "")}`;
  test(`@fetchline/fetchline${subpath} exports exactly the pinned values`, async () => {
    const loaded = await import(`@fetchline/fetchline${subpath}`);
    assert.deepEqual(Object.keys(loaded).sort(), values);
  });
}
