/**
 * `deno task bench:ab`: the in-process A/B that settles the Deno targets.
 * One Deno process keeps a client of each kind and sends interleaved blocks
 * of requests to bench/server.ts running in another process. Whole-process
 * runs swing by ±15% on a shared machine; blocks that take turns in one
 * process share its load, so their ratios hold still.
 *
 * Kinds: the references `fetch` (bare raw fetch) and `fetch+timeout` (with
 * `AbortSignal.timeout(30 s)`; `fetch+timeout+headers` also sends the two
 * headers the six hooks add), `ky` and `ofetch` with their defaults and
 * with the same 30 s timeout (`ky+timeout`, `ofetch+timeout`), all on one
 * `Deno.createHttpClient` pool (both libraries hand Deno's `client` option
 * on to fetch); and fetchline, which makes its own pool: `fetchline`
 * (defaults), `fetchline+hooks` (bench/clients.ts's six hooks) and
 * `fetchline-no-deadline` (timeout, readTimeout and totalTimeout null).
 * Each round runs one block of every kind, the order rotating from round
 * to round; a ratio is the median over rounds of one kind's CPU time per
 * request ÷ another's in the same round. `--write` puts the ratios and the
 * targets' verdicts in the "In-process A/B" section of bench/RESULTS.md.
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
 * nothing by a bare name. `--clients` picks some of the kinds (the first is
 * the one printed ratios are to). `--json` prints one JSON line per comparison.
 * `--canned` sends nothing: each fetchline client's transport (`withFetch`)
 * answers as bench/server.ts would, in this process, so the ratio is the
 * library's own CPU time per call (for two trees; the references need the
 * server).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import os from "node:os";
import process from "node:process";
import { drive } from "./measure.ts";
import { spawnServer } from "./server.ts";
import { median } from "./_stats.ts";
import { abSection, withMarkedSection } from "./_ab_results.ts";
import type { AbRun } from "./_ab_results.ts";
import { kyClient, ofetchClient, rawFetch, withSixHooks } from "./clients.ts";
import type { BenchClient, Library } from "./clients.ts";
import { checkAnswer, ECHO_BODY, ITEM, PATHS } from "./_workload.ts";
import type { Workload } from "./_workload.ts";

/** The kinds of fetchline measured, by name. */
const FETCHLINE_KINDS = ["fetchline", "fetchline+hooks", "fetchline-no-deadline"] as const;
/** Every kind of the targets' run, references first. */
const ALL_KINDS = [
  "fetch",
  "fetch+timeout",
  "fetch+timeout+headers",
  ...FETCHLINE_KINDS,
  "ky",
  "ky+timeout",
  "ofetch",
  "ofetch+timeout",
];

/** A client as the blocks call it. */
interface Side {
  readonly name: string;
  call(): Promise<unknown>;
  close(): Promise<void>;
}

/** Each side's CPU time per request (µs) and requests per second, round by round. */
export interface Rounds {
  readonly cpuUs: Record<string, number[]>;
  readonly rps: Record<string, number[]>;
}

const JSON_HEADERS = { "content-type": "application/json" };
const ITEM_TEXT = JSON.stringify(ITEM);

/**
 * The transport of `--canned`: bench/server.ts's answers made in this
 * process, with the Content-Length its answers have (a body of known length
 * is read in one go).
 */
async function cannedFetch(_input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const text = init?.method === "POST" ? String(init.body) : ITEM_TEXT;
  const headers = { ...JSON_HEADERS, "content-length": String(text.length) };
  return await Promise.resolve(new Response(text, { headers }));
}

/** A fetchline client of `lib` of one of {@linkcode FETCHLINE_KINDS}. */
function fetchlineClient(lib: Library, kind: string, canned: boolean): BenchClient {
  let builder = new lib.HttpClientConfigBuilder();
  if (canned) builder = builder.withFetch(cannedFetch);
  if (kind === "fetchline+hooks") builder = withSixHooks(builder, lib);
  else if (kind === "fetchline-no-deadline") {
    builder = builder.withTimeout(null).withReadTimeout(null).withTotalTimeout(null);
  } else if (kind !== "fetchline") throw new TypeError(`Unknown kind: ${kind}`);
  let client: InstanceType<Library["HttpClient"]> | undefined;
  return {
    setup() {
      client = new lib.HttpClient(builder.build());
      return Promise.resolve();
    },
    get: async (url) => (await client!.get(url)).json(),
    post: async (url, body) => (await client!.post(url, { jsonData: body })).json(),
    close: () => client![Symbol.asyncDispose](),
  };
}

