/**
 * A live feed that survives dropped connections: the server needs a bearer
 * token (which the browser's EventSource cannot send), and it drops the
 * connection after every three events. `eventSource()` reconnects after
 * the server's `retry` time, sends `Last-Event-ID`, and the server resumes
 * right after the last event received: nothing is lost, nothing repeated.
 * When the feed is over the server answers 204, which ends the loop.
 *
 * Run it with `deno task example:sse-reconnect`.
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { eventSource } from "@fetchline/fetchline/sse";

const UPDATES = [
  "build started",
  "compiling",
  "tests: 120 passed",
  "tests: 240 passed",
  "packing",
  "uploading",
  "deployed to staging",
  "smoke tests passed",
  "deployed to production",
];

/**
 * A stand-in for a deploy log API: `GET /deploys/42/log` answers with a
 * `text/event-stream` of the updates after the `Last-Event-ID` it gets, at
 * most three a connection, and then drops the connection.
 */
function startServer(connections: string[]) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (request.headers.get("authorization") !== "Bearer demo-token") {
      return new Response("unauthorized", { status: 401 });
    }
    const resumeAfter = Number(request.headers.get("last-event-id") ?? 0);
    connections.push(request.headers.get("last-event-id") ?? "(none)");
    if (resumeAfter >= UPDATES.length) return new Response(null, { status: 204 }); // all sent
    const encoder = new TextEncoder();
    const batch = UPDATES.slice(resumeAfter, resumeAfter + 3);
    let id = resumeAfter;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const update = batch.shift();
        // After the batch: the connection is dropped, as a proxy or a deploy would.
        if (update === undefined) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 10));
        // `retry` tells the client to come back after 50 ms instead of 3 s.
        controller.enqueue(encoder.encode(`retry: 50\nid: ${++id}\ndata: ${update}\n\n`));
      },
    }, { highWaterMark: 0 });
    return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
  });
}

/**
 * Follows the deploy log to its end, reconnecting as the server drops it.
 *
 * @param write Where each line goes: standard output by default.
 * @returns The updates received, in order, and the `Last-Event-ID` of each connection.
 */
export async function main(
  write: (line: string) => void = console.log,
): Promise<{ updates: string[]; connections: string[] }> {
  const connections: string[] = [];
  await using server = startServer(connections);
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
    .withHeaders({ Authorization: "Bearer demo-token" }) // sent on every reconnection
    .build();
  await using client = new HttpClient(config);

  const updates: string[] = [];
  // `await using` closes the reader at the end of the block, whatever happens.
  await using log = eventSource(client, "/deploys/42/log", {
    readTimeout: 10, // a silent connection counts as dropped after 10 s
    maxReconnects: 5, // give up after 5 reconnections in a row without an update
  });
  for await (const event of log) {
    updates.push(event.data);
    write(`#${event.id} ${event.data}`);
  }
  // The loop ended on the server's 204: the feed is complete.
  write(`done after ${connections.length} connections (Last-Event-ID: ${connections.join(", ")})`);
  return { updates, connections };
}

if (import.meta.main) await main();
