/**
 * Tests the npm build as a user gets it: packs `npm/` (built by
 * `deno task build:npm`) with `npm pack`, installs the tarball into a
 * temporary folder, copies the Node suite (`tests/node/`) there and runs
 * `node --test` in it once for each Node line, importing
 * `@fetchline/fetchline` by its package name.
 *
 * The lines are the machine's `node` (when it is Node 22 or later) and the
 * LTS lines, 22 and 24, from the npm registry (`npx -y node@22`, cached after
 * the first run); `FETCHLINE_NODE_LINES=22` (majors joined by commas) picks
 * others; `FETCHLINE_NODE_FILES=shared_suite.test.mjs` (file names of
 * `tests/node/` joined by commas) runs only those files. Each run ends with one line,
 * `npm build on Node 22 (v22.x.y): 127 passed, 0 failed in 20 s`, which CI
 * sums; the script fails when any run does.
 *
 * The tracing test's OpenTelemetry packages ({@linkcode TRACING_PACKAGES})
 * are installed beside the package; where they cannot be, that test skips
 * and says why, unless `CI` is set, where the run fails instead.
 *
 * Run with `deno task test:npm`.
 *
 * @module
 */

import { type NodeLine, nodeLines } from "./node_lines.ts";

const root = decodeURIComponent(new URL("../", import.meta.url).pathname);

async function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, { args: [...args], cwd, stderr: "inherit" })
    .output();
  if (!output.success) throw new Error(`${command} ${args.join(" ")} failed (${output.code})`);
  return new TextDecoder().decode(output.stdout);
}

