// A script that sends one request pays for what it uses: on Deno, the
// client's default timeout must not load Node's timers modules (the first
// read of the global setTimeout does), and a shared timeout still fires.

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
