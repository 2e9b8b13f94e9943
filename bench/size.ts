/**
 * `deno task size`: the bytes the npm package's Web build adds to a browser
 * bundle that calls `createClient(url).get(path)`, beside ky and ofetch for
 * the same call, and what in it weighs most; writes the "size" section of
 * bench/RESULTS.md.
 *
 * Packs `npm/` (built by `deno task build:npm`, which the task runs first),
 * installs the tarball, ky and ofetch (the versions deno.lock resolved) into
 * a temporary folder, bundles each entry with esbuild (pinned) for the
 * browser, minified, and gzips the output with `CompressionStream`. Code
 * splitting keeps what a dynamic `import()` loads (tough-cookie) apart.
 * `--print` prints the section instead of writing it.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { loadAverage, opening, table, writeSection } from "./_results.ts";

const ESBUILD = "0.28.2";
const FLAGS = "--bundle --splitting --minify --format=esm --platform=browser --conditions=browser";
const PACKAGE = "@fetchline/fetchline";

/**
 * The package's modules a bundle that only creates a client and sends a call
 * must not carry: the run fails when the basic bundle keeps one.
 */
const SHAKEN = [
  "src/auth/token_manager.js",
  "src/auth/client_credentials.js",
  "src/auth/api_key_auth_hook.js",
  "src/auth/basic_auth_hook.js",
  "src/auth/composite_auth_hook.js",
  "src/testing/mock_transport.js",
];

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
  outputs: Record<string, {
    entryPoint?: string;
    imports: { path: string; kind: string }[];
    inputs: Record<string, { bytesInOutput: number }>;
  }>;
}

const decoder = new TextDecoder();

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stdin: "null" }).output();
  if (!output.success) {
    throw new Error(`${command} ${args.join(" ")} failed: ${decoder.decode(output.stderr)}`);
  }
  return decoder.decode(output.stdout);
}

/** Minified and gzipped bytes of the files `paths` in `dir`. */
async function bytesOf(paths: string[], dir: string) {
  let [min, gzip] = [0, 0];
  for (const path of paths) {
    const bytes = await Deno.readFile(`${dir}/${path}`);
    const gzipped = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
    min += bytes.byteLength;
    gzip += (await new Response(gzipped).arrayBuffer()).byteLength;
  }
  return { min, gzip };
}

/** Bundles `entry` in `dir`: the outputs loaded first and on demand, and the metafile. */
async function bundle(dir: string, entry: string) {
  const outdir = `out-${entry.replace(/\.mjs$/, "")}`;
  const args = ["-y", `esbuild@${ESBUILD}`, entry, ...FLAGS.split(" "), `--outdir=${outdir}`];
  await run("npx", [...args, `--metafile=${outdir}.json`, "--log-level=warning"], dir);
  const meta: Metafile = JSON.parse(await Deno.readTextFile(`${dir}/${outdir}.json`));
  // A dynamic import()'s chunk has an entryPoint too: only the entry's own output starts the list.
  const first = Object.keys(meta.outputs).filter((path) =>
    meta.outputs[path]!.entryPoint === entry
  );
  for (let i = 0; i < first.length; i++) {
    for (const { path, kind } of meta.outputs[first[i]!]!.imports) {
      if (kind === "import-statement" && !first.includes(path)) first.push(path);
    }
  }
  const lazy = Object.keys(meta.outputs).filter((p) => p.endsWith(".js") && !first.includes(p));
  // Each input's bytes in the outputs loaded first, the package's paths short.
  const inputs = new Map<string, number>();
  for (const output of first) {
    for (const [input, { bytesInOutput }] of Object.entries(meta.outputs[output]!.inputs)) {
      const path = input.replace(/^.*@fetchline\/fetchline\/web\//, "");
      if (bytesInOutput > 0) inputs.set(path, (inputs.get(path) ?? 0) + bytesInOutput);
    }
  }
  return { first, lazy, inputs };
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
  for (const [i, entry] of ENTRIES.entries()) {
    await Deno.writeTextFile(`${work}/entry${i}.mjs`, entry.source);
    const { first, lazy, inputs } = await bundle(work, `entry${i}.mjs`);
    const initial = await bytesOf(first, work);
    if (i === 0) {
      const unshaken = SHAKEN.filter((path) => inputs.has(path));
      if (unshaken.length > 0) {
        throw new Error(`The basic bundle keeps what it never calls: ${unshaken.join(", ")}`);
      }
      const share = (bytes: number) => `${(100 * bytes / initial.min).toFixed(1)}%`;
      const sorted = [...inputs].sort((a, b) => b[1] - a[1]);
      top = sorted.slice(0, 10).map(([path, bytes], rank) => [
        String(rank + 1),
        `\`${path}\``,
        bytes.toLocaleString("en-US"),
        share(bytes),
      ]);
      const folders = new Map<string, number>();
      for (const [path, bytes] of sorted) {
        const folder = path.split("/").slice(0, path.startsWith("src/") ? 2 : 1).join("/");
        folders.set(folder, (folders.get(folder) ?? 0) + bytes);
      }
      spread = `${inputs.size} input files; by folder: ${
        [...folders].sort((a, b) => b[1] - a[1]).map(([f, bytes]) => `${f} ${share(bytes)}`)
          .join(", ")
      }`;
    }
    rows.push([entry.name, entry.description, cell(initial), cell(await bytesOf(lazy, work))]);
    console.error(`${entry.name}: ${initial.min} B, ${initial.gzip} B gzipped`);
  }
  const markdown = `${
    opening({ title: "Size", task: "size", file: "bench/size.ts", started, loadBefore })
  }
- Bundler: esbuild ${ESBUILD}, \`${FLAGS}\`, from the packed npm package as a user installs it
  (its Web build, picked by the \`browser\` condition)
- Packages: ${PACKAGE}@${version}, ${others.join(", ")}

"Loaded first" is the entry's own file; "loaded on demand" the chunk of a dynamic \`import()\`
(tough-cookie and its public suffix list, loaded by the default cookie jar on the first cookie a
client receives). KB are 1,024 bytes; gzip is the platform's \`CompressionStream\`.

${
    table(
      ["bundle", "entry", "loaded first: min / min+gzip", "loaded on demand: min / min+gzip"],
      rows,
      0,
    )
  }

The basic bundle's top contributors: its input files by bytes in the minified output (esbuild's
metafile, \`bytesInOutput\`; before gzip). The run fails if it keeps any of ${SHAKEN.length} modules a
client that only sends calls never needs (the token manager, its OAuth step, the other auth hooks,
the testing module).

${table(["#", "input file", "bytes", "share of the bundle"], top, 2)}

The basic bundle's ${spread}.`;
  if (values.print) console.log(markdown);
  else await writeSection("size", markdown);
} finally {
  await Deno.remove(work, { recursive: true });
}
