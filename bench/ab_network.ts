/**
 * `deno task bench:ab`: the in-process A/B that settles the Deno targets.
 * One Deno process keeps a client of each kind and sends interleaved blocks
 * of requests to bench/server.ts in another process: blocks that take turns
 * in one process share its load, so their ratios hold still where
 * whole-process runs swing by ±15% on a shared machine.
 *
 * Kinds: raw `fetch`, `fetch+timeout` (with `AbortSignal.timeout(30 s)`;
 * `fetch+timeout+headers` also sends the two headers the six hooks add),
 * `ky` and `ofetch` with their defaults and with the same 30 s timeout
 * (`+timeout`), all on one `Deno.createHttpClient` pool (both libraries hand
 * Deno's `client` option on to fetch); and fetchline on its own pool:
 * `fetchline` (defaults), `fetchline+hooks` (bench/_workload.mjs's six
 * hooks), `fetchline-no-deadline` (timeout, readTimeout, totalTimeout null).
 * A ratio is the median over rounds of one kind's CPU time per request ÷
 * another's in the same round. `--write` puts the ratios and the targets'
 * verdicts in the "ab" section of bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:ab            # GET and POST at c=1 and c=64, 40 blocks of 2,000: about 3 min
 * deno task bench:ab --quick    # 10 blocks of 500: a check that it runs (~1 min)
 * # Two trees of fetchline (BEFORE given, AFTER this one), a ratio per case:
 * git archive cad346a | tar -x -C /tmp/before
 * deno run --allow-net=127.0.0.1 --allow-read --allow-run bench/ab_network.ts \
 *   --before /tmp/before --cases fetchline,fetchline+hooks --concurrency 64
 * ```
 *
 * A tree's `mod.ts` is imported by its path: its send path must import
 * nothing by a bare name. `--clients` picks some of the kinds (the printed
 * ratios are to the first, as "before"); `--json` prints one JSON line per
 * comparison; `--canned` sends nothing (each fetchline client's `withFetch`
 * transport answers in this process, so the ratio of two trees, or of
 * fetchline kinds alone, is the library's own CPU time). On demand:
 * `fetchline+passthrough`, `fetchline+telemetry` (no-op providers) and
 * `fetchline+telemetry-sdk` (the SDK's in-memory exporter, which reads
 * `OTEL_*`: add `--allow-env=OTEL_*`; a process of its own, bench/RESULTS.md
 * "telemetry"). The loop and the workload are bench/_loop.mjs's
 * and bench/_workload.mjs's, shared with bench/node_ab.mjs (Node).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { spawnServer } from "./server.ts";
import { loadAverage, opening, table, writeSection } from "./_results.ts";
import type { Run } from "./_results.ts";
import { AB_HEAD, abLine, compare, median, rounds } from "./_loop.mjs";
import { fetchline, kyClient, ofetchClient, rawFetch } from "./clients.ts";
import type { BenchClient, Builder, Library } from "./clients.ts";
import { telemetry } from "../telemetry.ts";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { cannedFetch, checkAnswer, ECHO_BODY, PATHS, withSixHooks } from "./_workload.mjs";

type Workload = keyof typeof PATHS;
type Rounds = Awaited<ReturnType<typeof rounds>>;
interface Result {
  readonly workload: string;
  readonly concurrency: number;
  readonly blocks: number;
  readonly requests: number;
  readonly rounds: Rounds;
}

/** How each kind of fetchline configures a client of `lib`. */
const FETCHLINE_KINDS: Record<string, (lib: Library, builder: Builder) => Builder> = {
  "fetchline": (_, builder) => builder,
  "fetchline+hooks": (lib, builder) => withSixHooks(lib, builder),
  "fetchline-no-deadline": (_, builder) =>
    builder.withTimeout(null).withReadTimeout(null).withTotalTimeout(null),
  // telemetry() of this tree with OpenTelemetry's no-op global providers
  // (compare with --clients fetchline,fetchline+telemetry, not --before).
  "fetchline+telemetry": (_, builder) => builder.withMiddleware(telemetry()),
  // One middleware that only hands the request on: what any link of the chain costs, the floor
  // of fetchline+telemetry's.
  "fetchline+passthrough": (_, builder) => builder.withMiddleware((request, next) => next(request)),
  // telemetry() with the SDK's in-memory span exporter and a metric reader: run it in a process of
  // its own, as a live tracer binds a store to every call of the process, the other kinds' too.
  "fetchline+telemetry-sdk": (_, builder) => builder.withMiddleware(telemetry(inMemorySdk())),
};
/** The fetchline kinds a run compares unless told (telemetry's and its floor only on demand). */
const ON_DEMAND = ["fetchline+telemetry", "fetchline+passthrough", "fetchline+telemetry-sdk"];

