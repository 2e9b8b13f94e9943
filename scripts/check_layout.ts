/**
 * Checks the layout rules the type checker cannot:
 * - no import circle among the `src/` files and the entry points, counting
 *   every import and re-export, `import type`, `export type ... from` and
 *   `import()` included (the layers point down only, in types as in values);
 * - the Deno build (every module the JSR entry points reach) imports no
 *   `node:` or `npm:` module (by name or through the import map), but for
 *   the dynamic import of tough-cookie in src/cookies/memory_jar.ts and
 *   `node:diagnostics_channel` in src/transport/diagnostics_channel.ts
 *   (which runtime.ts imports when a process's first call starts): only the
 *   npm build's runtime file may;
 * - mod.ts reaches no module of src/cache/, src/traffic/, src/har/,
 *   src/sse/, src/paginate/, src/signing/ or src/telemetry/ (each its own
 *   entry point's), and none of those, nor src/cookies/ (the jar's link),
 *   imports anything of src/send/ or src/transport/ (src/telemetry/ may
 *   import `@opentelemetry/api`);
 * - the npm build's Node and Web builds load one chunk for mod.js (the
 *   core, not a file for each part of it);
 * - the npm build's Node build (`npm/`, from `deno task build:npm`) names no
 *   Deno API, and its runtime module is the Node one (it loads undici);
 * - the npm build's Web build (`npm/web/`) imports no package, no `node:`
 *   module and no undici, but those two, from the same modules, and reads Deno only as a property of `globalThis` (a bare `Deno`
 *   would throw where there is none);
 * - the npm build's browser build (`npm/browser/`) imports no package but
 *   at all (no tough-cookie; the cache's rules are its own code), names no Deno API, and has none of the modules only a
 *   runtime with a pool uses (proxy routing, the network policy, the address ranges, the checks
 *   of the settings its `build()` refuses, Deno's pool and its proxies).
 *
 * The npm builds are read by module of the sources: in a bundled build (a
 * file for each entry point, chunks they share) a module is the code after
 * the `// src/….js` lines esbuild writes before its parts, each up to the
 * next such line (a file's imports of the other files, before the first,
 * belong to no module); in a build of a module a file, its `src/….js` file.
 *
 * Run with `deno task check:layout`; it exits 1 with every problem listed.
 *
 * @module
 */

import ts from "typescript";

const root = new URL("../", import.meta.url);
const rootDir = decodeURIComponent(root.pathname).replace(/\/$/, "");

interface InfoModule {
  specifier: string;
  dependencies?: {
    specifier: string;
    code?: { specifier: string };
    type?: { specifier: string };
    isDynamic?: boolean;
  }[];
}

/** The module graph `deno info --json` gives for `files`. */
async function moduleGraph(files: string[]): Promise<InfoModule[]> {
  const modules = new Map<string, InfoModule>();
  for (const file of files) {
    const output = await new Deno.Command("deno", {
      args: ["info", "--json", file],
      cwd: rootDir,
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`deno info ${file} failed`);
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: InfoModule[] };
    for (const module of info.modules) modules.set(module.specifier, module);
  }
  return [...modules.values()];
}

const isSource = (specifier: string) => specifier.startsWith(`file://${rootDir}/src/`);
const shortName = (specifier: string) => specifier.slice(`file://${rootDir}/`.length);

