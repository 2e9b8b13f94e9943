// The README's first set-up command, `deno task demo`, on a fresh machine:
// a copy of the repository's library, examples and configuration with no
// node_modules, and an empty DENO_DIR. The demo imports no npm package, so
// its first run installs none (deno.json's "nodeModulesDir" is "manual":
// the development packages of its "imports" and lockfile, installed by the
// tasks that use them, stay out of the demo's way).

import assert from "node:assert/strict";

const root = new URL("../", import.meta.url).pathname;

/** `path`'s entries, or none when it does not exist. */
async function entries(path: string): Promise<string[]> {
  try {
    return await Array.fromAsync(Deno.readDir(path), (entry) => entry.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

Deno.test("The demo's first run on a fresh machine installs no npm package", async () => {
  const work = await Deno.makeTempDir({ prefix: "fetchline-demo-" });
  try {
    const clone = `${work}/clone`;
    const denoDir = `${work}/deno_dir`;
    await Deno.mkdir(`${clone}/examples`, { recursive: true });
    await Deno.mkdir(denoDir);
    const files = ["deno.json", "deno.lock", "examples/demo.ts"];
    for await (const entry of Deno.readDir(root)) {
      if (entry.isFile && entry.name.endsWith(".ts")) files.push(entry.name);
    }
    for (const file of files) await Deno.copyFile(`${root}${file}`, `${clone}/${file}`);
    // src/ as it is, through sh (which the suite may run), as `cp -R` copies it.
    const copy = await new Deno.Command("sh", {
      args: ["-c", 'cp -R "$0/src" "$1/src"', root, clone],
      stdin: "null",
    }).output();
    assert.equal(copy.code, 0, new TextDecoder().decode(copy.stderr));

    // The task, through sh likewise (not Deno's own path), bounded in time.
    const { code, stdout, stderr } = await new Deno.Command("sh", {
      args: ["-c", 'exec "$0" "$@"', Deno.execPath(), "task", "demo"],
      cwd: clone,
      env: { DENO_DIR: denoDir, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
      signal: AbortSignal.timeout(120_000),
    }).output();
    const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    assert.equal(code, 0, output);
    assert.match(output, /Done: every request above went over a real socket to 127\.0\.0\.1\./);
    assert.deepEqual(await entries(`${clone}/node_modules`), [], "a node_modules folder");
    assert.deepEqual(
      await entries(`${denoDir}/npm/registry.npmjs.org`),
      [],
      "npm packages in the DENO_DIR",
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
