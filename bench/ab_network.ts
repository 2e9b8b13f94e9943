/**
 * An in-process A/B of fetchline's send path on Deno: one process imports
 * two source trees of the library (BEFORE, a tree given by `--before`, and
 * AFTER, this one), keeps a client of each, and sends interleaved blocks of
 * requests to bench/server.ts running in another process. Whole-process
 * runs swing by ±15% on a shared machine; blocks that alternate in one
 * process share its load, so their ratio holds still.
 *
 * For each case (the default client, and the five hooks of
 * "fetchline+hooks") and workload (`GET` JSON, `POST` JSON) it prints the
 * median over block pairs of BEFORE's CPU time per request ÷ AFTER's (above
 * 1: AFTER is cheaper) and of AFTER's requests per second ÷ BEFORE's. The
 * pair's order alternates (BA, AB, …) so a drift in load favours neither.
 *
 * ```sh
 * git archive cad346a | tar -x -C /tmp/before   # a tree to compare with
 * deno run --allow-net=127.0.0.1 --allow-read --allow-run bench/ab_network.ts \
 *   --before /tmp/before --blocks 30 --requests 2000 --concurrency 64
 * ```
 *
 * The tree's `mod.ts` is imported by its path: its send path must import
 * nothing by a bare name (a tree's lazily imported tough-cookie resolves
 * through this tree's deno.json, and only a client with cookies loads it).
 * `--json` prints one JSON line per case and workload instead of the table.
 * `--canned` sends nothing: each client's transport (`withFetch`) answers
 * as bench/server.ts would, in this process, so the ratio is the library's
 * own CPU time per call, without the network's share and noise.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import process from "node:process";
import { drive } from "./measure.ts";
import { spawnServer } from "./server.ts";
import { median } from "./_stats.ts";
import { checkAnswer, ECHO_BODY, ITEM, PATHS } from "./_workload.ts";
import type { Workload } from "./_workload.ts";

/** What one tree's `mod.ts` must export for the clients measured here. */
type Library = typeof import("../mod.ts");

/** A client of one tree, as the blocks call it. */
interface Side {
  readonly name: "before" | "after";
  call(): Promise<unknown>;
  close(): Promise<void>;
}

/** One block's cost: CPU time per request (µs) and requests per second. */
interface Block {
  readonly cpuUs: number;
  readonly rps: number;
}

const NO_OP_LOGGER = { debug() {}, info() {}, warn() {}, error() {} };
const JSON_HEADERS = { "content-type": "application/json" };
const ITEM_TEXT = JSON.stringify(ITEM);

/**
 * The transport of `--canned`: bench/server.ts's answers made in this
 * process, so a block measures the library's own CPU time without the
 * network's (Deno's pool sends through `fetch` the same way).
 */
async function cannedFetch(_input: string | URL | Request, init?: RequestInit): Promise<Response> {
  if (init?.method === "POST") return new Response(init.body, { headers: JSON_HEADERS });
  return await Promise.resolve(new Response(ITEM_TEXT, { headers: JSON_HEADERS }));
}

/** A client of `lib`, the default one or with the five hooks of bench/clients.ts. */
function clientOf(lib: Library, hooks: boolean, canned: boolean) {
  let builder = new lib.HttpClientConfigBuilder();
  if (canned) builder = builder.withFetch(cannedFetch);
  if (hooks) {
    const tokenManager = new lib.TokenManager([{
      name: "static",
      fetch: () =>
        Promise.resolve(
          new lib.TokenData({ accessToken: "bench-token-0123456789", expiresIn: 3600 }),
        ),
    }]);
    builder = builder.withLogging({ logger: NO_OP_LOGGER })
      .withRequestHook(new lib.CorrelationIdHook())
      .withTokenAuth({ tokenManager });
  }
  return new lib.HttpClient(builder.build());
}

function side(
  name: Side["name"],
  lib: Library,
  hooks: boolean,
  url: string,
  workload: Workload,
  canned: boolean,
) {
  const client = clientOf(lib, hooks, canned);
  const target = url + PATHS[workload];
  return {
    name,
    call: workload === "get"
      ? async () => (await client.get(target)).json()
      : async () => (await client.post(target, { jsonData: ECHO_BODY })).json(),
    close: () => client[Symbol.asyncDispose](),
  } satisfies Side;
}

