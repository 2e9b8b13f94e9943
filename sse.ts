/**
 * The reconnecting reader of Server-Sent Events: {@linkcode eventSource}
 * reads a URL's events with a client's headers, auth and hooks, as
 * EventSource does, across reconnections (`Last-Event-ID`, the server's
 * `retry`, `maxReconnects`, `totalTimeout`). To read the events of a body
 * one already has, `response.events()` (in `mod.ts`) is enough. `mod.ts`
 * never loads this module: a client that does not reconnect never loads
 * its code.
 *
 * For: following a GET feed of events for a long time, across dropped
 * connections. Guide: [docs/streaming.md](./docs/streaming.md).
 *
 * @example Resume a feed where it was left
 * ```ts
 * import { createClient } from "@fetchline/fetchline";
 * import { eventSource } from "@fetchline/fetchline/sse";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
 *   const id = Number(request.headers.get("last-event-id")) + 1;
 *   const body = `retry: 10\nid: ${id}\ndata: event ${id}\n\n`; // then the body ends
 *   return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
 * });
 * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
 * await using feed = eventSource(client, "/feed", { lastEventId: "7", maxReconnects: 5 });
 * const received: string[] = [];
 * for await (const event of feed) {
 *   if (received.push(event.data) === 2) break;
 * }
 * assert.deepEqual(received, ["event 8", "event 9"]);
 * ```
 *
 * @module
 */

export { eventSource } from "./src/sse/event_source.ts";
export type { EventStream, EventStreamOptions } from "./src/sse/event_source.ts";
