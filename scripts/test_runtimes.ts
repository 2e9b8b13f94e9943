/**
 * Tests the npm package on each runtime its `exports` conditions serve, as a
 * user gets it: packs `npm/` (built by `deno task build:npm`), installs the
 * tarball into a temporary folder next to `tests/runtimes/smoke.mjs`, and
 * runs that file's checks on Node (the Node build), Bun and Deno (the Web
 * build). Bun comes from the npm registry, pinned, as Deno does. Then, with
 * tough-cookie removed from the install, the default cookie jar's error on
 * each runtime.
 *
 * Run with `deno task test:runtimes`; it exits 1 if any runtime fails.
 *
 * @module
 */

const root = decodeURIComponent(new URL("../", import.meta.url).pathname);
const work = await Deno.makeTempDir({ prefix: "fetchline-runtimes-test-" });
const BUN = "bun@1.4.5";

/** Each runtime's command line for a script, with its arguments. */
const runtimes: Record<string, (script: string, args: string[]) => [string, string[]]> = {
  Node: (script, args) => ["node", [script, ...args]],
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

try {
  const packed = await run("npm", ["pack", "--silent", "--pack-destination", work], `${root}npm`);
  const tarball = `${work}/${packed.trim().split("\n").pop()}`;
  await Deno.writeTextFile(
    `${work}/package.json`,
    JSON.stringify({ name: "fetchline-runtimes-suite", private: true, type: "module" }),
  );
  await run("npm", ["install", "--silent", "--no-audit", "--no-fund", tarball], work);
  await Deno.copyFile(`${root}tests/runtimes/smoke.mjs`, `${work}/smoke.mjs`);
  const failed = await smoke([]);
  await Deno.remove(`${work}/node_modules/tough-cookie`, { recursive: true });
  failed.push(
    ...(await smoke(["without-tough-cookie"])).map((name) => `${name} (no tough-cookie)`),
  );
  if (failed.length > 0) {
    console.error(`The npm package failed on: ${failed.join(", ")}`);
    Deno.exitCode = 1;
  } else console.log(`The npm package passed on ${Object.keys(runtimes).join(", ")}`);
} finally {
  await Deno.remove(work, { recursive: true });
}
