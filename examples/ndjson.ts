/**
 * Newline-delimited JSON (NDJSON): the server writes one JSON record per
 * line as it produces them, and the client parses each line as it arrives
 * with `response.lines()`, never holding the whole body. `readTimeout`
 * bounds each wait for the next chunk, so a server that stalls mid-stream
 * fails the read instead of hanging it.
 *
 * Run it with `deno task example:ndjson`.
 *
 * @module
 */

import { createClient, TimeoutException } from "@fetchline/fetchline";

interface Order {
  id: number;
  item: string;
  total: number;
}

/** An export endpoint: `GET /orders` streams records; `GET /stalls` stops after two. */
function startServer() {
  const encoder = new TextEncoder();
  const stop = new AbortController(); // ends the stalled stream when the server closes
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    (request) => {
      const stalls = new URL(request.url).pathname === "/stalls";
      async function* records() {
        for (let id = 1; id <= 5; id++) {
          if (stalls && id === 3) {
            // Stalls until the server stops: longer than any readTimeout below.
            await new Promise((resolve) => stop.signal.addEventListener("abort", resolve));
            return;
          }
          const order: Order = { id, item: `book #${id}`, total: 9.5 * id };
          yield encoder.encode(`${JSON.stringify(order)}\n`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      return new Response(ReadableStream.from(records()), {
        headers: { "Content-Type": "application/x-ndjson" },
      });
    },
  );
  return {
    port: server.addr.port,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await server.finished;
    },
  };
}

/**
 * Reads the records of a healthy stream, then shows `readTimeout` ending a stalled one.
 *
 * @param log Where the lines go: `console.log` by default.
 * @returns The orders read from the healthy stream.
 */
export async function main(log: (line: string) => void = console.log): Promise<Order[]> {
  await using server = startServer();
  await using client = createClient(`http://127.0.0.1:${server.port}`);

  const orders: Order[] = [];
  {
    await using response = await client.stream("GET", "/orders", { readTimeout: 2 });
    for await (const line of response.lines()) {
      if (line === "") continue; // tolerate blank lines between records
      const order = JSON.parse(line) as Order;
      orders.push(order);
      log(`order ${order.id}: ${order.item}, ${order.total.toFixed(2)}`);
    }
  }
  log(`${orders.length} orders, ${orders.reduce((sum, o) => sum + o.total, 0).toFixed(2)} in all`);

  // The second export sends two records and goes quiet: after 0.2 s without
  // a chunk the read fails with a TimeoutException naming readTimeout.
  try {
    await using response = await client.stream("GET", "/stalls", { readTimeout: 0.2 });
    for await (const line of response.lines()) log(`stalled export: ${line}`);
  } catch (error) {
    if (!(error instanceof TimeoutException)) throw error;
    log(`stalled export: ${error.name}: ${error.message}`);
  }
  return orders;
}

if (import.meta.main) await main();
