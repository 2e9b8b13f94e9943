/**
 * Builds the npm package `@fetchline/fetchline` into `npm/` from the same sources as
 * the JSR package, with TypeScript's own compiler: ESM JavaScript and `.d.ts`
 * types, relative `.ts` imports rewritten to `.js`, in the builds of
 * {@linkcode BUILDS}, each with its own files compiled in place of some
 * sources (its swaps). The `.d.ts` files ship as the compiler writes them.
 * The JavaScript of the builds that runtimes load as they are (Node's and
 * the Web one) is bundled by esbuild (pinned, from npm): a file for each
 * entry point and chunks they share (code splitting), so a class is one
 * class whichever subpath it is imported from; not minified, each module's
 * code after a `// src/….js` line naming its source (scripts/check_layout.ts
 * reads them). Node loads 2 files for `mod.js` (it and the core's one chunk,
 * {@linkcode reachTheCore}) in place of about 40 modules: a one-shot script that sends one GET on Node 22 took 1.46x as
 * long as one with `fetch` and `AbortSignal.timeout` with a file for each
 * module, and 1.25x bundled (Node 24: 1.45x and 1.27x; `deno task
 * bench:one-shot`, one run each). Each build:
 * - the Node build at the package's root, with `src/transport/runtime_node.ts`
 *   in place of `src/transport/runtime.ts` (undici and node:fs);
 * - the Web build in `web/`, with `diagnostics_channel_web.ts` in place of
 *   `src/transport/diagnostics_channel.ts` (Deno's pool on Deno, the global
 *   `fetch` elsewhere, and tough-cookie for the default cookie jar): no
 *   `node:` module, no undici;
 * - the browser build in `browser/`, with `runtime_browser.ts` (the global
 *   `fetch` only), `memory_jar_browser.ts` (no default jar) and
 *   `network_settings_browser.ts` (no checks of the settings `build()`
 *   refuses there) and `channels_browser.ts` (no tracing channels): none of what a browser cannot use, neither tough-cookie,
 *   nor proxies, nor Deno's pool, nor the network policy's address ranges;
 *
 * a package.json whose `exports` map mirrors deno.json's, each subpath
 * giving the browser build to workers and browsers, the Node build under
 * the `node` condition and the Web build to Bun, workerd, Deno and any other
 * runtime; the README and the license.
 *
 * Run with `deno task build:npm`.
 *
 * @module
 */

import ts from "typescript";

const root = new URL("../", import.meta.url);
const rootDir = decodeURIComponent(root.pathname).replace(/\/$/, "");
const outDir = `${rootDir}/npm`;

interface DenoJson {
  name: string;
  version: string;
  license: string;
  exports: Record<string, string>;
  imports: Record<string, string>;
}

const denoJson: DenoJson = JSON.parse(await Deno.readTextFile(`${rootDir}/deno.json`));
const entryPoints = Object.values(denoJson.exports).map((path) => `${rootDir}/${path.slice(2)}`);

const baseOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2023.d.ts", "lib.esnext.disposable.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  declaration: true,
  rootDir,
  outDir,
  strict: true,
  exactOptionalPropertyTypes: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  noUncheckedIndexedAccess: true,
  isolatedModules: true,
  skipLibCheck: true,
  newLine: ts.NewLineKind.LineFeed,
};

/**
 * A build: its folder in the package, whether it may use Node's types,
 * whether its JavaScript is bundled, its swapped sources.
 */
interface Build {
  readonly dir: string;
  readonly node: boolean;
  readonly bundled: boolean;
  /** A source (from the root) and the file compiled in its place. */
  readonly swaps: Readonly<Record<string, string>>;
}

/**
 * The package's builds. Without Node types, a Node API a build other than
 * Node's used by mistake fails to compile.
 */
