/**
 * `deno task size`: the bytes the npm package (its browser build, picked by
 * the `browser` condition) adds to a browser bundle that calls
 * `createClient(url).get(path)`, beside ky and ofetch for
 * the same call, and what in it weighs most; writes the "size" section of
 * bench/RESULTS.md.
 *
 * Packs `npm/` (built by `deno task build:npm`, which the task runs first),
 * installs the tarball, ky and ofetch (the versions deno.lock resolved) into
 * a temporary folder, bundles each entry with esbuild (pinned) for the
 * browser, minified, into one file as esbuild bundles by default (no code
 * splitting: what a dynamic `import()` loads is in that file too, as the
 * contract's weight measures it), and gzips the output with
 * `CompressionStream`. Each byte of a bundle is counted to the module of the
 * sources it came from through esbuild's source map of the bundle: a file
 * of the package is a module's own, or bundled by scripts/build_npm.ts with
 * a `// src/….js` line before each module's code. `--print` prints the
 * section instead of writing it.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { loadAverage, opening, table, writeSection } from "./_results.ts";

const ESBUILD = "0.28.2";
const FLAGS = "--bundle --minify --format=esm --platform=browser --conditions=browser";
const PACKAGE = "@fetchline/fetchline";
/** API.md "Weight": the basic bundle's most gzipped bytes (the goal beyond: under axios's 22.5 KB). */
const TARGET = 30_000;
/**
 * The basic bundle measured so (one file) before the browser build: the Web
 * build, with tough-cookie, proxy routing and Deno's pool in it.
 */
const BEFORE = { commit: "e800ea2", min: 267_115, gzip: 92_346 };
/** The basic bundle before the middleware seam carried its exchange facts (for the cache and traffic control). */
const BEFORE_FACTS = { commit: "b36e966", min: 88_224, gzip: 30_347 };

/**
 * What a bundle that only creates a client and sends a call must not carry:
 * the run fails when the basic bundle keeps one. Each is named by the
 * package's module it is in and, where that module holds what the call
 * needs too (the auth hooks live in one file with the token hook a client
 * can make), by a text only its own code holds (its options' name in its
 * messages, which minifying keeps); without one, the whole module must go.
 * A module that is not in the package, or a text that the bundle of the
 * whole package lacks, fails the run too: the check would pass for nothing.
 */
const SHAKEN = [
  { file: "src/auth/tokens.js", text: "TokenManager options" },
  { file: "src/auth/tokens.js", text: "client credentials options" },
  { file: "src/auth/hooks.js", text: "ApiKeyAuthHook options" },
  { file: "src/auth/hooks.js", text: "BasicAuthHook options" },
  { file: "src/auth/hooks.js", text: "CompositeAuthHook options" },
  { file: "src/auth/hooks.js", text: "AuthorizationHook options" },
  { file: "src/testing/mock_transport.js" },
];
const shakenName = ({ file, text }: { file: string; text?: string }) =>
  text === undefined ? file : `${file} ("${text}")`;

/** Each bundle: its name, what its row says, the entry's source. The first is the basic one. */
const ENTRIES = [
  {
    name: "fetchline",
    description: "`createClient(url).get(path)`",
    source: `import { createClient } from "${PACKAGE}";
export const main = async (url) => (await createClient(url).get("/items")).json();`,
  },
  {
    name: "fetchline whole",
    description: "`export *` of the package",
    source: `export * from "${PACKAGE}";`,
  },
  {
    name: "ky",
    description: "`ky.get(url).json()`",
    source: `import ky from "ky";\nexport const main = (url) => ky.get(url + "/items").json();`,
  },
  {
    name: "ofetch",
    description: "`ofetch(url)`",
    source:
      `import { ofetch } from "ofetch";\nexport const main = (url) => ofetch(url + "/items");`,
  },
];

interface Metafile {
  inputs: Record<string, unknown>;
}

/** A source map's `sources` and `mappings`, as esbuild writes it. */
interface SourceMap {
  sources: string[];
  mappings: string;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The numbers of one segment of a source map's `mappings` (base-64 VLQs). */
function decodeSegment(segment: string): number[] {
  const numbers: number[] = [];
  let [value, shift] = [0, 0];
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) shift += 5;
    else {
      numbers.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2);
      [value, shift] = [0, 0];
    }
  }
  return numbers;
}

/**
 * The bytes of the bundled `code` that came from each input line: each
 * segment of `map` counts from its column to the next segment's (or its
 * line's end); `count` gets its input and line (0-based), or none for the
 * bundler's own code.
 */
function countBytes(
  code: string,
  map: SourceMap,
  count: (input: string | undefined, line: number, bytes: number) => void,
) {
  const encoder = new TextEncoder();
  const lines = code.split("\n");
  let [source, line] = [0, 0];
  for (const [i, mappings] of map.mappings.split(";").entries()) {
    const text = lines[i] ?? "";
    let column = 0;
    const segments = mappings === "" ? [] : mappings.split(",").map(decodeSegment);
    // Columns of a source map count UTF-16 code units, as string indexes do.
    const starts = segments.map((numbers) => (column += numbers[0]!));
    for (const [j, numbers] of segments.entries()) {
      const bytes = encoder.encode(text.slice(starts[j], starts[j + 1] ?? text.length)).length;
      if (numbers.length < 4) {
        count(undefined, 0, bytes);
        continue;
      }
      source += numbers[1]!;
      line += numbers[2]!;
      count(map.sources[source], line, bytes);
    }
  }
}

