/**
 * `deno task size`: how many bytes the npm package's Web build adds to a
 * browser bundle, by what a caller uses, beside ky and ofetch for the same
 * basic call; writes the "Size" section of bench/RESULTS.md.
 *
 * Packs `npm/` (built by `deno task build:npm`) and installs the tarball,
 * ky and ofetch (the versions deno.lock resolved) into a temporary folder,
 * then bundles each entry of {@linkcode ENTRIES} with esbuild from npm
 * (pinned) for the browser, minified, with code splitting so a dynamic
 * `import()` is counted apart; gzips each output with `CompressionStream`.
 *
 * Flags: `--fetchline-npm` (default `npm`), `--print` (print the section
 * instead of writing it).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { sizeMarkdown } from "./_size_results.ts";
import { withMarkedSection } from "./_ab_results.ts";
import type { Bundle, Bytes } from "./_size_results.ts";

const OUT = "bench/RESULTS.md";
const ESBUILD = "0.28.2";
const FLAGS = "--bundle --splitting --minify --format=esm --platform=browser --conditions=browser";
const PACKAGE = "@fetchline/fetchline";

/**
 * The package's modules a bundle that only creates clients and sends calls
 * must not carry: `deno task size` fails when the basic bundle keeps any.
 * (`client.extend()`, a method of every client, hands its caller the config
 * builder, whose `withLogging()` and `withTokenAuth()` name the logging and
 * token auth hooks: those come with any client; the token manager, its
 * OAuth step and the other auth hooks do not.)
 */
export const SHAKEN = [
  "src/auth/token_manager.js",
  "src/auth/client_credentials.js",
  "src/auth/api_key_auth_hook.js",
  "src/auth/basic_auth_hook.js",
  "src/auth/composite_auth_hook.js",
  "src/testing/mock_transport.js",
];

/** A client on `url` that gets `/items` and closes: the basic use every bundle shares. */
const basic = (make: string) => `
export async function main(url) {
  const client = ${make};
  try {
    return (await client.get("/items")).json();
  } finally {
    await client.close();
  }
}`;

const builder = (extra: string) =>
  `new HttpClient(new HttpClientConfigBuilder().withBaseUrl(url)${extra}.build())`;

/** Each bundle: its name, what its row says, the entry's source. */
export const ENTRIES: readonly { name: string; description: string; source: string }[] = [
  {
    name: "fetchline basic",
    description: "`createClient(url)` + `get()`",
    source: `import { createClient } from "${PACKAGE}";${basic("createClient(url)")}`,
  },
  {
    name: "+ auth",
    description: "`TokenAuthHook` over a `TokenManager`, through the builder",
    source:
      `import { HttpClient, HttpClientConfigBuilder, TokenAuthHook, TokenManager } from "${PACKAGE}";
import { TokenData } from "${PACKAGE}/config";
const manager = new TokenManager([
  { name: "static", fetch: () => Promise.resolve(new TokenData({ accessToken: "t", expiresIn: 60 })) },
]);${basic(builder(".withAuthHook(new TokenAuthHook(manager))"))}`,
  },
  {
    name: "+ logging",
    description: "`withLogging()`, through the builder",
    source: `import { HttpClient, HttpClientConfigBuilder } from "${PACKAGE}";${
      basic(builder(".withLogging()"))
    }`,
  },
  {
    name: "+ toCurl",
    description: "basic + `toCurl()` of a request",
    source: `import { createClient, HttpRequest } from "${PACKAGE}";
import { toCurl } from "${PACKAGE}/utils";
export const curl = (url) => toCurl(new HttpRequest("GET", url));${basic("createClient(url)")}`,
  },
  {
    name: "+ SSE",
    description: "basic + `events()`",
    source: `import { createClient } from "${PACKAGE}";
export async function events(url) {
  const client = createClient(url);
  try {
    for await (const event of client.events("/stream")) return event.data;
  } finally {
    await client.close();
  }
}${basic("createClient(url)")}`,
  },
  {
    name: "fetchline whole",
    description: "`export *` of the package",
    source: `export * from "${PACKAGE}";`,
  },
  {
    name: "ky",
    description: "`ky.get(url).json()`",
    source: `import ky from "ky";
export const main = (url) => ky.get(url + "/items").json();`,
  },
  {
    name: "ofetch",
    description: "`ofetch(url)`",
    source: `import { ofetch } from "ofetch";
export const main = (url) => ofetch(url + "/items");`,
  },
];

const decoder = new TextDecoder();

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stdin: "null" }).output();
  if (!output.success) {
    throw new Error(`${command} ${args.join(" ")} failed: ${decoder.decode(output.stderr)}`);
  }
  return decoder.decode(output.stdout);
}

async function gzipSize(bytes: Uint8Array<ArrayBuffer>): Promise<number> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

