/**
 * Which build of the npm package each bundler and runtime picks by the
 * `exports` conditions it sets: esbuild (pinned, from npm) bundles an entry
 * that imports every subpath of the package installed in a folder, with the
 * conditions of each case in {@linkcode CASES}, and the metafile says which
 * of the package's files came in. workerd's case is wrangler's: it bundles a
 * worker with the `workerd`, `worker` and `browser` conditions. The Web build
 * (workerd's, Bun's and Deno's cases) must come in whole, with no `node:`
 * module and no undici; the browser build (a web worker's and a browser
 * bundler's) so too, and with none of what a browser cannot use: no
 * tough-cookie, no proxy routing (proxy.js), no Deno pool nor its proxies
 * (`createHttpClient`); the Node build (Node's case) with undici.
 *
 * scripts/test_runtimes.ts runs it on the package it installed.
 *
 * @module
 */

const ESBUILD = "esbuild@0.28.2";
const PACKAGE = "@fetchline/fetchline";
const SUBPATHS = ["", "/models", "/interfaces", "/config", "/utils"];

/** A build of the package. */
type Build = "web" | "browser" | "node";

/** Each build's folder in the package. */
const FOLDERS: Record<Build, string> = { web: "web/", browser: "browser/", node: "" };

/** The modules of the Web build the browser build must not bring in. */
const NOT_IN_BROWSER = ["src/transport/proxy.js"];
/**
 * The line the package's bundled files have before each module's code: its
 * source (a build of a module a file has the module's own file instead).
 */
const MODULE_LINE = /^\/\/ (src\/\S+\.js)$/gm;

/** A bundler's or runtime's conditions (as esbuild flags), and the build they must pick. */
export const CASES: readonly { name: string; flags: string[]; build: Build }[] = [
  {
    name: "workerd (wrangler's conditions)",
    flags: ["--platform=neutral", "--conditions=workerd,worker,browser"],
    build: "web",
  },
  { name: "a web worker", flags: ["--platform=neutral", "--conditions=worker"], build: "browser" },
  { name: "a browser bundler", flags: ["--platform=browser"], build: "browser" },
  { name: "Bun", flags: ["--platform=node", "--conditions=bun,node"], build: "web" },
  { name: "Deno", flags: ["--platform=node", "--conditions=deno,node"], build: "web" },
  { name: "Node", flags: ["--platform=node"], build: "node" },
];

interface Metafile {
  inputs: Record<string, { imports: { path: string; external?: boolean }[] }>;
}

/**
 * What is wrong with the files `meta` bundled, into the output `code`, for a
 * case that must pick `build`; `sources` are the modules of the sources in
 * the package's files that came in (scripts/build_npm.ts bundles them), each
 * with its code.
 */
export function problems(
  meta: Metafile,
  build: Build,
  code: string,
  sources: ReadonlyMap<string, string>,
): string[] {
  const ours = Object.keys(meta.inputs)
    .map((input) => input.match(/node_modules\/@fetchline\/fetchline\/(.*)$/)?.[1])
    .filter((path) => path !== undefined);
  const imports = Object.values(meta.inputs).flatMap((input) => input.imports)
    .filter((found) => found.external).map((found) => found.path);
  const found: string[] = [];
  const folderOf = (path: string) =>
    (Object.keys(FOLDERS) as Build[]).find((other) =>
      FOLDERS[other] !== "" && path.startsWith(FOLDERS[other])
    ) ?? "node";
  const wrong = ours.filter((path) => folderOf(path) !== build);
  if (wrong.length > 0) found.push(`files of another build: ${wrong.slice(0, 3).join(", ")}`);
  const entries = SUBPATHS.map((subpath) =>
    `${FOLDERS[build]}${subpath === "" ? "mod" : subpath.slice(1)}.js`
  );
  const missing = entries.filter((entry) => !ours.includes(entry));
  if (missing.length > 0) found.push(`no ${missing.join(", ")}`);
  const node = imports.filter((path) => path.startsWith("node:") || path === "undici");
  if (build !== "node" && node.length > 0) {
    found.push(`imports ${[...new Set(node)].join(", ")}`);
  }
  // The Node runtime loads undici: imported, or required when a pool needs it
  // (a require that esbuild does not follow).
  const runtime = sources.get("src/transport/runtime.js") ?? "";
  if (
    build === "node" && !imports.includes("undici") &&
    !/(from\s*|\(\s*)["']undici["']/.test(runtime)
  ) found.push("no undici import");
  if (build === "browser") {
    if (imports.includes("tough-cookie")) found.push("imports tough-cookie");
    // Without the lines that name the modules, the check would pass for nothing.
    if (!sources.has("src/transport/runtime.js")) found.push("names no module's source");
    const unusable = NOT_IN_BROWSER.filter((path) => sources.has(path));
    if (unusable.length > 0) found.push(`carries ${unusable.join(", ")}`);
    // A call, not a comment that names it.
    if (/\.createHttpClient\(/.test(code)) found.push("carries Deno's pool (createHttpClient)");
  }
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
    let found = [new TextDecoder().decode(output.stderr).trim()];
    if (output.success) {
      const meta: Metafile = JSON.parse(
        await Deno.readTextFile(`${folder}/conditions-${i}.json`),
      );
      const sources = new Map<string, string>();
      for (const input of Object.keys(meta.inputs)) {
        if (!input.includes(`node_modules/${PACKAGE}/`)) continue;
        const text = await Deno.readTextFile(`${folder}/${input}`);
        const own = /\/(src\/.*\.js)$/.exec(input)?.[1];
        if (own !== undefined) sources.set(own, text);
        const parts = [...text.matchAll(MODULE_LINE)];
        for (const [i, part] of parts.entries()) {
          const code = text.slice(part.index, parts[i + 1]?.index);
          sources.set(part[1]!, (sources.get(part[1]!) ?? "") + code);
        }
      }
      const code = await Deno.readTextFile(`${folder}/conditions-${i}.js`);
      found = problems(meta, build, code, sources);
    }
    console.log(
      `${found.length === 0 ? "ok" : "not ok"} ${name}: the ${build} build${
        found.length === 0 ? "" : `: ${found.join("; ")}`
      }`,
    );
    if (found.length > 0) failed.push(name);
  }
  return failed;
}
