/**
 * Tests the npm build as a user gets it: packs `npm/` (built by
 * `deno task build:npm`) with `npm pack`, installs the tarball into a
 * temporary folder, copies the Node suite (`tests/node/`) there and runs
 * `node --test`, which imports `@fetchline/fetchline` by its package name.
 *
 * Run with `deno task test:npm`.
 *
 * @module
 */

const root = decodeURIComponent(new URL("../", import.meta.url).pathname);
const work = await Deno.makeTempDir({ prefix: "fetchline-npm-test-" });

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const output = await new Deno.Command(command, { args, cwd, stderr: "inherit" }).output();
  if (!output.success) throw new Error(`${command} ${args.join(" ")} failed (${output.code})`);
  return new TextDecoder().decode(output.stdout);
}

try {
  const packed = await run("npm", ["pack", "--silent", "--pack-destination", work], `${root}npm`);
  const tarball = `${work}/${packed.trim().split("\n").pop()}`;
  await Deno.writeTextFile(
    `${work}/package.json`,
    JSON.stringify({ name: "fetchline-node-suite", private: true, type: "module" }),
  );
  await run("npm", ["install", "--silent", "--no-audit", "--no-fund", tarball], work);
  for await (const entry of Deno.readDir(`${root}tests/node`)) {
    if (entry.isFile) {
      await Deno.copyFile(`${root}tests/node/${entry.name}`, `${work}/${entry.name}`);
    }
  }
  for (const shared of ["bad_headers.json", "bad_urls.json"]) {
    await Deno.copyFile(`${root}tests/${shared}`, `${work}/${shared}`);
  }
  const { code } = await new Deno.Command("node", {
    args: ["--test"],
    cwd: work,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) Deno.exitCode = code;
} finally {
  await Deno.remove(work, { recursive: true });
}
