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
 * Then it syncs again through the HTTP cache in front of those controls:
 * every page is revalidated (`no-cache`, an ETag) and answered 304, which
 * the API, like GitHub's, leaves out of its limit. A limit that counts the
 * 304s spaces the re-sync out like the first sync (one every 67 ms); with
 * `countNotModified: false` each 304 gives its token back and the re-sync
 * takes the time of its round trips. It prints both times.
 *
 * Run it with `deno task example:polite-sync`.
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { HttpCache, MemoryCacheStore } from "@fetchline/fetchline/cache";
import { concurrency, rateLimit, serverPacing } from "@fetchline/fetchline/traffic";

/** What the API saw. */
export interface Seen {
  /** Requests answered with a page. */
  pages: number;
  /** Requests refused with a 429. */
  throttled: number;
  /** Conditional requests answered 304 (not counted by the API's limit). */
  notModified: number;
  /** The most requests in flight at once. */
  mostAtOnce: number;
}

/**
 * An API of `total` pages of items that allows 20 requests in any one
 * second; a page carries an ETag, and a request that names it is answered
 * 304 at once, outside the limit.
 */
function startApi(total: number, seen: Seen) {
  const recent: number[] = [];
  let inFlight = 0;
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const page = Number(new URL(request.url).searchParams.get("page"));
    const headers = { ETag: `"page-${page}-v1"`, "Cache-Control": "no-cache" };
    if (request.headers.get("if-none-match") === headers.ETag) {
      seen.notModified++;
      return new Response(null, { status: 304, headers });
    }
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
    const items = Array.from({ length: 10 }, (_, i) => ({ id: (page - 1) * 10 + i + 1 }));
    return Response.json({ page, of: total, items }, { headers });
  });
}

/** What {@linkcode main} measured. */
export interface Synced {
  /** What the API saw. */
  seen: Seen;
  /** The items of the first sync. */
  items: number;
  /** The seconds of the re-sync whose limit counts the 304s. */
  countedSeconds: number;
  /** The seconds of the re-sync with `countNotModified: false`. */
  uncountedSeconds: number;
}

/** Runs the example: syncs `total` pages, then twice again, printing each line with `print`. */
export async function main(
  total = 60,
  print: (line: string) => void = console.log,
): Promise<Synced> {
  const seen: Seen = { pages: 0, throttled: 0, notModified: 0, mostAtOnce: 0 };
  await using api = startApi(total, seen);
  const cache = new HttpCache({ store: new MemoryCacheStore({ maxBytes: 8 * 2 ** 20 }) });
  /** A client through the cache (outermost: a page it answers needs no token) and the controls. */
  const connect = (countNotModified: boolean) =>
    new HttpClient(
      new HttpClientConfigBuilder()
        .withBaseUrl(`http://127.0.0.1:${api.addr.port}`)
        .withCache(cache)
        .withMiddleware(
          concurrency({ max: 4 }),
          // Evenly: one every 67 ms; a 304 gives its token back unless counted.
          rateLimit({ requests: 15, perSeconds: 1, burst: 1, countNotModified }),
          serverPacing({ maxWaitSeconds: 30 }),
        )
        .build(),
    );
  /** Fetches every page through `client`: the items and the seconds taken. */
  const sync = async (client: HttpClient) => {
    const started = performance.now();
    const pages = await Promise.all(
      Array.from({ length: total }, (_, i) => client.get("/items", { params: { page: i + 1 } })),
    );
    const items = pages.reduce(
      (sum, page) => sum + (page.json() as { items: unknown[] }).items.length,
      0,
    );
    return { items, seconds: (performance.now() - started) / 1000 };
  };
  await using client = connect(false);
  const { items, seconds } = await sync(client);
  print(`${items} items from ${total} pages in ${seconds.toFixed(1)} s`);
  print(
    `the API answered ${seen.pages} pages, throttled ${seen.throttled} requests, and had at most ` +
      `${seen.mostAtOnce} in flight at once`,
  );
  await using counting = connect(true);
  const counted = await sync(counting);
  const uncounted = await sync(client);
  print(
    `re-sync, every page a 304: ${counted.seconds.toFixed(2)} s counting the 304s, ` +
      `${uncounted.seconds.toFixed(2)} s with countNotModified: false ` +
      `(${(counted.seconds / uncounted.seconds).toFixed(0)}x faster)`,
  );
  return { seen, items, countedSeconds: counted.seconds, uncountedSeconds: uncounted.seconds };
}

if (import.meta.main) await main();