async function bytesOf(paths: string[], dir: string): Promise<Bytes> {
  let min = 0;
  let gzip = 0;
  for (const path of paths) {
    const bytes = await Deno.readFile(`${dir}/${path}`);
    min += bytes.byteLength;
    gzip += await gzipSize(bytes);
  }
  return { min, gzip };
}

interface Metafile {
  outputs: Record<string, {
    entryPoint?: string;
    imports: { path: string; kind: string }[];
    inputs: Record<string, { bytesInOutput: number }>;
  }>;
}

/** Bundles `entry` in `dir`; the outputs loaded first and on demand, and the metafile. */
async function bundle(dir: string, entry: string) {
  const outdir = `out-${entry.replace(/\.mjs$/, "")}`;
  await run("npx", [
    "-y",
    `esbuild@${ESBUILD}`,
    entry,
    ...FLAGS.split(" "),
    `--outdir=${outdir}`,
    `--metafile=${outdir}.json`,
    "--log-level=warning",
  ], dir);
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
  const lazy = Object.keys(meta.outputs).filter((path) =>
    path.endsWith(".js") && !first.includes(path)
  );
  return { first, lazy, meta };
}

/** The package's modules a bundle keeps (paths in the package's web/) and their bytes. */
function kept(meta: Metafile): Map<string, number> {
  const modules = new Map<string, number>();
  for (const output of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const path = input.match(/@fetchline\/fetchline\/web\/(.*)$/)?.[1];
      if (path !== undefined && bytesInOutput > 0) modules.set(path, bytesInOutput);
    }
  }
  return modules;
}

/** The modules a bundle keeps, bytes by folder (`src/client`, `mod.js`...). */
function keptByFolder(modules: Map<string, number>): { folder: string; bytes: number }[] {
  const folders = new Map<string, number>();
  for (const [path, bytes] of modules) {
    const folder = path.split("/").slice(0, path.startsWith("src/") ? 2 : 1).join("/");
    folders.set(folder, (folders.get(folder) ?? 0) + bytes);
  }
  return [...folders].map(([folder, bytes]) => ({ folder, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
}

/** The version deno.lock resolved for the npm package `name`. */
async function lockedVersion(name: string): Promise<string> {
  const lock = JSON.parse(await Deno.readTextFile("deno.lock")) as {
    specifiers: Record<string, string>;
  };
  const found = Object.entries(lock.specifiers).find(([key]) => key.startsWith(`npm:${name}@`));
  if (found === undefined) throw new Error(`deno.lock has no ${name}`);
  return found[1];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      "fetchline-npm": { type: "string", default: "npm" },
      print: { type: "boolean", default: false },
    },
  });
  const work = await Deno.makeTempDir({ prefix: "fetchline-size-" });
  try {
    const npmDir = await Deno.realPath(values["fetchline-npm"]);
    const packed = await run("npm", ["pack", "--silent", "--pack-destination", work], npmDir);
    const tarball = `./${packed.trim().split("\n").pop()}`;
    const version = JSON.parse(await Deno.readTextFile(`${npmDir}/package.json`)).version;
    const others = [`ky@${await lockedVersion("ky")}`, `ofetch@${await lockedVersion("ofetch")}`];
    await Deno.writeTextFile(`${work}/package.json`, '{"private": true, "type": "module"}');
    const install = ["install", "--silent", "--no-audit", "--no-fund", "--no-package-lock"];
    await run("npm", [...install, tarball, ...others], work);
    const bundles: Bundle[] = [];
    let basicKeeps: { folder: string; bytes: number }[] = [];
    for (const [i, entry] of ENTRIES.entries()) {
      await Deno.writeTextFile(`${work}/entry${i}.mjs`, entry.source);
      const { first, lazy, meta } = await bundle(work, `entry${i}.mjs`);
      if (i === 0) {
        const modules = kept(meta);
        const unshaken = SHAKEN.filter((path) => modules.has(path));
        if (unshaken.length > 0) {
          throw new Error(`The basic bundle keeps what it never calls: ${unshaken.join(", ")}`);
        }
        basicKeeps = keptByFolder(modules);
      }
      const initial = await bytesOf(first, work);
      bundles.push({ ...entry, initial, lazy: await bytesOf(lazy, work) });
      console.error(`${entry.name}: ${initial.min} B, ${initial.gzip} B gzipped`);
    }
    const markdown = sizeMarkdown({
      date: new Date(),
      command: `deno task size${Deno.args.length ? ` ${Deno.args.join(" ")}` : ""}`,
      esbuild: ESBUILD,
      flags: FLAGS,
      versions: [`${PACKAGE}@${version}`, ...others].join(", "),
      bundles,
      basicKeeps,
    });
    if (values.print) {
      console.log(markdown);
      return;
    }
    const old = await Deno.readTextFile(OUT).catch(() => "");
    await Deno.writeTextFile(OUT, withMarkedSection(old, "size", markdown));
    await run("deno", ["fmt", "--quiet", OUT], ".");
    console.error(`wrote ${OUT}`);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

if (import.meta.main) await main();