const BUILDS: Readonly<Record<"node" | "web" | "browser", Build>> = {
  node: {
    dir: "",
    node: true,
    bundled: true,
    swaps: { "src/transport/runtime.ts": "src/transport/runtime_node.ts" },
  },
  web: {
    dir: "web",
    node: false,
    bundled: true,
    swaps: {
      "src/transport/diagnostics_channel.ts": "src/transport/diagnostics_channel_web.ts",
    },
  },
  // A module a file, as the compiler writes them: what reads this build is a
  // bundler, which drops a whole file whose exports go unused (the package
  // has no side effects), but not the top-level calls of a chunk it keeps
  // for other code (`defineRedactedInspect(TokenData, …)`, the `keysOf(…)`
  // sets). Bundled, the `createClient(url).get(path)` bundle of
  // `deno task size` grew from 89,004 to 90,688 B (30,466 to 30,954 B
  // gzipped), with TokenData and its checks in it.
  browser: {
    dir: "browser",
    node: false,
    bundled: false,
    swaps: {
      "src/transport/runtime.ts": "src/transport/runtime_browser.ts",
      "src/cookies/memory_jar.ts": "src/cookies/memory_jar_browser.ts",
      "src/config/network_settings.ts": "src/config/network_settings_browser.ts",
      "src/send/channels.ts": "src/send/channels_browser.ts",
    },
  },
};

/** `from "./x.ts"` and `import("./x.ts")` become `.js`; package imports stay. */
export function rewriteImports(source: string): string {
  return source.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g,
    "$1$2$3.js$2",
  );
}

/** A host reading our sources with imports rewritten, each of `swaps` from its swap. */
function createHost(options: ts.CompilerOptions, swaps: Record<string, string>): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile;
  const swapped = new Map(
    Object.entries(swaps).map(([from, to]) => [`${rootDir}/${from}`, `${rootDir}/${to}`]),
  );
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const ours = fileName.startsWith(`${rootDir}/`) && !fileName.includes("/node_modules/") &&
      !fileName.endsWith(".d.ts");
    if (!ours) return getSourceFile(fileName, languageVersion, onError, shouldCreate);
    const text = Deno.readTextFileSync(swapped.get(fileName) ?? fileName);
    return ts.createSourceFile(fileName, rewriteImports(text), languageVersion, true);
  };
  return host;
}

/** Where each build's compiled JavaScript waits for esbuild, inside `npm/`, removed after. */
const stageDir = `${outDir}/.stage`;

/**
 * Compiles `build` into its folder of the package, but the JavaScript of a
 * bundled build into its folder of {@linkcode stageDir}.
 */
function compile(name: string, { dir, node, bundled, swaps }: Build): void {
  const typesDir = dir === "" ? outDir : `${outDir}/${dir}`;
  const options: ts.CompilerOptions = {
    ...baseOptions,
    types: node ? ["node"] : [],
    outDir: bundled ? `${stageDir}/${name}` : typesDir,
  };
  const roots = [...entryPoints];
  const program = ts.createProgram(roots, options, createHost(options, swaps));
  const result = program.emit(undefined, (fileName, text) => {
    const path = fileName.endsWith(".d.ts")
      ? typesDir + fileName.slice(options.outDir!.length)
      : fileName;
    Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(path, text);
  });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => rootDir,
      getNewLine: () => "\n",
    }));
    Deno.exit(1);
  }
}

/** esbuild, pinned as bench/size.ts and scripts/check_conditions.ts pin it. */
const ESBUILD = "esbuild@0.28.2";

/**
 * Bundles the compiled JavaScript of the build `name` into its folder of the
 * package: each entry point a file, what they share in chunks beside them.
 * Left out: Node's builtins; undici, which the Node runtime requires when a
 * pool needs it; socks, which it requires for a SOCKS5 proxy; tough-cookie,
 * which the default cookie jar imports when first used. The cache's rules of
 * RFC 9111 are its own code (src/cache/policy.ts): bundled like the rest.
 */