/** A reference client on `pool`. */
function reference(kind: string, pool: Deno.HttpClient): BenchClient {
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

async function side(name: string, client: BenchClient, url: string, workload: Workload) {
  await client.setup();
  const target = url + PATHS[workload];
  return {
    name,
    call: workload === "get" ? () => client.get(target) : () => client.post(target, ECHO_BODY),
    close: () => client.close(),
  } satisfies Side;
}

/** One block of `side`: its CPU time per request (µs) and requests per second. */
async function block(side: Side, workload: Workload, concurrency: number, requests: number) {
  const check = (body: unknown) => checkAnswer(workload, body);
  const cpu = process.cpuUsage();
  const start = performance.now();
  await drive(side.call, check, concurrency, requests);
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  return { cpuUs: (user + system) / requests, rps: requests / seconds };
}

/** Runs `blocks` rounds of a block of each side, the order rotating; after a warm-up of each. */
async function rounds(
  sides: readonly Side[],
  workload: Workload,
  options: { blocks: number; requests: number; concurrency: number; warmup: number },
): Promise<Rounds> {
  const { blocks, requests, concurrency, warmup } = options;
  for (const warm of [...sides, ...sides]) await block(warm, workload, concurrency, warmup);
  const result: Rounds = { cpuUs: {}, rps: {} };
  for (const { name } of sides) [result.cpuUs[name], result.rps[name]] = [[], []];
  for (let i = 0; i < blocks; i++) {
    for (let j = 0; j < sides.length; j++) {
      const current = sides[(i + j) % sides.length]!;
      const measured = await block(current, workload, concurrency, requests);
      result.cpuUs[current.name]!.push(measured.cpuUs);
      result.rps[current.name]!.push(measured.rps);
    }
  }
  return result;
}

/** The median over rounds of `reference`'s CPU per request ÷ `candidate`'s (above 1: cheaper). */
export function cpuRatio(result: Rounds, candidate: string, reference: string) {
  const ref = result.cpuUs[reference]!, cand = result.cpuUs[candidate]!;
  const ratios = cand.map((cost, i) => ref[i]! / cost).sort((a, b) => a - b);
  return {
    median: median(ratios),
    q1: ratios[Math.floor(ratios.length / 4)]!,
    q3: ratios[Math.floor((3 * ratios.length) / 4)]!,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      before: { type: "string" },
      cases: { type: "string", default: FETCHLINE_KINDS.join(",") },
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
  const started = Date.now();
  const loadAverage = () =>
    values.write ? Deno.loadavg().map((load) => load.toFixed(2)).join(" ") : "";
  const loadBefore = loadAverage();
  const after = (await import("../mod.ts")) as Library;
  const before = values.before === undefined
    ? undefined
    : (await import(pathToFileURL(resolve(values.before, "mod.ts")).href)) as Library;
  const options = values.quick ? { blocks: 10, requests: 500, warmup: 500 } : {
    blocks: Number(values.blocks),
    requests: Number(values.requests),
    warmup: Number(values.warmup),
  };
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
          const sides: Side[] = [];
          try {
            for (const { name, lib, kind } of group) {
              const client = FETCHLINE_KINDS.includes(kind as typeof FETCHLINE_KINDS[number])
                ? fetchlineClient(lib, kind, values.canned)
                : reference(kind, pool);
              sides.push(await side(name, client, server.url, workload));
            }
            const result = await rounds(sides, workload, { ...options, concurrency });
            const entry = { workload, concurrency, ...options, rounds: result };
            run.push(entry);
            if (values.json) console.log(JSON.stringify(entry));
            else printGroup(result, workload, concurrency);
          } finally {
            for (const current of sides) await current.close();
          }
        }
      }
    }
  } finally {
    pool.close();
    await server.close();
  }
  if (values.write) {
    const out = "bench/RESULTS.md";
    // The task passes --write itself.
    const args = Deno.args.filter((arg) => arg !== "--write").join(" ");
    const section = abSection({
      date: new Date(started),
      minutes: (Date.now() - started) / 60000,
      command: `deno task bench:ab${args && " " + args}`,
      machine: `${
        os.cpus()[0]?.model.trim() ?? "unknown CPU"
      }, ${navigator.hardwareConcurrency} cores, ${Deno.build.os} ${Deno.build.arch}, Deno ${Deno.version.deno}`,
      loadBefore,
      loadAfter: loadAverage(),
      results: run,
    });
    const markdown = await Deno.readTextFile(out).catch(() => "# Benchmark results\n");
    await Deno.writeTextFile(out, withMarkedSection(markdown, "ab", section));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", out] }).output();
    console.error(`wrote the In-process A/B section of ${out}`);
  }
}

/** Prints each side's ratio to the first side, its CPU µs per request and its requests per second. */
function printGroup(result: Rounds, workload: Workload, concurrency: number): void {
  const names = Object.keys(result.cpuUs);
  const first = names[0]!;
  console.log(`${workload.toUpperCase()} c=${concurrency}: CPU/req of ${first} ÷ each (IQR)`);
  for (const name of names) {
    const r = cpuRatio(result, name, first);
    const us = median(result.cpuUs[name]!).toFixed(1);
    const rps = median(result.rps[name]!).toFixed(0);
    console.log(
      `  ${name.padEnd(28)} ${r.median.toFixed(3)} (${r.q1.toFixed(3)}–${r.q3.toFixed(3)})` +
        `  ${us.padStart(6)} µs/req  ${rps.padStart(6)} req/s`,
    );
  }
}