/** The strongly connected components of more than one file (Tarjan's algorithm). */
export function circles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (let member = stack.pop()!;; member = stack.pop()!) {
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

const problems: string[] = [];
const denoJson = JSON.parse(await Deno.readTextFile(`${rootDir}/deno.json`));
const entryPoints = Object.values(denoJson.exports as Record<string, string>);
/** The files the npm builds compile in place of others (scripts/build_npm.ts). */
const swaps = [
  "./src/transport/runtime_node.ts",
  "./src/transport/runtime_browser.ts",
  "./src/cookies/memory_jar_browser.ts",
  "./src/config/network_settings_browser.ts",
];

// Circles, over every build's files and the entry points, type and dynamic
// imports included: `deno info` gives a value import as `code`, an `import type` or
// `export type ... from` as `type`, and a module imported both ways as both.
const entryFiles = new Set(entryPoints.map((file) => `file://${rootDir}/${file.slice(2)}`));
const inGraph = (specifier: string) => isSource(specifier) || entryFiles.has(specifier);
const edges = new Map<string, Set<string>>();
for (const module of await moduleGraph([...entryPoints, ...swaps])) {
  if (!inGraph(module.specifier)) continue;
  const targets = new Set<string>();
  for (const dependency of module.dependencies ?? []) {
    for (const target of [dependency.code?.specifier, dependency.type?.specifier]) {
      if (target !== undefined && inGraph(target)) targets.add(target);
    }
  }
  edges.set(module.specifier, targets);
}
for (const circle of circles(edges)) {
  problems.push(`An import circle (type imports count): ${circle.map(shortName).join(", ")}`);
}

// The Deno build: no node: or npm: module, whether named so or through the
// import map. One exception, in the one file that needs it: the cookie jar
// a client keeps when given none is tough-cookie's (RFC 6265 and the
// public-suffix list are not worth writing again), imported dynamically, so
// a client without cookies neither loads nor evaluates it. The cache's rules
// of RFC 9111 are its own code (src/cache/policy.ts).
interface AllowedImport {
  readonly file: string;
  readonly specifier: RegExp;
  readonly name: string;
  readonly dynamic: boolean;
}
const cookieImport: AllowedImport = {
  file: "src/cookies/memory_jar.ts",
  specifier: /^npm:tough-cookie@/,
  name: "tough-cookie",
  dynamic: true,
};
// The telemetry entry point's: the application's own OpenTelemetry API (a peer dependency).
const otelImport: AllowedImport = {
  file: "src/telemetry/telemetry.ts",
  specifier: /^npm:@opentelemetry\/api@|^@opentelemetry\/api$/,
  name: "@opentelemetry/api",
  dynamic: false,
};
// The tracing channels' module, in the one file runtime.ts imports when a process's first
// call starts (on Deno, reading `process` to ask for it would start Deno's Node layer:
// runtime.ts says what it costs); the npm Web build has another file in its place.
const diagnosticsImport: AllowedImport = {
  file: "src/transport/diagnostics_channel.ts",
  specifier: /^node:diagnostics_channel$/,
  name: "node:diagnostics_channel",
  dynamic: false,
};
const allowedImports = [cookieImport, otelImport, diagnosticsImport];
const isAllowed = (
  allowed: readonly AllowedImport[],
  file: string,
  test: (a: AllowedImport) => boolean,
) => allowed.some((a) => a.file === file && test(a));
for (const module of await moduleGraph(entryPoints)) {
  for (const dependency of module.dependencies ?? []) {
    const resolved = dependency.code?.specifier ?? dependency.specifier;
    if (!/^(node|npm):/.test(dependency.specifier) && !/^(node|npm):/.test(resolved)) continue;
    const allowed = isAllowed(
      allowedImports,
      shortName(module.specifier),
      (a) => a.specifier.test(resolved) && (dependency.isDynamic === true) === a.dynamic,
    );
    if (!allowed) {
      problems.push(
        `The Deno build imports ${dependency.specifier} in ${shortName(module.specifier)}`,
      );
    }
  }
}
// A client without a cache, traffic control, a recorder, the reconnecting SSE reader or
// pagination loads none of their code.
for (const module of await moduleGraph([`${rootDir}/mod.ts`])) {
  if (
    /^src\/(cache|traffic|har|sse|paginate|signing|telemetry)\//.test(shortName(module.specifier))
  ) {
    problems.push(`mod.ts reaches ${shortName(module.specifier)}`);
  }
}
// The features stand on the public seam as a user's middleware does: the cookie jar's link, the
// cache, the traffic controls and the recorder see their exchange through the public `Exchange`,
// and the reconnecting SSE reader, pagination, signing and telemetry use a client through its
// public calls; none imports the send path or the transport below it.
for (
  const module of await moduleGraph([
    `${rootDir}/mod.ts`,
    `${rootDir}/cache.ts`,
    `${rootDir}/traffic.ts`,
    `${rootDir}/har.ts`,
    `${rootDir}/sse.ts`,
    `${rootDir}/paginate.ts`,
    `${rootDir}/signing.ts`,
    `${rootDir}/telemetry.ts`,
    // The browser build's jar, in memory_jar.ts's place there.
    `${rootDir}/src/cookies/memory_jar_browser.ts`,
  ])
) {
  if (
    !/^src\/(cookies|cache|traffic|har|sse|paginate|signing|telemetry)\//.test(
      shortName(module.specifier),
    )
  ) continue;
  for (const dependency of module.dependencies ?? []) {
    for (const target of [dependency.code?.specifier, dependency.type?.specifier]) {
      if (target !== undefined && /^src\/(send|transport)\//.test(shortName(target))) {
        problems.push(`${shortName(module.specifier)} imports ${shortName(target)}`);
      }
    }
  }
}