/** The line esbuild writes before each module's code in the package's bundled files: its source. */
const MODULE_LINE = /^\/\/ (src\/\S+\.js)$/;

/** The modules of the sources in the package's file `text`: where each part starts, by line. */
function modulesByLine(text: string): { line: number; source: string }[] {
  return text.split("\n").flatMap((line, i) => {
    const source = MODULE_LINE.exec(line)?.[1];
    return source === undefined ? [] : [{ line: i, source }];
  });
}

const decoder = new TextDecoder();

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stdin: "null" }).output();
  if (!output.success) {
    throw new Error(`${command} ${args.join(" ")} failed: ${decoder.decode(output.stderr)}`);
  }
  return decoder.decode(output.stdout);
}

/** Minified and gzipped bytes of the file `path`. */
async function bytesOf(path: string) {
  const bytes = await Deno.readFile(path);
  const gzipped = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return { min: bytes.byteLength, gzip: (await new Response(gzipped).arrayBuffer()).byteLength };
}

/**
 * Bundles `entry` in `dir` into one file: its bytes, and each input's bytes
 * in it (the package's by the module of the sources they came from, its
 * path short), from esbuild's source map of the bundle (written beside it,
 * not named in it).
 */
async function bundle(dir: string, entry: string) {
  const outfile = `out-${entry.replace(/\.mjs$/, ".js")}`;
  const args = ["-y", `esbuild@${ESBUILD}`, entry, ...FLAGS.split(" "), `--outfile=${outfile}`];
  const more = [`--metafile=${outfile}.json`, "--sourcemap=external", "--log-level=warning"];
  await run("npx", [...args, ...more], dir);
  const meta: Metafile = JSON.parse(await Deno.readTextFile(`${dir}/${outfile}.json`));
  const builds = new Set<string>();
  for (const input of Object.keys(meta.inputs)) {
    const build = /@fetchline\/fetchline\/(?:(web|browser)\/)?[^/]+\.js$/.exec(input);
    if (build) builds.add(build[1] === undefined ? "the Node build" : `${build[1]}/`);
  }
  const text = await Deno.readTextFile(`${dir}/${outfile}`);
  const map: SourceMap = JSON.parse(await Deno.readTextFile(`${dir}/${outfile}.map`));
  const modules = new Map<string, { line: number; source: string }[]>();
  for (const source of map.sources) {
    if (!source.includes(`${PACKAGE}/`)) continue;
    modules.set(source, modulesByLine(await Deno.readTextFile(`${dir}/${source}`)));
  }
  const inputs = new Map<string, number>();
  countBytes(text, map, (input, line, bytes) => {
    const path = input === undefined
      ? "(esbuild's own code)"
      : modules.get(input)?.findLast((module) => module.line <= line)?.source ??
        input.replace(/^.*@fetchline\/fetchline\/(?:[a-z]+\/)?(?=src\/)/, "")
          .replace(/^node_modules\/\.pnpm\/[^/]+\//, "");
    inputs.set(path, (inputs.get(path) ?? 0) + bytes);
  });
  return { size: await bytesOf(`${dir}/${outfile}`), inputs, builds: [...builds], text };
}

/** The folder a share is counted in: `src/client`, a package under node_modules, the entry. */
function folderOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] === "src") return parts.slice(0, 2).join("/");
  if (parts[0] === "node_modules") {
    return parts.slice(0, parts[1]?.startsWith("@") ? 3 : 2).join("/");
  }
  return parts[0]!;
}

