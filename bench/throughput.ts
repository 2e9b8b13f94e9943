/**
 * Throughput of fetchline against raw `fetch` and other clients, over real
 * sockets on 127.0.0.1.
 *
 * The server (bench/server.ts) runs in its own process. Every measurement
 * (one client, one workload, one concurrency, one round) runs in a fresh
 * process of its own (bench/measure.ts on Deno, bench/node_throughput.mjs on
 * Node), so no client inherits another's JIT feedback, heap or GC debt, and
 * a library's module-level state (keep-alive agents, caches) cannot leak into
 * the next. Each process warms up before it measures. The rounds are
 * interleaved (A B C … A B C …) so a drift of the machine touches every
 * client alike, and the tables quote the median of the rounds.
 *
 * ```sh
 * deno run --allow-run=deno,node bench/throughput.ts --rounds=3 --scale=0.1
 * ```
 *
 * Flags: `--rounds` (3), `--concurrency` (1,64), `--requests` per
 * concurrency (2000,20000), `--warmup` per concurrency (500,2000),
 * `--scale` (multiplies requests and warm-up), `--workloads` (get,post),
 * `--clients` (Deno clients, default all), `--node-deps` (a folder where
 * bench/node_throughput.mjs finds its npm packages; enables the machine's
 * Node: bench/run.ts measures each line of Node, each with a folder of its own),
 * `--node-clients` (default: all installed), `--json` (a file for the raw
 * measurements, one JSON line each), `--profile` (a folder: every
 * measurement process runs with `--cpu-prof` and writes its profile into
 * `<folder>/<runtime>-<client>-<workload>-c<concurrency>/`; summarize them
 * with bench/profile_summary.ts).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { DENO_CLIENTS } from "./clients.ts";
import { spawnServer } from "./server.ts";
import { summarize, throughputTables } from "./_report.ts";
import type { Summary } from "./_report.ts";
import type { Measurement, Runtime, Workload } from "./_workload.ts";

/** What to run. */
export interface ThroughputOptions {
  readonly rounds: number;
  /** Concurrency levels, each with its request and warm-up counts. */
  readonly levels: readonly { concurrency: number; requests: number; warmup: number }[];
  readonly workloads: readonly Workload[];
  /** Deno client names (from bench/clients.ts). */
  readonly denoClients: readonly string[];
  /** The lines of Node, each with its npm folder for bench/node_throughput.mjs; none: Node left out. */
  readonly node: readonly NodeTarget[];
  /** Node client names; default: every one installed. */
  readonly nodeClients?: readonly string[] | undefined;
  /** A folder for CPU profiles of every measurement (`--cpu-prof`), one subfolder per client, workload and concurrency. */
  readonly profile?: string | undefined;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

/** One line of Node to measure: how to start its `node`, and its clients' npm folder. */
export interface NodeTarget {
  /** The command that starts this line's `node` (`node`, or `npx` for `npx -y node@22`). */
  readonly command: string;
  /** The arguments that come before `node`'s own. */
  readonly args: readonly string[];
  /** The folder its packages are installed in (bench/run.ts: one per line). */
  readonly deps: string;
}

/** A client of either runtime, with the command that runs one measurement. */
export interface Contender {
  readonly runtime: Runtime;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  /** The command for one measurement; `runtimeFlags` go before the script (such as `--cpu-prof`). */
  command(args: readonly string[], runtimeFlags?: readonly string[]): Deno.Command;
}

/** What a run produced. */
export interface ThroughputResult {
  readonly contenders: readonly Contender[];
  readonly measurements: readonly Measurement[];
  readonly summaries: readonly Summary[];
  readonly notices: readonly string[];
}

const MEASURE = new URL("./measure.ts", import.meta.url).pathname;
const NODE_MEASURE = new URL("./node_throughput.mjs", import.meta.url).pathname;
/** No single measurement may take longer. */
const MEASUREMENT_TIMEOUT_MS = 10 * 60 * 1000;

/** The Deno contenders named, in the order of bench/clients.ts. */
export function denoContenders(names: readonly string[]): Contender[] {
  const unknown = names.filter((name) => !DENO_CLIENTS.some((spec) => spec.name === name));
  if (unknown.length > 0) throw new TypeError(`Unknown Deno clients: ${unknown.join(", ")}`);
  return DENO_CLIENTS.filter((spec) => names.includes(spec.name)).map((spec) => ({
    runtime: "deno",
    name: spec.name,
    description: spec.description,
    version: "",
    command: (args, runtimeFlags = []) =>
      new Deno.Command("deno", {
        args: [
          "run",
          ...runtimeFlags,
          "--allow-net=127.0.0.1",
          ...spec.permissions,
          MEASURE,
          ...args,
        ],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(MEASUREMENT_TIMEOUT_MS),
      }),
  }));
}

/** The Node contenders of one line installed in its folder (asks bench/node_throughput.mjs), and notices. */
export async function nodeContenders(
  target: NodeTarget,
  names?: readonly string[],
): Promise<{ contenders: Contender[]; notices: string[] }> {
  const { command, args: prefix, deps } = target;
  const line = [command, ...prefix].join(" ");
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(command, {
      args: [...prefix, NODE_MEASURE, "--deps", deps, "--list"],
      stdin: "null",
    }).output();
  } catch (error) {
    return { contenders: [], notices: [`Node left out: cannot run ${line} (${error})`] };
  }
  if (!output.success) {
    const reason = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1);
    return { contenders: [], notices: [`Node left out (${line}): ${reason}`] };
  }
  const listed = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    runtime: Runtime;
    clients: { name: string; description: string; version: string }[];
    notices: string[];
  };
  const contenders = listed.clients
    .filter((client) => names === undefined || names.includes(client.name))
    .map((client): Contender => ({
      runtime: listed.runtime,
      ...client,
      command: (args, runtimeFlags = []) =>
        new Deno.Command(command, {
          args: [...prefix, ...runtimeFlags, NODE_MEASURE, "--deps", deps, ...args],
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(MEASUREMENT_TIMEOUT_MS),
        }),
    }));
  return { contenders, notices: listed.notices.map((notice) => `${listed.runtime}: ${notice}`) };
}