async function block(
  side: Side,
  workload: Workload,
  concurrency: number,
  requests: number,
): Promise<Block> {
  const check = (body: unknown) => checkAnswer(workload, body);
  const cpu = process.cpuUsage();
  const start = performance.now();
  await drive(side.call, check, concurrency, requests);
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  return { cpuUs: (user + system) / requests, rps: requests / seconds };
}

/** Runs `blocks` pairs of blocks of one case and workload; returns the summary. */
async function compare(
  libs: { before: Library; after: Library },
  hooks: boolean,
  workload: Workload,
  url: string,
  options: {
    blocks: number;
    requests: number;
    concurrency: number;
    warmup: number;
    canned: boolean;
  },
) {
  const { blocks, requests, concurrency, warmup, canned } = options;
  const before = side("before", libs.before, hooks, url, workload, canned);
  const after = side("after", libs.after, hooks, url, workload, canned);
  try {
    for (const warm of [before, after, before, after]) {
      await block(warm, workload, concurrency, warmup);
    }
    const cpuRatios: number[] = [];
    const rpsRatios: number[] = [];
    const costs = { before: [] as number[], after: [] as number[] };
    const rates = { before: [] as number[], after: [] as number[] };
    for (let i = 0; i < blocks; i++) {
      const order = i % 2 === 0 ? [before, after] : [after, before];
      const got: Partial<Record<Side["name"], Block>> = {};
      for (const current of order) {
        got[current.name] = await block(current, workload, concurrency, requests);
      }
      const b = got.before!, a = got.after!;
      cpuRatios.push(b.cpuUs / a.cpuUs);
      rpsRatios.push(a.rps / b.rps);
      costs.before.push(b.cpuUs);
      costs.after.push(a.cpuUs);
      rates.before.push(b.rps);
      rates.after.push(a.rps);
    }
    const sorted = [...cpuRatios].sort((x, y) => x - y);
    return {
      case: hooks ? "hooks" : "default",
      workload,
      blocks,
      requests,
      concurrency,
      cpuRatio: median(cpuRatios),
      cpuRatioQ1: sorted[Math.floor(blocks / 4)]!,
      cpuRatioQ3: sorted[Math.floor((3 * blocks) / 4)]!,
      rpsRatio: median(rpsRatios),
      beforeCpuUs: median(costs.before),
      afterCpuUs: median(costs.after),
      beforeRps: median(rates.before),
      afterRps: median(rates.after),
    };
  } finally {
    await before.close();
    await after.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      before: { type: "string" },
      blocks: { type: "string", default: "30" },
      requests: { type: "string", default: "2000" },
      concurrency: { type: "string", default: "64" },
      warmup: { type: "string", default: "2000" },
      cases: { type: "string", default: "default,hooks" },
      workloads: { type: "string", default: "get,post" },
      json: { type: "boolean", default: false },
      canned: { type: "boolean", default: false },
    },
  });
  if (values.before === undefined) {
    throw new TypeError("Usage: ab_network.ts --before <tree> [--blocks N] [--requests N] …");
  }
  const libs = {
    before: (await import(pathToFileURL(resolve(values.before, "mod.ts")).href)) as Library,
    after: (await import("../mod.ts")) as Library,
  };
  const options = {
    blocks: Number(values.blocks),
    requests: Number(values.requests),
    concurrency: Number(values.concurrency),
    warmup: Number(values.warmup),
    canned: values.canned,
  };
  const server = values.canned
    ? { url: "http://127.0.0.1:9", close: () => Promise.resolve() }
    : await spawnServer(Deno.execPath());
  try {
    if (!values.json) {
      console.log(
        "case     workload  CPU/req before÷after (IQR)   rps after÷before  µs/req B→A   rps B→A",
      );
    }
    for (const name of values.cases.split(",")) {
      for (const workload of values.workloads.split(",") as Workload[]) {
        const r = await compare(libs, name === "hooks", workload, server.url, options);
        if (values.json) console.log(JSON.stringify(r));
        else {
          console.log(
            `${r.case.padEnd(8)} ${r.workload.padEnd(9)} ${r.cpuRatio.toFixed(3)} (${
              r.cpuRatioQ1.toFixed(3)
            }–${r.cpuRatioQ3.toFixed(3)})      ${r.rpsRatio.toFixed(3)}             ${
              r.beforeCpuUs.toFixed(1)
            }→${r.afterCpuUs.toFixed(1)}   ${r.beforeRps.toFixed(0)}→${r.afterRps.toFixed(0)}`,
          );
        }
      }
    }
  } finally {
    await server.close();
  }
}
