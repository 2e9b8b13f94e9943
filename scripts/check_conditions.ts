/**
 * Which build of the npm package each bundler and runtime picks by the
 * `exports` conditions it sets: esbuild (pinned, from npm) bundles an entry
 * that imports every subpath of the package installed in a folder, with the
 * conditions of each case in {@linkcode CASES}, and the metafile says which
 * of the package's files came in. workerd's case is wrangler's: it bundles a
 * worker with the `workerd`, `worker` and `browser` conditions. The Web build
 * must come in whole, with no `node:` module and no undici; the Node build
 * (Node's case) with undici.
 *
 * scripts/test_runtimes.ts runs it on the package it installed.
 *
 * @module
 */

const ESBUILD = "esbuild@0.28.2";
const PACKAGE = "@fetchline/fetchline";
const SUBPATHS = ["", "/models", "/interfaces", "/config", "/utils"];

/** A bundler's or runtime's conditions (as esbuild flags), and the build they must pick. */
export const CASES: readonly { name: string; flags: string[]; build: "web" | "node" }[] = [
  {
    name: "workerd (wrangler's conditions)",
    flags: ["--platform=neutral", "--conditions=workerd,worker,browser"],
    build: "web",
  },
  { name: "a web worker", flags: ["--platform=neutral", "--conditions=worker"], build: "web" },
  { name: "a browser bundler", flags: ["--platform=browser"], build: "web" },
  { name: "Bun", flags: ["--platform=node", "--conditions=bun,node"], build: "web" },
  { name: "Deno", flags: ["--platform=node", "--conditions=deno,node"], build: "web" },
  { name: "Node", flags: ["--platform=node"], build: "node" },
];

interface Metafile {
  inputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
}

/** What is wrong with the files `meta` bundled for a case that must pick `build`. */
export function problems(meta: Metafile, build: "web" | "node"): string[] {
  const ours = Object.keys(meta.inputs)
    .map((input) => input.match(/node_modules\/@fetchline\/fetchline\/(.*)$/)?.[1])
    .filter((path) => path !== undefined);
  const imports = Object.values(meta.inputs).flatMap((input) => input.imports)
    .filter((found) => found.external).map((found) => found.path);
  const found: string[] = [];
  const wrong = ours.filter((path) => path.startsWith("web/") !== (build === "web"));
  if (wrong.length > 0) found.push(`files of the other build: ${wrong.slice(0, 3).join(", ")}`);
  const entries = SUBPATHS.map((subpath) =>
    `${build === "web" ? "web/" : ""}${subpath === "" ? "mod" : subpath.slice(1)}.js`
  );
  const missing = entries.filter((entry) => !ours.includes(entry));
  if (missing.length > 0) found.push(`no ${missing.join(", ")}`);
  const node = imports.filter((path) => path.startsWith("node:") || path === "undici");
  if (build === "web" && node.length > 0) found.push(`imports ${[...new Set(node)].join(", ")}`);
  if (build === "node" && !imports.includes("undici")) found.push("no undici import");
  return found;
}

/**
 * Bundles every case in `folder`, where the package is installed; the
 * names of the cases that picked the wrong build, each with what was wrong.
 */
export async function checkConditions(folder: string): Promise<string[]> {
  const entry = SUBPATHS.map((subpath, i) => `export * as m${i} from "${PACKAGE}${subpath}";`);
  await Deno.writeTextFile(`${folder}/conditions-entry.mjs`, entry.join("\n") + "\n");
  const failed: string[] = [];
  for (const [i, { name, flags, build }] of CASES.entries()) {
    const args = [
      "-y",
      ESBUILD,
      "conditions-entry.mjs",
      "--bundle",
      "--format=esm",
      ...flags,
      // Left out, so the metafile shows them as the imports they are.
      "--external:undici",
      "--external:tough-cookie",
      "--external:node:*",
      `--outfile=conditions-${i}.js`,
      `--metafile=conditions-${i}.json`,
      "--log-level=error",
    ];
    const output = await new Deno.Command("npx", { args, cwd: folder, stdin: "null" }).output();
    const found = output.success
      ? problems(JSON.parse(await Deno.readTextFile(`${folder}/conditions-${i}.json`)), build)
      : [new TextDecoder().decode(output.stderr).trim()];
    console.log(
      `${found.length === 0 ? "ok" : "not ok"} ${name}: the ${build} build${
        found.length === 0 ? "" : `: ${found.join("; ")}`
      }`,
    );
    if (found.length > 0) failed.push(name);
  }
  return failed;
}
