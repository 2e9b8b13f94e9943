/**
 * Memory: 100,000 requests through one client keep the heap flat and leave
 * no open resources. Run it under `deno test`, whose sanitizers fail a test
 * that leaves a resource (a socket, the pool, a child process) or an async
 * op (a timer) behind:
 *
 * ```sh
 * deno test --v8-flags=--expose-gc --allow-net=127.0.0.1 --allow-run=deno bench/memory.ts -- --requests=100000
 * ```
 *
 * Two runs of the same client (fetchline with the five hooks of
 * bench/clients.ts, alternating GET and POST): over an in-memory transport
 * (`withFetch`: only the library's own allocations), and over its real pool
 * to bench/server.ts in another process (the pool, sockets and bodies too).
 * The heap is measured after a full `gc()`, after a warm-up and then every
 * tenth of the run; each test prints one JSON line (`"kind": "memory"`) that
 * bench/run.ts reads. The test asserts the resource table, not the heap: the
 * heap's figures are reported (RESULTS.md), since a bound on them would be a
 * guess about V8.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import type { FetchLike } from "../mod.ts";
import { withFiveHooks } from "./clients.ts";
import { spawnServer } from "./server.ts";
import { checkAnswer, ECHO_BODY, ITEM, PATHS } from "./_workload.ts";
import type { Workload } from "./_workload.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { requests: { type: "string", default: "100000" } },
});
const REQUESTS = Number(values.requests);
const WARMUP = Math.min(5_000, REQUESTS);
const SAMPLES = 10;
const MB = 1024 * 1024;

/**
 * The heap used after full collections, in MB; needs `--v8-flags=--expose-gc`.
 * Each collection is followed by a turn of the event loop: FinalizationRegistry
 * callbacks run as tasks, and Deno relies on one to drop the dead entries
 * `AbortSignal.any()` leaves on a long-lived signal (the client's close
 * signal); without the turns, an in-memory run that never leaves the
 * microtask queue would count them as growth.
 */
async function heapMb(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("Run with --v8-flags=--expose-gc");
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return Deno.memoryUsage().heapUsed / MB;
}

/**
 * The names of the open resources, from Deno's internal resource table (the
 * public `Deno.resources()` is gone in Deno 2); `undefined` where it is not
 * reachable. The test sanitizer is the check that does not depend on it.
 */
function openResources(): string[] | undefined {
  const internal = (Deno as unknown as Record<symbol, unknown>)[
    (Deno as unknown as { internal: symbol }).internal
  ] as { core?: { resources?: () => Record<string, string> } } | undefined;
  const table = internal?.core?.resources?.();
  return table === undefined ? undefined : Object.values(table).sort();
}

/** What is in `after` and not in `before` (as multisets). */
function added(before: readonly string[], after: readonly string[]): string[] {
  const left = [...before];
  return after.filter((name) => {
    const i = left.indexOf(name);
    if (i === -1) return true;
    left.splice(i, 1);
    return false;
  });
}

async function run(
  transport: "in-memory" | "server",
  url: string,
  fetchLike?: FetchLike,
) {
  const resourcesBefore = openResources();
  const rssBefore = Deno.memoryUsage().rss / MB;
  let builder = withFiveHooks(new HttpClientConfigBuilder());
  if (fetchLike !== undefined) builder = builder.withFetch(fetchLike);
  const client = new HttpClient(builder.build());
  const concurrency = transport === "server" ? 16 : 8;
  let next = 0;
  const send = async (count: number) => {
    const end = next + count;
    const lane = async () => {
      while (next < end) {
        const workload: Workload = next++ % 2 === 0 ? "get" : "post";
        const response = workload === "get"
          ? await client.get(url + PATHS.get)
          : await client.post(url + PATHS.post, { jsonData: ECHO_BODY });
        checkAnswer(workload, response.json());
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  };
  await send(WARMUP);
  const heapBefore = await heapMb();
  const samples = [heapBefore];
  const start = performance.now();
  next = 0;
  for (let i = 0; i < SAMPLES; i++) {
    await send(Math.ceil(REQUESTS / SAMPLES));
    samples.push(await heapMb());
  }
  const seconds = (performance.now() - start) / 1000;
  const heapAfter = samples.at(-1)!;
  await client[Symbol.asyncDispose]();
  const resourcesAfter = openResources();
  const leaked = resourcesBefore && resourcesAfter && added(resourcesBefore, resourcesAfter);
  const result = {
    kind: "memory",
    transport,
    client: "fetchline+hooks",
    requests: next,
    concurrency,
    seconds,
    heapBeforeMb: heapBefore,
    heapAfterMb: heapAfter,
    heapMaxMb: Math.max(...samples),
    heapSamplesMb: samples.map((mb) => Number(mb.toFixed(3))),
    rssBeforeMb: rssBefore,
    rssAfterMb: Deno.memoryUsage().rss / MB,
    resourcesAfterClose: resourcesAfter ?? null,
    leakedResources: leaked ?? null,
  };
  console.log(JSON.stringify(result));
  if (leaked) assert.deepEqual(leaked, [], "resources left open after close()");
}

Deno.test(`${REQUESTS} requests over an in-memory transport keep the heap flat`, async () => {
  const itemText = JSON.stringify(ITEM);
  const echoText = JSON.stringify(ECHO_BODY);
  const transport: FetchLike = (_input, init) =>
    Promise.resolve(
      new Response(init?.method === "POST" ? echoText : itemText, {
        headers: { "content-type": "application/json" },
      }),
    );
  await run("in-memory", "http://127.0.0.1:8080", transport);
});

Deno.test(`${REQUESTS} requests to a local server keep the heap flat and close everything`, async () => {
  await using server = await spawnServer();
  await run("server", server.url);
});