async function bundle(name: string, { dir }: Build): Promise<void> {
  const entries = Object.values(denoJson.exports).map((path) => path.replace(/\.ts$/, ".js"));
  const args = [
    "-y",
    ESBUILD,
    ...entries,
    "--bundle",
    "--splitting",
    "--format=esm",
    "--platform=neutral",
    "--external:node:*",
    "--external:undici",
    "--external:socks",
    "--external:tough-cookie",
    "--external:@opentelemetry/api",
    `--outdir=${dir === "" ? outDir : `${outDir}/${dir}`}`,
    "--metafile=meta.json",
    "--log-level=warning",
  ];
  // From the build's folder, so the line before each module's code names
  // its source as `// src/…`.
  const cwd = `${stageDir}/${name}`;
  await reachTheCore(cwd, entries);
  const output = await new Deno.Command("npx", { args, cwd, stdin: "null" }).output();
  const stderr = new TextDecoder().decode(output.stderr).trim();
  if (!output.success || stderr !== "") {
    console.error(`esbuild for the ${name} build: ${stderr}`);
    Deno.exit(1);
  }
  const meta = JSON.parse(await Deno.readTextFile(`${cwd}/meta.json`));
  for (const file of Object.keys(meta.outputs)) {
    const path = `${cwd}/${file}`;
    await Deno.writeTextFile(path, ownClassNames(await Deno.readTextFile(path)));
  }
}

/**
 * Starts every other entry point, and every module a dynamic `import()`
 * loads, with an import of mod.js, so that esbuild puts all that mod.js
 * reaches into one chunk. esbuild cuts chunks by which entry points reach a
 * piece of code (a module an `import()` loads is one to it), and each of
 * them reached another part of the core: mod.js imported 15 chunks, each a
 * file Node resolves and loads. With one chunk, a one-shot script that
 * sends one GET on Node 22 takes 0.89 of the time it took with 15, on
 * Node 24 too (the median of 60 paired runs of bench/one_shot/fetchline.mjs
 * on the two builds, each process timed whole).
 * What it costs: importing a subpath (`/models`, `/cache`…) loads the
 * whole core, which every client needs anyway. A bundler drops these
 * imports (the package declares no side effects; the browser build is not
 * bundled here): a worker's bundle of one GET from the Web build (esbuild,
 * `workerd` condition, minified) measured 137,595 B against 137,946 B.
 */
async function reachTheCore(cwd: string, entries: readonly string[]): Promise<void> {
  const starts = new Set(
    entries.filter((entry) => entry !== "./mod.js").map((entry) => `${cwd}/${entry.slice(2)}`),
  );
  for (const path of await jsFiles(cwd)) {
    for (const [, target] of (await Deno.readTextFile(path)).matchAll(/\bimport\("(\.[^"]+)"\)/g)) {
      starts.add(new URL(target!, `file://${path}`).pathname);
    }
  }
  for (const path of starts) {
    const depth = path.slice(cwd.length + 1).split("/").length - 1;
    const mod = depth === 0 ? "./mod.js" : `${"../".repeat(depth)}mod.js`;
    await Deno.writeTextFile(path, `import "${mod}";\n${await Deno.readTextFile(path)}`);
  }
}

/** The JavaScript files under `dir`. */
async function jsFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...await jsFiles(path));
    else if (entry.name.endsWith(".js")) files.push(path);
  }
  return files;
}

/**
 * esbuild writes a top-level class as `var X = class {`, and one whose body
 * names itself as `var X = class _X {`, whose `name` is then `_X`: each such
 * class is named `X` again (inside its body `X` is then the class itself,
 * as `_X` was), so `HttpClient.name` is `HttpClient` as in the sources.
 */
export function ownClassNames(code: string): string {
  for (const [, name] of code.matchAll(/\bvar (\w+) = class _\1\b/g)) {
    code = code.replaceAll(new RegExp(`(?<![\\w$.])_${name}\\b`, "g"), name!);
  }
  return code;
}

/** The version range deno.json's imports give the npm package `name`. */
function npmVersion(name: string): string {
  const version = denoJson.imports[name]?.replace(`npm:${name}@`, "");
  if (version === undefined) throw new Error(`deno.json imports has no ${name} entry`);
  return version;
}

