/**
 * Syncing a paginated API politely: the API allows 20 requests a second
 * per client and answers 429 with `Retry-After` past that, and a hurried
 * client that fetches every page at once gets throttled. This client
 * fetches at most 4 pages at once (`concurrency`), never more than 15
 * requests a second, spread evenly (`rateLimit`), and, should the server
 * still say "slow down", holds every call to it until the time it names
 * (`serverPacing`). It fetches 60 pages and prints what the server saw: no
 * request refused.
 *
 * Run it with `deno task example:polite-sync`.
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { concurrency, rateLimit, serverPacing } from "@fetchline/fetchline/traffic";

/** What the API saw. */
export interface Seen {
  /** Requests answered with a page. */
  pages: number;
  /** Requests refused with a 429. */
  throttled: number;
  /** The most requests in flight at once. */
  mostAtOnce: number;
}

/** An API of `total` pages of items that allows 20 requests in any one second. */
function startApi(total: number, seen: Seen) {
  const recent: number[] = [];
  let inFlight = 0;
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const now = Date.now();
    while (recent.length > 0 && recent[0]! <= now - 1000) recent.shift();
    if (recent.length >= 20) {
      seen.throttled++;
      return new Response("slow down", { status: 429, headers: { "Retry-After": "1" } });
    }
    recent.push(now);
    inFlight++;
    seen.mostAtOnce = Math.max(seen.mostAtOnce, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a page takes a while to build
    inFlight--;
    seen.pages++;
    const page = Number(new URL(request.url).searchParams.get("page"));
    const items = Array.from({ length: 10 }, (_, i) => ({ id: (page - 1) * 10 + i + 1 }));
    return Response.json({ page, of: total, items });
  });
}

/** Runs the example: syncs `total` pages, printing each line with `print`. */
export async function main(
  total = 60,
  print: (line: string) => void = console.log,
): Promise<{ seen: Seen; items: number }> {
  const seen: Seen = { pages: 0, throttled: 0, mostAtOnce: 0 };
  await using api = startApi(total, seen);
  await using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(`http://127.0.0.1:${api.addr.port}`)
      .withMiddleware(
        concurrency({ max: 4 }),
        rateLimit({ requests: 15, perSeconds: 1, burst: 1 }), // evenly: one every 67 ms
        serverPacing({ maxWaitSeconds: 30 }),
      )
      .build(),
  );
  const started = performance.now();
  const pages = await Promise.all(
    Array.from({ length: total }, (_, i) => client.get("/items", { params: { page: i + 1 } })),
  );
  const items = pages.reduce(
    (sum, page) => sum + (page.json() as { items: unknown[] }).items.length,
    0,
  );
  const seconds = (performance.now() - started) / 1000;
  print(`${items} items from ${total} pages in ${seconds.toFixed(1)} s`);
  print(
    `the API answered ${seen.pages} pages, throttled ${seen.throttled} requests, and had at most ` +
      `${seen.mostAtOnce} in flight at once`,
  );
  return { seen, items };
}

if (import.meta.main) await main();