async function runOne(
  contender: Contender,
  args: readonly string[],
  profile?: string,
): Promise<Measurement> {
  const flags = profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profile}`];
  const output = await contender.command(args, flags).output();
  const stdout = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr).trim();
    throw new Error(`${contender.runtime} ${contender.name} failed: ${stderr.slice(-800)}`);
  }
  return JSON.parse(stdout.split("\n").at(-1)!) as Measurement;
}

function describe(m: Measurement): string {
  const rps = Math.round(m.rps).toString().padStart(6);
  return `${m.runtime} ${m.client.padEnd(16)} ${rps} req/s  p50 ${m.p50Ms.toFixed(2)} ms  p99 ${
    m.p99Ms.toFixed(2)
  } ms  cpu ${Math.round(m.cpuUsPerRequest)} µs/req`;
}

/** Starts the server, runs every round, stops the server. */
export async function runThroughput(options: ThroughputOptions): Promise<ThroughputResult> {
  const notices: string[] = [];
  const contenders = denoContenders(options.denoClients);
  for (const target of options.node) {
    const node = await nodeContenders(target, options.nodeClients);
    contenders.push(...node.contenders);
    notices.push(...node.notices);
  }
  for (const notice of notices) options.log(`notice: ${notice}`);
  const measurements: Measurement[] = [];
  await using server = await spawnServer();
  const argsFor = (
    client: string,
    workload: Workload,
    level: ThroughputOptions["levels"][number],
  ) => [
    `--client=${client}`,
    `--url=${server.url}`,
    `--workload=${workload}`,
    `--concurrency=${level.concurrency}`,
    `--requests=${level.requests}`,
    `--warmup=${level.warmup}`,
  ];
  // The server's own warm-up: one discarded run at the highest concurrency.
  const top = options.levels.at(-1)!;
  if (contenders.length > 0) {
    const first = contenders[0]!;
    await runOne(first, argsFor(first.name, "get", { ...top, requests: top.warmup }))
      .catch(() => {});
  }
  for (let round = 1; round <= options.rounds; round++) {
    for (const level of options.levels) {
      for (const workload of options.workloads) {
        for (const contender of contenders) {
          const label = `round ${round}/${options.rounds} c=${level.concurrency} ${workload}`;
          try {
            const profile = options.profile &&
              `${options.profile}/${contender.runtime}-${contender.name}-${workload}-c${level.concurrency}`;
            const m = await runOne(contender, argsFor(contender.name, workload, level), profile);
            measurements.push(m);
            options.log(`${label} ${describe(m)}`);
          } catch (error) {
            const notice = `${label}: ${(error as Error).message}`;
            notices.push(notice);
            options.log(`notice: ${notice}`);
          }
        }
      }
    }
  }
  return { contenders, measurements, summaries: summarize(measurements), notices };
}

/** Parses a comma-separated list of positive integers. */
export function integers(flag: string, text: string): number[] {
  const values = text.split(",").map(Number);
  if (values.some((value) => !Number.isInteger(value) || value < 1)) {
    throw new TypeError(`Invalid --${flag}: ${text} (comma-separated whole numbers above 0)`);
  }
  return values;
}

/** The levels from the `--concurrency`, `--requests`, `--warmup` and `--scale` flags. */
export function levelsOf(
  concurrency: string,
  requests: string,
  warmup: string,
  scale: number,
): ThroughputOptions["levels"] {
  const levels = integers("concurrency", concurrency);
  const counts = integers("requests", requests);
  const warmups = integers("warmup", warmup);
  if (counts.length !== levels.length || warmups.length !== levels.length) {
    throw new TypeError("--requests and --warmup need one count per --concurrency level");
  }
  if (!(scale > 0)) throw new TypeError(`Invalid --scale: ${scale}`);
  return levels.map((c, i) => ({
    concurrency: c,
    requests: Math.max(c, Math.round(counts[i]! * scale)),
    warmup: Math.max(c, Math.round(warmups[i]! * scale)),
  }));
}

/** The flags bench/throughput.ts and bench/run.ts share, with their defaults. */
export const THROUGHPUT_FLAGS = {
  rounds: { type: "string", default: "3" },
  concurrency: { type: "string", default: "1,64" },
  requests: { type: "string", default: "2000,20000" },
  warmup: { type: "string", default: "500,2000" },
  scale: { type: "string", default: "1" },
  workloads: { type: "string", default: "get,post" },
  clients: { type: "string", default: DENO_CLIENTS.map((spec) => spec.name).join(",") },
  "node-clients": { type: "string" },
} as const;

/** Options from parsed {@linkcode THROUGHPUT_FLAGS}. */
export function throughputOptions(
  values: { [K in keyof typeof THROUGHPUT_FLAGS]?: string | undefined },
  node: readonly NodeTarget[],
  log: (line: string) => void,
): ThroughputOptions {
  const workloads = (values.workloads ?? "get,post").split(",");
  for (const workload of workloads) {
    if (workload !== "get" && workload !== "post") {
      throw new TypeError(`Invalid --workloads: ${workload} (get, post)`);
    }
  }
  const rounds = integers("rounds", values.rounds ?? "3")[0]!;
  return {
    rounds,
    levels: levelsOf(
      values.concurrency ?? "1,64",
      values.requests ?? "2000,20000",
      values.warmup ?? "500,2000",
      Number(values.scale ?? "1"),
    ),
    workloads: workloads as Workload[],
    denoClients: (values.clients ?? "").split(",").filter((name) => name !== ""),
    node,
    nodeClients: values["node-clients"]?.split(","),
    log,
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      ...THROUGHPUT_FLAGS,
      "node-deps": { type: "string" },
      json: { type: "string" },
      profile: { type: "string" },
    },
  });
  const options = {
    ...throughputOptions(
      values,
      values["node-deps"] === undefined
        ? []
        : [{ command: "node", args: [], deps: values["node-deps"] }],
      (line) => console.error(line),
    ),
    profile: values.profile,
  };
  const result = await runThroughput(options);
  if (values.json !== undefined) {
    await Deno.writeTextFile(
      values.json,
      result.measurements.map((m) => JSON.stringify(m) + "\n").join(""),
    );
  }
  console.log(throughputTables(result.summaries));
}