/** The OpenTelemetry SDK with its in-memory exporter (emptied every 10,000 spans) and a reader. */
function inMemorySdk() {
  const exporter = new class extends InMemorySpanExporter {
    override export(spans: ReadableSpan[], done: Parameters<InMemorySpanExporter["export"]>[1]) {
      if (this.getFinishedSpans().length >= 10_000) this.reset();
      super.export(spans, done);
    }
  }();
  const reader = new class extends MetricReader {
    protected onForceFlush = () => Promise.resolve();
    protected onShutdown = () => Promise.resolve();
  }();
  return {
    tracerProvider: new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    }),
    meterProvider: new MeterProvider({ readers: [reader] }),
  };
}
const DEFAULT_KINDS = Object.keys(FETCHLINE_KINDS).filter((kind) => !ON_DEMAND.includes(kind));
const ALL_KINDS = [
  "fetch",
  "fetch+timeout",
  "fetch+timeout+headers",
  ...DEFAULT_KINDS,
]
  .concat(["ky", "ky+timeout", "ofetch", "ofetch+timeout"]);

/** A client of `kind`: fetchline of `lib`, or a reference on `pool`. */
function clientOf(kind: string, lib: Library, pool: Deno.HttpClient, canned: boolean) {
  const configure = FETCHLINE_KINDS[kind];
  if (configure !== undefined) {
    return fetchline((b) => configure(lib, canned ? b.withFetch(cannedFetch) : b), lib)();
  }
  const options = {
    pool,
    timeout: kind.includes("+timeout"),
    hookHeaders: kind.endsWith("+headers"),
  };
  if (kind.startsWith("fetch")) return rawFetch(options);
  if (kind.startsWith("ky")) return kyClient(options);
  if (kind.startsWith("ofetch")) return ofetchClient(options);
  throw new TypeError(`Unknown kind: ${kind}`);
}

/**
 * A target: `candidate`'s CPU per request at least `goal` × `reference`'s
 * at each concurrency ("ahead of": above 1). The bars are the exchange
 * issue's: 0.78 at c=1 and 0.83 at c=64 for the defaults, 0.70 with the six
 * hooks, ahead of ofetch with the same timeout.
 */
type Target = readonly [string, string, string, (concurrency: number) => number];
const TARGETS: readonly Target[] = [
  [
    "fetchline ≥ 0.78 (c=1), 0.83 (c=64) × fetch+timeout",
    "fetchline",
    "fetch+timeout",
    (concurrency) => concurrency === 1 ? 0.78 : 0.83,
  ],
  ["fetchline+hooks (six) ≥ 0.70 × fetch+timeout", "fetchline+hooks", "fetch+timeout", () => 0.7],
  ...["ofetch+timeout", "ky+timeout", "ky"].map((peer) =>
    [`fetchline ahead of ${peer}`, "fetchline", peer, () => 1] as const
  ),
];

/** The median over rounds of `reference`'s CPU per request ÷ `candidate`'s. */
function ratio(rounds: Rounds, candidate: string, reference: string): number | undefined {
  const known = rounds.cpuUs[reference] !== undefined && rounds.cpuUs[candidate] !== undefined;
  return known ? compare(rounds, reference, candidate).cpuRatio : undefined;
}

