// A script that sends one request pays for what it uses: on Deno, the
// client's default timeout must not load Node's timers modules (the first
// read of the global setTimeout does), and a shared timeout still fires;
// and the module graph of mod.ts, which Deno fetches whole into a cold cache
// before the script runs, holds no npm package (tough-cookie is loaded on
// the first cookie received).

import assert from "node:assert/strict";
import { startFixtureServer } from "./fixture_server.ts";

Deno.test("a script sending one request with the default timeout never touches Deno's setTimeout, and a 1 s timeout still fires", async () => {
  await using server = startFixtureServer();
  const output = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --allow-net=127.0.0.1 "$1" "$2"',
      Deno.execPath(),
      new URL("./one_shot_child.ts", import.meta.url).pathname,
      server.url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout).trim();
  assert.ok(output.success, `${text} ${new TextDecoder().decode(output.stderr)}`);
  const result = JSON.parse(text);
  assert.equal(result.accessor, true, "Deno's setTimeout is a lazy getter until first read");
  assert.deepEqual(result.status, [200]);
  assert.equal(result.readsAfterGet, 0, "setTimeout was read during one GET");
  assert.equal(result.timedOut, true, "the 1 s timeout fired");
});

Deno.test("the module graph of mod.ts holds no npm or node module, so a cold cache fetches none", async () => {
  const output = await new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" info --json "$1"',
      Deno.execPath(),
      new URL("../mod.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const graph = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { specifier: string }[];
  };
  assert.ok(graph.modules.length > 50, "the graph was read");
  const foreign = graph.modules.map((m) => m.specifier).filter((s) => /^(npm|node):/.test(s));
  assert.deepEqual(foreign, []);
});
