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
 * verdicts in the "In-process A/B" section of bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:ab            # GET and POST at c=1 and c=64, 40 blocks of 2,000: ~6 min
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
 * transport answers in this process, so the ratio of two trees is the
 * library's own CPU time). The loop, the workload and the printed table are
 * bench/_loop.mjs's and bench/_workload.mjs's, shared with
 * bench/ab_network.mjs (two npm builds on Node).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { spawnServer } from "./server.ts";
import { writeAbSection } from "./_ab_results.ts";
import type { AbRun } from "./_ab_results.ts";
import { AB_HEAD, abLine, compare, rounds } from "./_loop.mjs";
import { fetchline, kyClient, ofetchClient, rawFetch } from "./clients.ts";
import type { BenchClient, Builder, Library } from "./clients.ts";
import { cannedFetch, checkAnswer, ECHO_BODY, PATHS, withSixHooks } from "./_workload.ts";
import type { Workload } from "./_workload.ts";

/** How each kind of fetchline configures a client of `lib`. */
const FETCHLINE_KINDS: Record<string, (lib: Library, builder: Builder) => Builder> = {
  "fetchline": (_, builder) => builder,
  "fetchline+hooks": (lib, builder) => withSixHooks(lib, builder),
  "fetchline-no-deadline": (_, builder) =>
    builder.withTimeout(null).withReadTimeout(null).withTotalTimeout(null),
};
const ALL_KINDS = [
  "fetch",
  "fetch+timeout",
  "fetch+timeout+headers",
  ...Object.keys(FETCHLINE_KINDS),
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

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      before: { type: "string" },
      cases: { type: "string", default: Object.keys(FETCHLINE_KINDS).join(",") },
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
  if (values.canned && values.before === undefined) {
    throw new TypeError("Usage: --canned compares two trees (--before <tree>)");
  }
  const started = new Date();
  const loadBefore = values.write ? Deno.loadavg() : [];
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
  const run: AbRun["results"][number][] = [];
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
  // The task passes --write itself.
  const args = Deno.args.filter((arg) => arg !== "--write").join(" ");
  const command = `deno task bench:ab${args && " " + args}`;
  if (values.write) await writeAbSection({ started, command, loadBefore, results: run });
}
