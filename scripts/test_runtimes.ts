/**
 * Tests the npm package on each runtime its `exports` conditions serve, as a
 * user gets it: packs `npm/` (built by `deno task build:npm`), installs the
 * tarball into a temporary folder next to `tests/runtimes/smoke.mjs`, and
 * runs that file's checks (`tests/runtimes/checks.mjs`) on Node (the Node
 * build), Bun and Deno (the Web build); then, with tough-cookie removed from
 * the install, the default cookie jar's error on each. Last, workerd runs the
 * Web build's files as its modules (`tests/runtimes/workerd.mjs`) against a
 * fixture served here, through a network that allows 127.0.0.1, after
 * esbuild has checked which build each runtime's and bundler's conditions
 * pick (scripts/check_conditions.ts). Bun, workerd and esbuild come from the
 * npm registry, pinned, as Deno does. Then a headless Chromium and a
 * headless Firefox run them from a page, with the browser build
 * (scripts/test_browser.ts).
 *
 * The shared behavioural suite (tests/shared/) runs on Bun
 * (tests/runtimes/shared_suite.mjs), in workerd and in the page too, after
 * each one's checks, against one fixture process (Node) started here; each
 * run ends with `shared suite on <runtime>: N passed, M failed, K skipped`.
 * (Deno runs it from the source in `deno task test:deno`, Node from the
 * packed package in `deno task test:npm`.) `FETCHLINE_SHARED_ONLY=1` runs
 * only the shared suite; `FETCHLINE_SHARED_AREAS=client,redirects` keeps
 * only those areas.
 *
 * Run with `deno task test:runtimes`; it exits 1 if any runtime fails.
 *
 * @module
 */

import { copyFolder, sharedModules, startSharedFixture } from "./shared_suite.ts";
import { chromium, firefox } from "./test_browser.ts";
import { checkConditions } from "./check_conditions.ts";

const root = decodeURIComponent(new URL("../", import.meta.url).pathname);
const work = await Deno.makeTempDir({ prefix: "fetchline-runtimes-test-" });
const BUN = "bun@1.4.5";
const WORKERD = "workerd@1.20261117.1";
const SHARED_ONLY = Deno.env.get("FETCHLINE_SHARED_ONLY") === "1";
const AREAS = Deno.env.get("FETCHLINE_SHARED_AREAS") ?? "";

/** Each runtime's command line for a script, with its arguments. */
const runtimes: Record<string, (script: string, args: string[]) => [string, string[]]> = {
  // The oldest supported line (undici 8 needs 22.19), whatever the machine's own node is.
  Node: (script, args) => ["npx", ["-y", "node@22", script, ...args]],
  Bun: (script, args) => ["npx", ["-y", BUN, script, ...args]],
  Deno: (script, args) => [
    "deno",
    ["run", "--allow-net=127.0.0.1", "--allow-read", "--allow-env", script, ...args],
  ],
};

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stderr: "inherit" }).output();
  if (!output.success) throw new Error(`${command} ${args.join(" ")} failed (${output.code})`);
  return new TextDecoder().decode(output.stdout);
}

/** Runs the smoke checks on every runtime; the names of those that failed. */
async function smoke(args: string[]): Promise<string[]> {
  const failed: string[] = [];
  for (const [name, line] of Object.entries(runtimes)) {
    const [command, commandArgs] = line("smoke.mjs", args);
    const { code } = await new Deno.Command(command, {
      args: commandArgs,
      cwd: work,
      stdout: "inherit",
      stderr: "inherit",
      env: { NO_COLOR: "1" },
    }).output();
    if (code !== 0) failed.push(name);
  }
  return failed;
}

/** Runs the shared suite on Bun against the fixture whose JSON line is `line`; whether it passed. */
async function bunSharedSuite(line: string): Promise<boolean> {
  const [command, args] = runtimes.Bun!("shared_suite.mjs", [line]);
  const { code } = await new Deno.Command(command, {
    args,
    cwd: work,
    stdout: "inherit",
    stderr: "inherit",
    env: { NO_COLOR: "1" },
  }).output();
  return code === 0;
}

/** A port free now: the system gave it to a listener closed again. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * The fixture tests/runtimes/checks.mjs describes, for workerd to call;
 * `/slow` is held until `held` resolves.
 */
function serveFixture(held: Promise<void>): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    // Not answered while the checks run: they give up first.
    if (url.pathname === "/slow") await held;
    const echo = {
      method: request.method,
      query: url.search.slice(1),
      body: await request.text(),
      headers: Object.fromEntries(request.headers),
    };
    const headers = new Headers({ "content-type": "application/json" });
    if (url.pathname === "/login") headers.set("set-cookie", "sid=s3cr3t");
    return new Response(JSON.stringify(echo), {
      status: url.pathname === "/missing" ? 404 : 200,
      headers,
    });
  });
}

/**
 * workerd's config: the worker, its modules (the Web build's files, the
 * cache's dependency and the shared suite's files) and its network.
 */
