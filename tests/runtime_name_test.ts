import assert from "node:assert/strict";
import { noFileSystem, runtimeName } from "../src/errors.ts";

// Each runtime's globals as it gives them: Bun and workerd (with its Node
// compatibility) also give process.versions.node.
const node = { process: { versions: { node: "24.0.0" } } };

Deno.test("runtimeName() names the runtime from its globals", () => {
  assert.equal(runtimeName(), "Deno");
  assert.equal(runtimeName({ Deno: {}, ...node }), "Deno");
  assert.equal(runtimeName({ Bun: {}, ...node }), "Bun");
  assert.equal(runtimeName({ navigator: { userAgent: "Cloudflare-Workers" }, ...node }), "workerd");
  assert.equal(runtimeName(node), "Node");
  assert.equal(runtimeName({ document: {}, navigator: { userAgent: "Mozilla/5.0" } }), "a browser");
  assert.equal(runtimeName({ WorkerGlobalScope: class {} }), "a web worker");
  assert.equal(runtimeName({}), "an unknown runtime");
});

Deno.test("noFileSystem() names the field and the runtime", () => {
  assert.equal(
    noFileSystem("files.doc", { document: {} }),
    "Invalid files.doc: a file path needs Deno, Node or Bun (this is a browser); give a Blob or bytes",
  );
});
