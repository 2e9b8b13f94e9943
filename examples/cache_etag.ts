/**
 * An HTTP cache in front of a GitHub-like API: the API answers each
 * resource with an ETag and `Cache-Control: private, max-age=1` (GitHub
 * says 60), and counts a request against the caller's rate limit unless it
 * answers 304, as GitHub does. The client asks for the same three
 * repositories six times, 400 ms apart: while a response is fresh the cache
 * answers, once it is stale one conditional request revalidates it, and
 * the 304 costs nothing. The `Cache-Status` header tells what the cache did.
 *
 * Run it with `deno task example:cache`.
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
import { HttpCache, MemoryCacheStore } from "@fetchline/fetchline/cache";

/** What the API saw: every request, and those that counted against the limit. */
export interface Counts {
  requests: number;
  counted: number;
  notModified: number;
}

/** A GitHub-like API on a free port: `GET /repos/<name>`, ETags, 304s, a rate limit. */
function startApi(counts: Counts) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    counts.requests++;
    const name = new URL(request.url).pathname.split("/").pop();
    const etag = `"${name}-v1"`;
    const headers = { ETag: etag, "Cache-Control": "private, max-age=1", Vary: "Authorization" };
    if (request.headers.get("if-none-match") === etag) {
      counts.notModified++;
      return new Response(null, { status: 304, headers });
    }
    counts.counted++;
    return Response.json({ name, stars: name!.length * 100 }, { headers });
  });
}

/** Runs the example, printing each line with `print`. */
export async function main(print: (line: string) => void = console.log): Promise<Counts> {
  const counts: Counts = { requests: 0, counted: 0, notModified: 0 };
  await using api = startApi(counts);
  const cache = new HttpCache({ store: new MemoryCacheStore({ maxBytes: 8 * 2 ** 20 }) });
  await using client = new HttpClient(
    new HttpClientConfigBuilder()
      .withBaseUrl(`http://127.0.0.1:${api.addr.port}`)
      .withHeaders({ Authorization: "Bearer example-token" })
      .withCache(cache)
      .build(),
  );
  const started = performance.now();
  for (let round = 0; round < 6; round++) {
    if (round > 0) await new Promise((resolve) => setTimeout(resolve, 400));
    const statuses: string[] = [];
    for (const repo of ["fetchline", "deno", "undici"]) {
      const response = await client.get(`/repos/${repo}`);
      statuses.push(`${repo}: ${response.header("cache-status")?.replace("fetchline; ", "")}`);
    }
    const at = ((performance.now() - started) / 1000).toFixed(1);
    print(`t=${at} s  ${statuses.join(", ")}`);
  }
  print(
    `18 calls: ${counts.requests} reached the API, ${counts.counted} counted against the ` +
      `rate limit, ${counts.notModified} were 304s`,
  );
  return counts;
}

if (import.meta.main) await main();