/** The "ab" section of bench/RESULTS.md. */
function abSection(head: Run, results: readonly Result[]): string {
  const columns = results.map((r) => `${r.workload.toUpperCase()} c=${r.concurrency}`);
  const targets = TARGETS.map(([label, candidate, reference, goalAt]) => [
    label,
    ...results.map(({ rounds, concurrency }) => {
      const value = ratio(rounds, candidate, reference);
      if (value === undefined) return "not run";
      const goal = goalAt(concurrency);
      const met = goal === 1 ? value > goal : value >= goal;
      return `${value.toFixed(2)} × ${met ? "met" : "**missed**"}`;
    }),
  ]);
  const kinds = Object.keys(results[0]?.rounds.cpuUs ?? {});
  const ratios = kinds.map((kind) => [
    kind,
    ...results.map(({ rounds }) => {
      const cells = ["fetch", "fetch+timeout"].map((ref) => ratio(rounds, kind, ref)?.toFixed(2));
      return `${cells.join(" / ")} (${median(rounds.cpuUs[kind]!).toFixed(1)} µs)`;
    }),
  ]);
  const first = results[0];
  return `${opening(head)}

One Deno process keeps every client and sends to bench/server.ts in another process: each round
runs a block of ${first?.requests.toLocaleString("en-US")} requests of every client, the order
rotating, ${first?.blocks} rounds. A ratio is the median over rounds of the reference's CPU time
per request ÷ the client's (above 1: the client is cheaper). \`fetch\` is raw fetch,
\`fetch+timeout\` adds \`AbortSignal.timeout(30_000)\`; they, ky and ofetch (\`+timeout\`: configured
with the same 30 s timeout) share one \`Deno.createHttpClient\` pool, passed as Deno's \`client\`
option, which both libraries hand to fetch; fetchline makes its own. fetchline+hooks has six hooks:
withLogging (request, response, error; a no-op logger), CorrelationIdHook, RateLimitResponseHook,
ApiKeyAuthHook; \`fetch+timeout+headers\` is fetch+timeout sending the two headers those hooks add
(a correlation ID, an API key), what their effect costs fetch itself. fetchline-no-deadline has
timeout, readTimeout and totalTimeout null. Where the CPU goes, why a target is missed and what it
would need: bench/PROFILE.md.

${table(["target", ...columns], targets)}

Ratios to fetch / to fetch+timeout (the client's median CPU time per request):

${table(["client", ...columns], ratios)}`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      before: { type: "string" },
      cases: { type: "string", default: DEFAULT_KINDS.join(",") },
      clients: { type: "string", default: ALL_KINDS.join(",") },
      blocks: { type: "string", default: "40" },
      requests: { type: "string", default: "2000" },
      concurrency: { type: "string", default: "1,64" },
      warmup: { type: "string", default: "2000" },
      workloads: { type: "string", default: "get,post" },
      quick: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      canned: { type: "boolean", default: false },
      write: { type: "boolean", default: false },
    },
  });
  const kindsOnly = values.clients.split(",").every((kind) => kind in FETCHLINE_KINDS);
  if (values.canned && values.before === undefined && !kindsOnly) {
    throw new TypeError("Usage: --canned compares two trees (--before) or fetchline kinds");
  }
  const [started, loadBefore] = [new Date(), values.write ? loadAverage() : ""];
  const after = (await import("../mod.ts")) as Library;
  const before = values.before === undefined
    ? undefined
    : (await import(pathToFileURL(resolve(values.before, "mod.ts")).href)) as Library;
  const options = values.quick
    ? { blocks: 10, requests: 500, warmup: 500 }
    : { blocks: +values.blocks, requests: +values.requests, warmup: +values.warmup };
  // One group of sides per comparison: two trees per case, or every kind together.
  const groups = before === undefined
    ? [values.clients.split(",").map((kind) => ({ name: kind, lib: after, kind }))]
    : values.cases.split(",").map((kind) => [
      { name: `before ${kind}`, lib: before, kind },
      { name: `after ${kind}`, lib: after, kind },
    ]);
  const server = values.canned
    ? { url: "http://127.0.0.1:9", close: () => Promise.resolve() }
    : await spawnServer(Deno.execPath());
  const pool = Deno.createHttpClient({});
  const run: Result[] = [];
  try {
    for (const group of groups) {
      for (const workload of values.workloads.split(",") as Workload[]) {
        for (const concurrency of values.concurrency.split(",").map(Number)) {
          const clients: BenchClient[] = [];
          try {
            const calls: Record<string, () => Promise<unknown>> = {};
            for (const { name, lib, kind } of group) {
              const client = clientOf(kind, lib, pool, values.canned);
              clients.push(client);
              await client.setup();
              const target = server.url + PATHS[workload];
              calls[name] = workload === "get"
                ? () => client.get(target)
                : () => client.post(target, ECHO_BODY);
            }
            const check = (body: unknown) => checkAnswer(workload, body);
            const result = await rounds(calls, check, { ...options, concurrency });
            run.push({ workload, concurrency, ...options, rounds: result });
            if (values.json) console.log(JSON.stringify(run.at(-1)));
            else {
              const [first, ...others] = Object.keys(calls);
              console.log(AB_HEAD);
              for (const name of others) {
                console.log(
                  abLine(name, `${workload} c=${concurrency}`, compare(result, first!, name)),
                );
              }
            }
          } finally {
            for (const client of clients) await client.close();
          }
        }
      }
    }
  } finally {
    pool.close();
    await server.close();
  }
  if (values.write) {
    const head = { title: "In-process A/B (Deno)", task: "bench:ab", file: "bench/ab_network.ts" };
    await writeSection("ab", abSection({ ...head, started, loadBefore, quick: values.quick }, run));
  }
}