// The npm build's Node and browser builds: no Deno API; the Node runtime in place.
async function* jsFiles(dir: string, skip: string[] = []): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "node_modules" && !skip.includes(path)) {
      yield* jsFiles(path);
    } else if (entry.isFile && entry.name.endsWith(".js")) yield path;
  }
}
const npmDir = `${rootDir}/npm`;
const webDir = `${npmDir}/web`;
const browserDir = `${npmDir}/browser`;
/** The line esbuild writes before each module's code in a bundled file: its source. */
const MODULE_LINE = /^\/\/ (src\/\S+\.js)$/gm;
/**
 * The parts of modules in the file `name` (its path in its build) of text
 * `text`, each by its source and where it starts, in order: the file whole
 * if it is a module's own, else what esbuild bundled in it (a module may
 * come in parts: its imports of what is left out of the bundle, then its
 * code after the modules it imports; before the first, the file's own code,
 * its imports of the other files).
 */
function partsIn(name: string, text: string): { source: string; start: number }[] {
  if (/^src\/.*\.js$/.test(name)) return [{ source: name, start: 0 }];
  return [...text.matchAll(MODULE_LINE)].map((line) => ({ source: line[1]!, start: line.index }));
}
/** The module whose code `position` in the file `name` is, or `undefined` for none. */
function moduleAt(name: string, text: string, position: number): string | undefined {
  return partsIn(name, text).findLast(({ start }) => start <= position)?.source;
}
/** Each module of the build in `dir` (not its builds in `skip`): its source, and its code. */
async function buildModules(dir: string, skip: string[] = []): Promise<Map<string, string>> {
  const modules = new Map<string, string>();
  for await (const file of jsFiles(dir, skip)) {
    const text = await Deno.readTextFile(file);
    const parts = partsIn(file.slice(dir.length + 1), text);
    for (const [i, { source, start }] of parts.entries()) {
      modules.set(source, (modules.get(source) ?? "") + text.slice(start, parts[i + 1]?.start));
    }
  }
  return modules;
}
try {
  await Deno.stat(`${npmDir}/package.json`);
  for await (const file of jsFiles(npmDir, [webDir])) {
    const text = await Deno.readTextFile(file);
    // Identifiers only: `Symbol.for("Deno.customInspect")` is a string, not the API.
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const namesDeno = (node: ts.Node): boolean =>
      (ts.isIdentifier(node) && node.text === "Deno") || ts.forEachChild(node, namesDeno) === true;
    if (namesDeno(source)) {
      problems.push(`The npm build names the Deno API in ${file.slice(rootDir.length + 1)}`);
    }
  }
  // Node and Deno load mod.js and the core's one chunk, not a file for each part of it
  // (scripts/build_npm.ts's reachTheCore).
  for (const dir of [npmDir, webDir]) {
    const text = await Deno.readTextFile(`${dir}/mod.js`);
    const files = new Set([...text.matchAll(/^(?:import|export)[^;]*?["'](\.\/[^"']+)["']/gm)]
      .map((found) => found[1]));
    if (files.size > 1) {
      problems.push(
        `${dir.slice(rootDir.length + 1)}/mod.js loads ${files.size} files, not one chunk`,
      );
    }
  }
  const runtime = (await buildModules(npmDir, [webDir, browserDir])).get(
    "src/transport/runtime.js",
  );
  // The Node runtime loads undici: imported, or required when a pool needs it.
  if (runtime === undefined || !/(from\s*|\(\s*)["']undici["']/.test(runtime)) {
    problems.push("The npm build's src/transport/runtime.js is not the Node runtime");
  }
} catch (error) {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
  problems.push("No npm build to check: run `deno task build:npm` first");
}

// The Web and browser builds: what they import, and no bare `Deno`.
/** The specifiers `source` imports or re-exports, statically or by import(), and where. */
function importsOf(
  source: ts.SourceFile,
): { specifier: string; dynamic: boolean; position: number }[] {
  const found: { specifier: string; dynamic: boolean; position: number }[] = [];
  const visit = (node: ts.Node): void => {
    const position = node.getStart(source);
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, dynamic: false, position });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      const specifier = argument !== undefined && ts.isStringLiteralLike(argument)
        ? argument.text
        : "(a computed specifier)";
      found.push({ specifier, dynamic: true, position });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
/** Whether `source` reads `Deno` as a variable, not as a property (`globalThis.Deno`). */
function readsBareDeno(source: ts.SourceFile): boolean {
  const visit = (node: ts.Node): boolean => {
    if (ts.isIdentifier(node) && node.text === "Deno") {
      const parent = node.parent;
      const isPropertyName = parent !== undefined &&
        ((ts.isPropertyAccessExpression(parent) && parent.name === node) ||
          (ts.isPropertyAssignment(parent) && parent.name === node));
      if (!isPropertyName) return true;
    }
    return ts.forEachChild(node, visit) === true;
  };
  return visit(source);
}
/**
 * Checks the Web-standard build in `dir` (`web` or `browser`): it imports
 * no package but `allowed` (the one dynamic import of tough-cookie, or none)
 * and reads no bare Deno global.
 */
async function checkWebBuild(dir: string, allowed: readonly AllowedImport[]) {
  try {
    let files = 0;
    for await (const file of jsFiles(`${npmDir}/${dir}`)) {
      files++;
      const name = file.slice(npmDir.length + dir.length + 2);
      const text = await Deno.readTextFile(file);
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      for (const { specifier, dynamic, position } of importsOf(source)) {
        if (specifier.startsWith("./") || specifier.startsWith("../")) continue;
        const module = moduleAt(name, text, position);
        const ok = module !== undefined && isAllowed(
          allowed,
          module.replace(/\.js$/, ".ts"),
          (a) => a.name === specifier && a.dynamic === dynamic,
        );
        if (!ok) {
          problems.push(
            `The npm ${dir} build imports ${specifier} in ${dir}/${name}${
              module === undefined ? "" : ` (${module})`
            }`,
          );
        }
      }
      if (readsBareDeno(source)) {
        problems.push(`The npm ${dir} build reads a bare Deno global in ${dir}/${name}`);
      }
    }
    if (files === 0) problems.push(`The npm build has no ${dir} build in npm/${dir}`);
    // What the checks by module read: without the lines that name them, each would pass.
    const sources = await buildModules(`${npmDir}/${dir}`);
    if (
      files > 0 &&
      !sources.has(allowed[0]?.file.replace(/\.ts$/, ".js") ?? "src/transport/runtime.js")
    ) {
      problems.push(`The npm ${dir} build has no module's source (src/….js, or a line naming it)`);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    problems.push(`The npm build has no ${dir} build in npm/${dir}`);
  }
}
await checkWebBuild("web", [cookieImport, otelImport]);
await checkWebBuild("browser", [otelImport]);
// The browser build: neither proxy routing (proxy.js, which only the
// runtimes with a pool import), nor the network policy and the address
// ranges it and network_settings.ts's checks parse (the browser build's
// network_settings.js, compiled from its counterpart, checks nothing
// build() refuses there), nor Deno's pool and its proxies (the Web build's runtime.js, the
// one module that calls createHttpClient).
const poolOnly = [
  "src/transport/proxy.js",
  "src/transport/network_policy.js",
  "src/transport/addresses.js",
];
try {
  const browserModules = await buildModules(browserDir);
  for (const file of poolOnly) {
    if (browserModules.has(file)) problems.push(`The npm browser build has ${file}`);
  }
  for await (const file of jsFiles(browserDir)) {
    // A call, not a comment that names it.
    if (/\.createHttpClient\(/.test(await Deno.readTextFile(file))) {
      problems.push(
        `The npm browser build carries Deno's pool in ${file.slice(npmDir.length + 1)}`,
      );
    }
  }
} catch (error) {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}

if (problems.length > 0) {
  console.error(problems.map((problem) => `- ${problem}`).join("\n"));
  Deno.exit(1);
}
console.log(
  `Layout: no import circle, type imports included, among ${edges.size} files; the Deno build ` +
    `imports no node: or npm: module but tough-cookie, dynamically (mod.ts reaches no cache, ` +
    `traffic, har, sse, paginate, signing or telemetry module, and no feature nor the cookie ` +
    `jar imports the send path or the transport); the npm Node and browser builds name no Deno API; ` +
    `its Web build imports no package but those, and no bare Deno; its browser build none at ` +
    `all, nor proxies, nor the network policy`,
);