/** The version deno.lock resolved for the npm package `name`. */
async function lockedVersion(name: string): Promise<string> {
  const lock = JSON.parse(await Deno.readTextFile("deno.lock"));
  const found = Object.entries(lock.specifiers as Record<string, string>)
    .find(([key]) => key.startsWith(`npm:${name}@`));
  if (found === undefined) throw new Error(`deno.lock has no ${name}`);
  return found[1];
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const cell = ({ min, gzip }: { min: number; gzip: number }) =>
  min === 0
    ? "—"
    : `${kb(min)} / ${kb(gzip)} (${min.toLocaleString("en-US")} / ${
      gzip.toLocaleString("en-US")
    } B)`;

const { values } = parseArgs({ args: Deno.args, options: { print: { type: "boolean" } } });
const [started, loadBefore] = [new Date(), loadAverage()];
const work = await Deno.makeTempDir({ prefix: "fetchline-size-" });
try {
  const npmDir = await Deno.realPath("npm");
  const packed = await run("npm", ["pack", "--silent", "--pack-destination", work], npmDir);
  const version = JSON.parse(await Deno.readTextFile(`${npmDir}/package.json`)).version;
  const others = [`ky@${await lockedVersion("ky")}`, `ofetch@${await lockedVersion("ofetch")}`];
  await Deno.writeTextFile(`${work}/package.json`, '{"private": true, "type": "module"}');
  const install = ["install", "--silent", "--no-audit", "--no-fund", "--no-package-lock"];
  await run("npm", [...install, `./${packed.trim().split("\n").pop()}`, ...others], work);
  const rows: string[][] = [];
  let top: string[][] = [];
  let spread = "";
  let picked: string[] = [];
  let basic = { min: 0, gzip: 0 };
  for (const [i, entry] of ENTRIES.entries()) {
    await Deno.writeTextFile(`${work}/entry${i}.mjs`, entry.source);
    const { size, inputs, builds, text } = await bundle(work, `entry${i}.mjs`);
    if (entry.name === "fetchline whole") {
      const stale = SHAKEN.filter((item) => item.text !== undefined && !text.includes(item.text));
      if (stale.length > 0) {
        throw new Error(`The whole package lacks: ${stale.map(shakenName).join(", ")}`);
      }
    }
    if (i === 0) {
      const browser = `${work}/node_modules/${PACKAGE}/browser`;
      const inPackage = new Set<string>();
      for await (const file of Deno.readDir(browser)) {
        if (!file.name.endsWith(".js")) continue;
        const text = await Deno.readTextFile(`${browser}/${file.name}`);
        for (const { source } of modulesByLine(text)) inPackage.add(source);
      }
      const inFiles = async (item: { file: string }) =>
        inPackage.has(item.file) ||
        await Deno.stat(`${browser}/${item.file}`).then(() => true, () => false);
      const missing = [];
      for (const item of SHAKEN) if (!await inFiles(item)) missing.push(shakenName(item));
      if (missing.length > 0) throw new Error(`The package has no ${missing.join(", ")}`);
      picked = builds;
      basic = size;
      const unshaken = SHAKEN.filter((item) =>
        inputs.has(item.file) && (item.text === undefined || text.includes(item.text))
      );
      if (unshaken.length > 0) {
        throw new Error(
          `The basic bundle keeps what it never calls: ${unshaken.map(shakenName).join(", ")}`,
        );
      }
      const share = (bytes: number) => `${(100 * bytes / size.min).toFixed(1)}%`;
      const sorted = [...inputs].sort((a, b) => b[1] - a[1]);
      top = sorted.slice(0, 10).map(([path, bytes], rank) => [
        String(rank + 1),
        `\`${path}\``,
        bytes.toLocaleString("en-US"),
        share(bytes),
      ]);
      const folders = new Map<string, number>();
      for (const [path, bytes] of sorted) {
        folders.set(folderOf(path), (folders.get(folderOf(path)) ?? 0) + bytes);
      }
      spread = `${inputs.size} modules; by folder: ${
        [...folders].sort((a, b) => b[1] - a[1]).map(([f, bytes]) => `${f} ${share(bytes)}`)
          .join(", ")
      }`;
    }
    rows.push([entry.name, entry.description, cell(size)]);
    console.error(`${entry.name}: ${size.min} B, ${size.gzip} B gzipped`);
  }
  const markdown = `${
    opening({ title: "Size", task: "size", file: "bench/size.ts", started, loadBefore })
  }
- Bundler: esbuild ${ESBUILD}, \`${FLAGS}\`, one file (no code splitting), from the packed npm
  package as a user installs it (the basic bundle took ${picked.join(" and ")} of it)
- Packages: ${PACKAGE}@${version}, ${others.join(", ")}

Each bundle is the one file esbuild writes: what a dynamic \`import()\` would load is in it too.
KB are 1,024 bytes; gzip is the platform's \`CompressionStream\`.

${table(["bundle", "entry", "min / min+gzip"], rows, 0)}

Target (API.md, "Weight"): the basic bundle at most ${TARGET.toLocaleString("en-US")} B gzipped: ${
    basic.gzip <= TARGET ? "met" : "**missed**"
  } (${
    basic.gzip.toLocaleString("en-US")
  } B). Before the browser build (commit ${BEFORE.commit}, the
Web build in one file, with tough-cookie and its public-suffix list, proxy routing and Deno's pool):
${
    cell(BEFORE)
  }. Before the middleware seam told its links their exchange (commit ${BEFORE_FACTS.commit}:
the facts, the background step and \`carryBody\` the cache and traffic control read): ${
    cell(BEFORE_FACTS)
  }.

The basic bundle's top contributors: the modules of the sources by bytes in the minified output
(each byte counted to a module through esbuild's source map of the bundle; before gzip). The run fails if it keeps any of ${SHAKEN.length} pieces a
client that only sends calls never needs (the token manager, its OAuth step, the other auth hooks,
the testing module's transport), each found by its module and a text only its code holds.

${table(["#", "input file", "bytes", "share of the bundle"], top, 2)}

The basic bundle's ${spread}.`;
  if (values.print) console.log(markdown);
  else await writeSection("size", markdown);
} finally {
  await Deno.remove(work, { recursive: true });
}
