// The public surface, pinned: each entry point exports exactly the names in
// tests/node/exports.json, values and types, so a name cannot appear or
// vanish without this file saying so. The Node suite checks the npm build's
// values against the same list (tests/node/exports.test.mjs).

import assert from "node:assert/strict";

type Surface = Record<string, { values: string[]; types: string[] }>;

const root = new URL("../", import.meta.url);
const pinned: Surface = JSON.parse(
  await Deno.readTextFile(new URL("tests/node/exports.json", root)),
);

/**
 * The names a re-export-only entry file exports, from its text: `export {…}`
 * and `export type {…}` lists, and `export *` followed into the named file.
 */
async function exportedNames(file: URL): Promise<{ values: Set<string>; types: Set<string> }> {
  const text = await Deno.readTextFile(file);
  const values = new Set<string>();
  const types = new Set<string>();
  for (const [, type, list] of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s+from/g)) {
    for (const item of list!.split(",").map((name) => name.trim()).filter(Boolean)) {
      const name = item.split(/\s+as\s+/).pop()!.replace(/^type\s+/, "");
      (type || item.startsWith("type ") ? types : values).add(name);
    }
  }
  for (const [, target] of text.matchAll(/export\s+\*\s+from\s+"([^"]+)"/g)) {
    const inner = await exportedNames(new URL(target!, file));
    for (const name of inner.values) values.add(name);
    for (const name of inner.types) types.add(name);
  }
  return { values, types };
}

for (const [entry, surface] of Object.entries(pinned)) {
  Deno.test(`${entry} exports exactly the pinned values and types`, async () => {
    const url = new URL(entry, root);
    const { values, types } = await exportedNames(url);
    assert.deepEqual([...values].sort(), surface.values, "value exports in the file");
    assert.deepEqual([...types].sort(), surface.types, "type exports in the file");
    const loaded = Object.keys(await import(url.href)).sort();
    assert.deepEqual(loaded, surface.values, "value exports at run time");
  });
}

Deno.test("Every root file of deno.json's exports is pinned", async () => {
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const files = Object.values(denoJson.exports as Record<string, string>)
    .map((path) => path.slice(2)).sort();
  assert.deepEqual(files, Object.keys(pinned).sort());
});

Deno.test("Every exception the errors guide's list names is exported from the entry point it says", async () => {
  const guide = await Deno.readTextFile(new URL("docs/errors-and-retries.md", root));
  const start = guide.indexOf("\n## Errors\n");
  assert.ok(start >= 0, "the errors guide has its Errors section");
  const section = guide.slice(start, guide.indexOf("\nA permission error", start));
  const named = new Set(section.match(/\b[A-Z]\w*Exception\b/g) ?? []);
  assert.ok(named.size >= 10, `The errors guide's list names ${named.size} exceptions`);
  for (const name of named) {
    // A line that names another entry point (`@fetchline/fetchline/testing`) says where it lives.
    const line = section.split(/\n- /).find((item) => item.includes(`\`${name}\``))!;
    const entry = line.match(/`@fetchline\/fetchline\/(\w+)`/)?.[1];
    const file = entry === undefined ? "mod.ts" : `${entry}.ts`;
    assert.ok(pinned[file]?.values.includes(name), `${name} is not exported from ${file}`);
  }
});

Deno.test("The reconnecting SSE reader and pagination are their entry points' functions, not the client's", async () => {
  const { HttpClient } = await import(new URL("mod.ts", root).href);
  for (const method of ["events", "paginate", "paginateItems"]) {
    assert.equal(method in HttpClient.prototype, false, method);
  }
  const sse = await import(new URL("sse.ts", root).href);
  const pagination = await import(new URL("paginate.ts", root).href);
  assert.equal(typeof sse.eventSource, "function");
  assert.equal(typeof pagination.paginate, "function");
  assert.equal(typeof pagination.paginateItems, "function");
});

Deno.test("Signing is its own entry point: mod.ts exports no signer", async () => {
  const main = await import(new URL("mod.ts", root).href);
  const signing = await import(new URL("signing.ts", root).href);
  for (const name of ["DPoP", "httpSignatures", "contentDigest", "verifySignature"]) {
    assert.equal(name in main, false, name);
    assert.equal(typeof signing[name], "function", name);
  }
});