function workerdConfig(webFiles: string[], sharedFiles: string[]): string {
  const modules = [
    `(name = "workerd.mjs", esModule = embed "workerd.mjs")`,
    `(name = "checks.mjs", esModule = embed "checks.mjs")`,
    ...sharedFiles.map((file) => `(name = "shared/${file}", esModule = embed "shared/${file}")`),
    ...webFiles.map((file) =>
      `(name = "web/${file}", esModule = embed "node_modules/@fetchline/fetchline/web/${file}")`
    ),
  ];
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [\n    ${modules.join(",\n    ")}\n  ],
  compatibilityDate = "2025-01-01",
  globalOutbound = "loopback",
);
`;
}

async function* jsFiles(dir: string, prefix = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) yield* jsFiles(`${dir}/${entry.name}`, `${prefix}${entry.name}/`);
    else if (entry.name.endsWith(".js")) yield `${prefix}${entry.name}`;
  }
}

/** Asks workerd (listening on `port`) for `path`, printing the answer; whether it was a 2xx. */
async function askWorkerd(port: number, path: string): Promise<boolean> {
  // workerd listens within a few seconds: up to 30 s, then fail.
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      console.log((await response.text()).trimEnd());
      return response.ok;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  console.error("workerd did not answer within 30 s");
  return false;
}

/**
 * Runs the checks inside workerd, then the shared suite against the fixture
 * process whose JSON line is `sharedFixture`; the names of what failed.
 */
async function workerd(sharedFixture: string): Promise<string[]> {
  await run("npm", ["install", "--silent", "--no-audit", "--no-fund", WORKERD], work);
  const binary = (await run("node", [
    "--input-type=module",
    "-e",
    'const m = await import("workerd"); console.log(m.default.default ?? m.default)',
  ], work)).trim();
  const webFiles = [];
  for await (const file of jsFiles(`${work}/node_modules/@fetchline/fetchline/web`)) {
    webFiles.push(file);
  }
  await Deno.writeTextFile(
    `${work}/workerd.capnp`,
    workerdConfig(webFiles, await sharedModules(work)),
  );
  const port = freePort();
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  await using fixture = serveFixture(held);
  const child = new Deno.Command(binary, {
    args: ["serve", "workerd.capnp", `--socket-addr=http=127.0.0.1:${port}`],
    cwd: work,
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  try {
    const query = new URLSearchParams({
      url: `http://127.0.0.1:${fixture.addr.port}`,
      refused: `http://127.0.0.1:${freePort()}`,
    });
    const failed: string[] = [];
    if (!SHARED_ONLY && !await askWorkerd(port, `/?${query}`)) failed.push("workerd");
    const shared = new URLSearchParams({ fixture: sharedFixture, areas: AREAS });
    if (!await askWorkerd(port, `/shared?${shared}`)) failed.push("workerd (shared suite)");
    return failed;
  } finally {
    child.kill("SIGTERM");
    await child.status;
    release();
  }
}

try {
  const packed = await run("npm", ["pack", "--silent", "--pack-destination", work], `${root}npm`);
  const tarball = `${work}/${packed.trim().split("\n").pop()}`;
  await Deno.writeTextFile(
    `${work}/package.json`,
    JSON.stringify({ name: "fetchline-runtimes-suite", private: true, type: "module" }),
  );
  await run("npm", ["install", "--silent", "--no-audit", "--no-fund", tarball], work);
  const files = [
    "smoke.mjs",
    "checks.mjs",
    "files.mjs",
    "workerd.mjs",
    "browser.mjs",
    "cors.mjs",
    "chromium.mjs",
  ];
  for (const file of [...files, "shared_suite.mjs"]) {
    await Deno.copyFile(`${root}tests/runtimes/${file}`, `${work}/${file}`);
  }
  await copyFolder(`${root}tests/shared`, `${work}/shared`);
  const fixture = await startSharedFixture(work);
  const failed: string[] = [];
  try {
    if (!SHARED_ONLY) failed.push(...await smoke([]));
    if (!await bunSharedSuite(fixture.line)) failed.push("Bun (shared suite)");
    if (!SHARED_ONLY) {
      await Deno.remove(`${work}/node_modules/tough-cookie`, { recursive: true });
      failed.push(
        ...(await smoke(["without-tough-cookie"])).map((name) => `${name} (no tough-cookie)`),
      );
      failed.push(...(await checkConditions(work)).map((name) => `esbuild as ${name}`));
    }
    failed.push(...await workerd(fixture.line));
    const refused = `http://127.0.0.1:${freePort()}`;
    if (!await chromium(work, refused, fixture.line, AREAS)) failed.push("Chromium");
    if (!await firefox(work, refused, fixture.line, AREAS)) failed.push("Firefox");
  } finally {
    await fixture.stop();
  }
  if (failed.length > 0) {
    console.error(`The npm package failed on: ${failed.join(", ")}`);
    Deno.exitCode = 1;
  } else {
    const passed = [...Object.keys(runtimes), "workerd"].join(", ");
    console.log(`The npm package passed on ${passed}, Chromium and Firefox`);
  }
} finally {
  await Deno.remove(work, { recursive: true });
}