function packageJson(): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  for (const [subpath, file] of Object.entries(denoJson.exports)) {
    const base = file.replace(/\.ts$/, "").slice(2);
    const [node, web, browser] = [BUILDS.node, BUILDS.web, BUILDS.browser].map(({ dir }) => {
      const path = dir === "" ? `./${base}` : `./${dir}/${base}`;
      return { types: `${path}.d.ts`, default: `${path}.js` };
    });
    // The first condition a runtime knows wins, so the runtimes that also
    // claim `node` (Bun, Deno) are named before it: Bun replaces the
    // installed undici with its own, whose Agent the Node build cannot use,
    // and Deno has its own pool. workerd (whose bundlers set `worker` and
    // `browser` too) is named before those: it keeps the Web build.
    exports[subpath] = {
      bun: web,
      deno: web,
      workerd: web,
      worker: browser,
      browser,
      node,
      default: web,
    };
  }
  exports["./package.json"] = "./package.json";
  const undici = npmVersion("undici");
  // The cookie jar of withCookies() without a jar of the caller's own.
  const toughCookie = npmVersion("tough-cookie");
  const socks = npmVersion("socks");
  // Any 1.x API from 1.4 (its stable metrics API) up.
  const otelApi = ">=1.4.0 <2";
  return {
    name: denoJson.name,
    version: denoJson.version,
    description:
      "An HTTP client for Deno, Node, Bun, browsers and Cloudflare Workers: immutable requests and responses, hooks, safe retries, " +
      "self-refreshing token auth, logging that never leaks a secret, and requests as cURL commands.",
    license: denoJson.license,
    type: "module",
    exports,
    // For resolvers that read no `exports` (TypeScript's node10 resolution, old
    // tools): `main` is Node's, the runtime such a resolver serves; the types
    // are the same in both builds and name no Node or undici type.
    main: "./mod.js",
    types: "./mod.d.ts",
    files: ["*.js", "*.d.ts", "src/", `${BUILDS.web.dir}/`, `${BUILDS.browser.dir}/`],
    sideEffects: false,
    // The LTS lines the suite runs on, 22 and 24, and later ones, with no
    // upper bound (one would refuse every new Node before it is tried); 22
    // from 22.19.0, the floor of undici 8, the Node build's transport. Node
    // 20 reached its end of life in April 2026.
    engines: { node: ">=22.19.0" },
    // A scoped package is private on npm unless published as public.
    publishConfig: { access: "public" },
    // undici is the Node build's transport: a plain dependency, so `npm install`
    // gives Node what it imports. The Web build never imports it (no bundle
    // carries it); it costs other runtimes install size only. As an optional
    // dependency it would still be installed by default, and a failed install
    // would pass in silence until the first import; as a peer, npm 7+ installs
    // it all the same, and an optional peer would leave Node users to add it.
    // socks (SOCKS5 proxies on Node) likewise.
    dependencies: {
      "tough-cookie": toughCookie,
      undici,
      socks,
    },
    // telemetry() (the `/telemetry` entry point) uses the application's own
    // OpenTelemetry API, whichever SDK registered: a peer, optional, so a
    // package that never imports `/telemetry` installs nothing for it.
    peerDependencies: { "@opentelemetry/api": otelApi },
    peerDependenciesMeta: { "@opentelemetry/api": { optional: true } },
    keywords: [
      "http",
      "client",
      "fetch",
      "undici",
      "retry",
      "oauth",
      "curl",
      "deno",
      "bun",
      "browser",
      "cloudflare-workers",
    ],
  };
}

await Deno.remove(outDir, { recursive: true }).catch((error) => {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
});
for (const [name, build] of Object.entries(BUILDS)) {
  compile(name, build);
  if (build.bundled) await bundle(name, build);
}
await Deno.remove(stageDir, { recursive: true }).catch(() => {});
await Deno.writeTextFile(`${outDir}/package.json`, JSON.stringify(packageJson(), null, 2) + "\n");
await Deno.copyFile(`${rootDir}/README.md`, `${outDir}/README.md`);
await Deno.copyFile(`${rootDir}/LICENSE`, `${outDir}/LICENSE`);
console.log(`Built npm package ${denoJson.name}@${denoJson.version} in ${outDir}`);
