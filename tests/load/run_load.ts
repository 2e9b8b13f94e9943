// The load run shared by the suite's small load test and `deno task
// test:load`: many requests at a fixed concurrency against the fixture
// server, each carrying an ID the server echoes, so every response can be
// matched to its request.

import { HttpClient, HttpClientConfigBuilder } from "../../mod.ts";
import { startFixtureServer } from "../fixture_server.ts";

/** What one run measured. */
export interface LoadResult {
  readonly requests: number;
  readonly concurrency: number;
  /** Requests the server answered, after the warm-up. */
  readonly served: number;
  /** IDs whose response did not echo them. */
  readonly mismatched: readonly number[];
  /** Failures, with the ID of the request. */
  readonly errors: readonly [id: number, error: unknown][];
  /** From the first request to the last response, in milliseconds. */
  readonly wallMs: number;
  /** Heap used after a GC before the first request and after the last, in bytes. */
  readonly heapBefore: number;
  readonly heapAfter: number;
  /** The highest heap use sampled during the run, in bytes. */
  readonly heapPeak: number;
  /** Whether `gc()` was available, making the heap figures comparable. */
  readonly collected: boolean;
}

const gc = (globalThis as { gc?: () => void }).gc;

function heapUsed(): number {
  // Twice: the first collection can leave garbage that finalizers freed.
  gc?.();
  gc?.();
  return Deno.memoryUsage().heapUsed;
}

/** Sends `requests` GETs with `concurrency` in flight at a time through one client. */
export async function runLoad(requests: number, concurrency: number): Promise<LoadResult> {
  // Recording would grow with the run and hide the client's own memory.
  await using server = startFixtureServer({ record: false });
  let served = 0;
  server.route("/load", (request) => {
    served++;
    const id = new URL(request.url).searchParams.get("id");
    return Response.json({ id, header: request.headers.get("x-load-id") });
  });
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).build(),
  );
  const mismatched: number[] = [];
  const errors: [number, unknown][] = [];
  let next = 0;
  const worker = (last: number) => async () => {
    while (next < last) {
      const id = next++;
      try {
        const response = await client.get("/load", {
          params: { id },
          headers: { "X-Load-Id": String(id) },
        });
        const echo = response.json<{ id: string; header: string }>();
        if (response.statusCode !== 200 || echo.id !== `${id}` || echo.header !== `${id}`) {
          mismatched.push(id);
        }
      } catch (error) {
        errors.push([id, error]);
      }
    }
  };
  // A warm-up opens the pool's connections and compiles the hot paths, so
  // the heap figures compare steady states.
  const warmUp = Math.min(requests, concurrency * 5);
  await Promise.all(Array.from({ length: concurrency }, worker(warmUp)));
  served = 0;
  const heapBefore = heapUsed();
  let heapPeak = heapBefore;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, Deno.memoryUsage().heapUsed);
  }, 50);
  const start = performance.now();
  try {
    await Promise.all(Array.from({ length: concurrency }, worker(warmUp + requests)));
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - start;
  const heapAfter = heapUsed();
  return {
    requests,
    concurrency,
    served,
    mismatched,
    errors,
    wallMs,
    heapBefore,
    heapAfter,
    heapPeak: Math.max(heapPeak, heapAfter),
    collected: gc !== undefined,
  };
}

/** One line for the log: the figures CONTRIBUTING.md quotes. */
export function describeLoad(result: LoadResult): string {
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  return `${result.requests} requests at concurrency ${result.concurrency}: ` +
    `${(result.wallMs / 1000).toFixed(2)} s (${
      Math.round(result.requests / (result.wallMs / 1000))
    } req/s), heap ${mb(result.heapBefore)} before, ${mb(result.heapAfter)} after` +
    `${result.collected ? " (after GC)" : " (no GC)"}, peak ${mb(result.heapPeak)}`;
}
