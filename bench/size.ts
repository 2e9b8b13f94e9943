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
 * `CompressionStream`. `--print` prints the section instead of writing it.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { loadAverage, opening, table, writeSection } from "./_results.ts";

const ESBUILD = "0.28.2";
const FLAGS = "--bundle --minify --format=esm --platform=browser --conditions=browser";
const PACKAGE = "@fetchline/fetchline";
/** API.md "Weight": the basic bundle's most gzipped bytes. */
const TARGET = 18_000;
/**
 * The basic bundle measured so (one file) before the browser build: the Web
 * build, with tough-cookie, proxy routing and Deno's pool in it.
 */
const BEFORE = { commit: "e800ea2", min: 267_115, gzip: 92_346 };

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
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
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
 * in it (the package's paths short, from the folder of whichever build the
 * conditions picked).
 */
async function bundle(dir: string, entry: string) {
  const outfile = `out-${entry.replace(/\.mjs$/, ".js")}`;
  const args = ["-y", `esbuild@${ESBUILD}`, entry, ...FLAGS.split(" "), `--outfile=${outfile}`];
  await run("npx", [...args, `--metafile=${outfile}.json`, "--log-level=warning"], dir);
  const meta: Metafile = JSON.parse(await Deno.readTextFile(`${dir}/${outfile}.json`));
  const inputs = new Map<string, number>();
  const builds = new Set<string>();
  for (const output of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const build = /@fetchline\/fetchline\/(?:([a-z]+)\/)?src\//.exec(input);
      if (build) builds.add(build[1] === undefined ? "the Node build" : `${build[1]}/`);
      const path = input.replace(/^.*@fetchline\/fetchline\/(?:[a-z]+\/)?(?=src\/)/, "")
        .replace(/^node_modules\/\.pnpm\/[^/]+\//, "");
      if (bytesInOutput > 0) inputs.set(path, (inputs.get(path) ?? 0) + bytesInOutput);
    }
  }
  const text = await Deno.readTextFile(`${dir}/${outfile}`);
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
      const missing = [];
      for (const item of SHAKEN) {
        try {
          await Deno.stat(`${work}/node_modules/${PACKAGE}/${item.file}`);
        } catch {
          missing.push(item.file);
        }
      }
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
      spread = `${inputs.size} input files; by folder: ${
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
${cell(BEFORE)}.

The basic bundle's top contributors: its input files by bytes in the minified output (esbuild's
metafile, \`bytesInOutput\`; before gzip). The run fails if it keeps any of ${SHAKEN.length} pieces a
client that only sends calls never needs (the token manager, its OAuth step, the other auth hooks,
the testing module's transport), each found by its module and a text only its code holds.

${table(["#", "input file", "bytes", "share of the bundle"], top, 2)}

The basic bundle's ${spread}.`;
  if (values.print) console.log(markdown);
  else await writeSection("size", markdown);
} finally {
  await Deno.remove(work, { recursive: true });
}
