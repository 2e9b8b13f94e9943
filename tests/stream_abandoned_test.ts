// A streamed body abandoned after a read, neither read to its end nor
// cancelled: the read timeout's timer must not hold the process open until
// it fires (a script reading the head of a feed would hang for the whole
// readTimeout at its end).

import assert from "node:assert/strict";
import { exitWithin } from "./helpers.ts";

Deno.test("a program that reads part of a streamed body and returns ends without waiting for its readTimeout", async () => {
  const encoder = new TextEncoder();
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    // One chunk, then nothing until the client goes away.
    const body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(encoder.encode("x")) });
    return new Response(body);
  });
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'exec "$0" run --quiet --allow-net=127.0.0.1 "$1" "$2"',
      Deno.execPath(),
      new URL("./abandoned_body_child.ts", import.meta.url).pathname,
      `http://127.0.0.1:${server.addr.port}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The child's read timeout is 120 s; a child still running after 20 s waits for it.
  const { ended, text } = await exitWithin(child, 20_000);
  assert.ok(ended, `the program was still running 20 s after its last read: ${text}`);
  assert.equal(text.trim(), "read one chunk");
});