/** The major version of the machine's `node`, or undefined when it has none. */
async function machineMajor(): Promise<number | undefined> {
  try {
    const version = await run("node", ["-p", "process.versions.node"], root);
    return Number(version.split(".")[0]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** The exact version `line` starts (fetching it from the registry the first time). */
async function lineVersion(line: NodeLine): Promise<string> {
  const version = (await run(line.command, [...line.args, "-p", "process.version"], root)).trim();
  if (!version.startsWith(`v${line.major}.`)) {
    throw new Error(`${[line.command, ...line.args].join(" ")} started Node ${version}`);
  }
  return version;
}

/**
 * The packages of `tests/node/tracing.test.mjs`, pinned to versions that run
 * on Node 22: OpenTelemetry's API, context manager, SDK and undici
 * instrumentation. The npm build depends on none of them.
 */
const TRACING_PACKAGES: readonly string[] = [
  "@opentelemetry/api@1.9.1",
  "@opentelemetry/context-async-hooks@2.12.0",
  "@opentelemetry/core@2.12.1",
  "@opentelemetry/sdk-trace-base@2.12.1",
  "@opentelemetry/instrumentation-undici@0.33.0",
];

/** CI sets `CI` (any value but `false`): there the tracing test must run. */
function inCi(): boolean {
  const ci = Deno.env.get("CI");
  return ci !== undefined && ci !== "" && ci !== "false";
}

/** Installs {@linkcode TRACING_PACKAGES} in `work`; a failure outside CI only makes the tracing test skip. */
async function installTracing(work: string): Promise<void> {
  try {
    await run("npm", ["install", "--silent", "--no-audit", "--no-fund", ...TRACING_PACKAGES], work);
  } catch (error) {
    if (inCi()) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    console.warn(
      `The OpenTelemetry packages could not be installed, the tracing test skips: ${detail}`,
    );
  }
}

/**
 * The packages some Node tests use beside the package, at the versions
 * deno.json's imports name (`zod@^4`): Standard Schema validators, the
 * Redis clients of the Redis cache store's test, the HAR 1.2 schema with
 * its validator (har.test.mjs), and the independent checkers of
 * signing.test.mjs (jose for DPoP proofs, http-message-signatures for RFC
 * 9421 signatures).
 */
async function testDependencies(): Promise<string[]> {
  const { imports } = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
  return [
    "zod",
    "valibot",
    "redis",
    "ioredis",
    "ajv",
    "har-schema",
    "jose",
    "http-message-signatures",
  ].map((name) => {
    const specifier = imports[name];
    if (typeof specifier !== "string" || !specifier.startsWith("npm:")) {
      throw new Error(`deno.json imports no npm: specifier for ${name}`);
    }
    return specifier.slice("npm:".length);
  });
}

async function install(work: string): Promise<void> {
  const packed = await run("npm", ["pack", "--silent", "--pack-destination", work], `${root}npm`);
  const tarball = `${work}/${packed.trim().split("\n").pop()}`;
  await Deno.writeTextFile(
    `${work}/package.json`,
    JSON.stringify({ name: "fetchline-node-suite", private: true, type: "module" }),
  );
  await run(
    "npm",
    ["install", "--silent", "--no-audit", "--no-fund", tarball, ...await testDependencies()],
    work,
  );
  await installTracing(work);
  for await (const entry of Deno.readDir(`${root}tests/node`)) {
    if (entry.isFile) {
      await Deno.copyFile(`${root}tests/node/${entry.name}`, `${work}/${entry.name}`);
    }
  }
  for (const shared of ["bad_headers.json", "bad_urls.json"]) {
    await Deno.copyFile(`${root}tests/${shared}`, `${work}/${shared}`);
  }
  await copyFolder(`${root}tests/shared`, `${work}/shared`);
  await copyFolder(`${root}tests/fixtures`, `${work}/fixtures`);
}

/** Copies the shared suite (tests/shared/ and its routes/) where the Node suite imports it. */
async function copyFolder(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyFolder(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** A run's closing line, and whether every test passed. */
interface SuiteRun {
  readonly summary: string;
  readonly ok: boolean;
}

/** The last count TAP's closing comments give for `name` (`# pass 127`). */
function tapCount(tap: string, name: string): number | undefined {
  const counts = [...tap.matchAll(new RegExp(`^# ${name} (\\d+)$`, "gm"))];
  const last = counts.at(-1);
  return last === undefined ? undefined : Number(last[1]);
}

/**
 * Runs the suite in `work` on `line`: TAP on stdout as it goes (the reporter
 * named, as Node 23 and later default to another one) and into a file, whose
 * counts make the run's closing line.
 */
async function runSuite(
  line: NodeLine,
  version: string,
  work: string,
): Promise<SuiteRun> {
  const tapFile = `${work}/node-${line.major}.tap`;
  console.log(`\n--- npm build on Node ${line.major} (${version}): node --test`);
  const started = performance.now();
  const { code } = await new Deno.Command(line.command, {
    args: [
      ...line.args,
      "--test",
      ...["--test-reporter=tap", "--test-reporter-destination=stdout"],
      ...["--test-reporter=tap", `--test-reporter-destination=${tapFile}`],
      ...files,
    ],
    cwd: work,
    // The suite checks that it runs on the line it was started for.
    env: { FETCHLINE_NODE_LINE: String(line.major) },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  const seconds = Math.round((performance.now() - started) / 1000);
  const tap = await Deno.readTextFile(tapFile).catch(() => "");
  const passed = tapCount(tap, "pass");
  const failed = tapCount(tap, "fail");
  const counts = passed === undefined || failed === undefined
    ? "no test summary"
    : `${passed} passed, ${failed} failed`;
  const ok = code === 0 && failed === 0;
  const outcome = ok ? "" : ` (exit code ${code})`;
  return {
    summary: `npm build on Node ${line.major} (${version}): ${counts} in ${seconds} s${outcome}`,
    ok,
  };
}

const files = (Deno.env.get("FETCHLINE_NODE_FILES") ?? "").split(",").filter((name) => name !== "");
const lines = nodeLines(Deno.env.get("FETCHLINE_NODE_LINES"), await machineMajor());
const versions: string[] = [];
for (const line of lines) versions.push(await lineVersion(line));
const work = await Deno.makeTempDir({ prefix: "fetchline-npm-test-" });
try {
  await install(work);
  const runs: SuiteRun[] = [];
  for (const [index, line] of lines.entries()) {
    runs.push(await runSuite(line, versions[index] ?? "", work));
  }
  console.log(`\n${runs.map((result) => result.summary).join("\n")}`);
  if (runs.some((result) => !result.ok)) Deno.exitCode = 1;
} finally {
  await Deno.remove(work, { recursive: true });
}
