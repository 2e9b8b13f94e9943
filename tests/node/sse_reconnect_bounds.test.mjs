// eventSource() (@fetchline/fetchline/sse) on the npm build under Node with waits longer than a
// timer counts (about 24.8 days): a server's huge `retry` must not become a
// timer that fires at once, reconnecting without a wait.

import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { eventSource } from "@fetchline/fetchline/sse";
import { fixture } from "./server.mjs";
import { singleAttemptClient } from "./helpers.mjs";

test("eventSource() waits a server's retry longer than a timer counts instead of reconnecting at once", async (t) => {
  const server = await fixture(t);
  let connections = 0;
  server.route("/huge", (_req, res) => {
    connections++;
    res.writeHead(200, { "content-type": "text/event-stream" });
    // 4e9 ms, 46 days; the body then ends.
    res.end("retry: 4000000000\n\n");
  });
  const http = singleAttemptClient(t, server);
  const stream = eventSource(http, "/huge", { maxReconnects: 3 });
  const loop = (async () => {
    for await (const _event of stream) { /* none is sent */ }
  })().then(() => "ended", (error) => error);
  await sleep(500);
  assert.equal(connections, 1, "reconnected without waiting the server's retry");
  await stream.close();
  assert.equal(await loop, "ended");
});
