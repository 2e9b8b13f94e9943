// Loads the packages the Node benchmarks run (bench/node_throughput.mjs,
// bench/node_streams.mjs) from the folder npm installed them into, outside
// the repository.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Reads a package.json of the deps folder, or undefined when the package is absent. */
export function packageJson(deps, name) {
  const path = join(deps, "node_modules", name, "package.json");
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

/** Picks the ESM entry of an `exports` value for Node (conditions node, import, default). */
function exportTarget(exports) {
  if (typeof exports === "string") return exports;
  if (Array.isArray(exports)) return exportTarget(exports[0]);
  if (exports === null || typeof exports !== "object") return undefined;
  if ("." in exports) return exportTarget(exports["."]);
  for (const [condition, target] of Object.entries(exports)) {
    if (condition === "node" || condition === "import" || condition === "default") {
      const found = exportTarget(target);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Imports a package installed in the deps folder. */
export async function load(deps, name) {
  const pkg = packageJson(deps, name);
  if (pkg === undefined) throw new Error(`${name} is not installed in ${deps}`);
  const entry = exportTarget(pkg.exports) ?? pkg.module ?? pkg.main ?? "index.js";
  return await import(pathToFileURL(join(deps, "node_modules", name, entry)).href);
}
