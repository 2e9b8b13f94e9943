/**
 * `deno task bench`: runs every benchmark and writes bench/RESULTS.md.
 *
 * 1. Throughput (bench/throughput.ts): the Deno clients, and the Node ones
 *    when `node` and `npm` are there, on each line of Node the npm build's
 *    suite runs on (scripts/node_lines.ts: the machine's, and 22 and 24 with
 *    `npx -y node@<major>`; `FETCHLINE_NODE_LINES=20,22` chooses), each
 *    labelled `node<major>`: their packages, the newest each line supports,
 *    are installed with npm into `--node-deps`/node<major>, outside the
 *    repository; fetchline's npm build in `--fetchline-npm` is packed and
 *    installed beside them when it exists.
 * 2. Micro-benchmarks: `deno bench --json` of the pipeline, JSON and toCurl.
 * 3. Memory: bench/memory.ts under `deno test` (sanitizers on).
 * 4. One-shot scripts: bench/one_shot.ts, whole `deno run` processes that
 *    send one GET, fetchline against raw fetch (`--one-shot-runs`, 60).
 *
 * Flags: those of bench/throughput.ts, plus `--quick` (a tenth of the
 * requests: a check that everything runs), `--node-deps` (default
 * /tmp/fetchline-bench-node; `off` leaves Node out), `--fetchline-npm`
 * (default `npm`, where `deno task build:npm` writes), `--memory-requests`
 * (100000), `--only` (any of throughput,micro,memory,oneshot). The
 * "In-process A/B", "Streams" and "Size" sections of RESULTS.md, written by
 * `deno task bench:ab`, `deno task bench:streams` and `deno task size`, are
 * kept as they are.
 *
 * ```sh
 * deno task bench
 * deno task bench --quick --node-deps=off
 * ```
 *
 * @module
 */

import os from "node:os";
import { parseArgs } from "node:util";
import { resultsMarkdown } from "./_results.ts";
import { markedSection } from "./_ab_results.ts";
import type { Machine, MemoryResult, Micro, Results } from "./_results.ts";
import { runThroughput, THROUGHPUT_FLAGS, throughputOptions } from "./throughput.ts";
import type { NodeTarget } from "./throughput.ts";
import { type NodeLine, nodeLines } from "../scripts/node_lines.ts";
import { runOneShot } from "./one_shot.ts";

const OUT = "bench/RESULTS.md";
const MICRO_FILES = ["bench/pipeline_bench.ts", "bench/json_bench.ts", "bench/to_curl_bench.ts"];
const decoder = new TextDecoder();
const log = (line: string) => console.error(line);

/** Runs a command to its end; `undefined` when it cannot start. */
async function run(command: string, args: string[]): Promise<Deno.CommandOutput | undefined> {
  try {
    return await new Deno.Command(command, { args, stdin: "null" }).output();
  } catch {
    return undefined;
  }
}

function lastLine(bytes: Uint8Array): string {
  return decoder.decode(bytes).trim().split("\n").at(-1) ?? "";
}

async function readText(path: string): Promise<string> {
  return await Deno.readTextFile(path).catch(() => "");
}

function loadAverage(): string {
  return Deno.loadavg().map((load) => load.toFixed(2)).join(" ");
}

async function machine(loadBefore: string, nodes: readonly string[]): Promise<Machine> {
  // node:os, as Deno's permissions refuse /proc/cpuinfo short of --allow-all.
  const cpu = os.cpus()[0]?.model;
  const distro = (await readText("/etc/os-release")).match(/^PRETTY_NAME="?([^"\n]*)"?$/m)?.[1];
  const node = nodes.length > 0 ? undefined : await nodeVersion(MACHINE_NODE);
  const { deno, v8, typescript } = Deno.version;
  return {
    cpu: cpu?.trim() ?? "unknown",
    cores: navigator.hardwareConcurrency,
    memory: `${(Deno.systemMemoryInfo().total / 1024 ** 3).toFixed(1)} GiB`,
    os: `${distro ?? Deno.build.os}, kernel ${Deno.osRelease()}, ${Deno.build.arch}`,
    deno: `Deno ${deno}, V8 ${v8}, TypeScript ${typescript}`,
    node: nodes.length > 0 ? nodes.join(", ") : node === undefined ? "not installed" : node,
    loadBefore,
    loadAfter: loadAverage(),
  };
}

/** The npm versions deno.lock resolved, by package name. */
async function denoVersions(): Promise<Record<string, string>> {
  const lock = JSON.parse((await readText("deno.lock")) || "{}") as {
    specifiers?: Record<string, string>;
  };
  const versions: Record<string, string> = {};
  for (const [specifier, version] of Object.entries(lock.specifiers ?? {})) {
    const name = specifier.match(/^npm:(@?[^@]+)@/)?.[1];
    if (name !== undefined) versions[name] = version;
  }
  return versions;
}

/** The machine's `node`. */
const MACHINE_NODE = { command: "node", args: [] } as const;

/** The version `node --version` prints for a line, such as `v22.22.0`; `undefined` when it does not run. */
async function nodeVersion(line: Pick<NodeLine, "command" | "args">): Promise<string | undefined> {
  const version = await run(line.command, [...line.args, "--version"]);
  return version?.success ? lastLine(version.stdout) : undefined;
}

/** Installs the Node clients' packages for the `node` of `line` into `deps`; returns notices. */
export async function installNodeDeps(
  deps: string,
  fetchlineNpm: string,
  line: Pick<NodeLine, "command" | "args"> = MACHINE_NODE,
): Promise<string[]> {
  const version = await nodeVersion(line);
  const name = [line.command, ...line.args].join(" ");
  if (version === undefined) return [`Node left out: \`${name}\` does not run`];
  const [major = 0, minor = 0] = version.slice(1).split(".").map(Number);
  // The newest majors this Node supports (ky 2 needs Node 22, undici 8 Node 22.19).
  const packages = [
    major >= 22 ? "ky@^2" : "ky@^1",
    major > 22 || (major === 22 && minor >= 19) ? "undici@^8" : "undici@^7",
    "axios@^1",
    "got@^14",
  ];
  const args = ["install", "--prefix", deps, "--no-audit", "--no-fund", "--no-package-lock"];
  log(`npm ${[...args, ...packages].join(" ")}`);
  const installed = await run("npm", [...args, ...packages]);
  if (!installed?.success) {
    const reason = installed ? decoder.decode(installed.stderr).trim().slice(-400) : "no npm";
    return [`Node ${version} left out: npm install failed: ${reason}`];
  }
  // A bare name would make npm pack the registry's package of that name: pass a path.
  const folder = /^\.{0,2}\//.test(fetchlineNpm) ? fetchlineNpm : `./${fetchlineNpm}`;
  const packed = await run("npm", ["pack", folder, "--pack-destination", deps]);
  const tarball = `${deps}/${packed?.success ? lastLine(packed.stdout) : ""}`;
  if (packed?.success && (await run("npm", [...args, tarball]))?.success) return [];
  const uninstall = ["uninstall", "--prefix", deps, "--no-audit", "--no-fund"];
  await run("npm", [...uninstall, "@fetchline/fetchline"]);
  return [
    `node fetchline: no npm build installed from ${folder} (run \`deno task build:npm\`, or pass --fetchline-npm=<folder>)`,
  ];
}

/**
 * The lines of Node to measure, each with its packages installed in a
 * folder of its own under `deps` (the packages differ by line), and notices.
 */
async function nodeTargets(
  deps: string,
  fetchlineNpm: string,
): Promise<{ targets: NodeTarget[]; versions: string[]; notices: string[] }> {
  const machine = await nodeVersion(MACHINE_NODE);
  const major = machine === undefined ? undefined : Number(machine.slice(1).split(".")[0]);
  const targets: NodeTarget[] = [];
  const versions: string[] = [];
  const notices: string[] = [];
  for (const line of nodeLines(Deno.env.get("FETCHLINE_NODE_LINES"), major)) {
    const folder = `${deps}/node${line.major}`;
    const missing = await installNodeDeps(folder, fetchlineNpm, line);
    notices.push(...missing);
    // A line whose packages did not install is left out; one without fetchline still runs.
    if (missing.some((notice) => notice.startsWith("Node"))) continue;
    targets.push({ command: line.command, args: line.args, deps: folder });
    const version = await nodeVersion(line);
    versions.push(
      `${version}${
        line.machine ? " (the machine's)" : ` (${line.command} ${line.args.join(" ")})`
      }`,
    );
  }
  return { targets, versions, notices };
}

async function microBenches(): Promise<{ micro: Micro[]; notices: string[] }> {
  log(`deno bench --json ${MICRO_FILES.join(" ")}`);
  const output = await run("deno", ["bench", "--json", ...MICRO_FILES]);
  if (!output?.success) {
    return { micro: [], notices: [`deno bench failed: ${output && lastLine(output.stderr)}`] };
  }
  const report = JSON.parse(decoder.decode(output.stdout)) as {
    benches: {
      origin: string;
      group: string | null;
      name: string;
      baseline: boolean;
      results: { ok?: { avg: number; p75: number } }[];
    }[];
  };
  const micro = report.benches.flatMap((bench) => {
    const ok = bench.results[0]?.ok;
    if (ok === undefined) return [];
    const file = bench.origin.slice(bench.origin.lastIndexOf("/bench/") + 1);
    const { group, name, baseline } = bench;
    return [{ file, group: group ?? "", name, baseline, avg: ok.avg, p75: ok.p75 }];
  });
  return { micro, notices: [] };
}

async function memory(requests: number): Promise<NonNullable<Results["memory"]>> {
  const args = ["test", "--v8-flags=--expose-gc", "--allow-net=127.0.0.1", "--allow-run=deno"];
  args.push("bench/memory.ts", "--", `--requests=${requests}`);
  const command = `deno ${args.join(" ")}`;
  log(command);
  const output = await run("deno", args);
  const results = decoder.decode(output?.stdout ?? new Uint8Array()).split("\n")
    .filter((line) => line.startsWith('{"kind":"memory"'))
    .map((line) => JSON.parse(line) as MemoryResult);
  return { command, passed: output?.success === true, results };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      ...THROUGHPUT_FLAGS,
      quick: { type: "boolean", default: false },
      "node-deps": { type: "string", default: "/tmp/fetchline-bench-node" },
      "fetchline-npm": { type: "string", default: "npm" },
      "memory-requests": { type: "string", default: "100000" },
      "one-shot-runs": { type: "string", default: "60" },
      only: { type: "string", default: "throughput,micro,memory,oneshot" },
    },
  });
  const started = Date.now();
  const loadBefore = loadAverage();
  const only = new Set(values.only.split(","));
  const fraction = values.quick ? 0.1 : 1;
  const nodeDeps = values["node-deps"] === "off" ? undefined : values["node-deps"];
  const scale = String(Number(values.scale) * fraction);
  const notices: string[] = [];
  const node = only.has("throughput") && nodeDeps !== undefined
    ? await nodeTargets(nodeDeps, values["fetchline-npm"])
    : { targets: [], versions: [], notices: [] };
  notices.push(...node.notices);
  const options = throughputOptions({ ...values, scale }, node.targets, log);

  let throughput: Results["throughput"];
  if (only.has("throughput")) {
    await run("deno", ["cache", "bench/measure.ts"]);
    const result = await runThroughput(options);
    notices.push(...result.notices);
    const levels = options.levels.map((level) =>
      `at concurrency ${level.concurrency}, ${
        level.requests.toLocaleString("en-US")
      } requests after ${level.warmup.toLocaleString("en-US")} of warm-up`
    );
    throughput = {
      description: `${levels.join("; ")}; ${options.rounds} rounds`,
      contenders: result.contenders,
      summaries: result.summaries,
    };
  }
  const micro = only.has("micro") ? await microBenches() : { micro: [], notices: [] };
  notices.push(...micro.notices);
  const mem = only.has("memory")
    ? await memory(Math.round(Number(values["memory-requests"]) * fraction))
    : undefined;
  if (mem !== undefined && !mem.passed) notices.push("bench/memory.ts failed: run it to see why");
  const oneShotRuns = Math.max(10, Math.round(Number(values["one-shot-runs"]) * fraction));
  const oneShot = only.has("oneshot") ? await runOneShot(oneShotRuns) : undefined;

  const task = JSON.parse((await readText("deno.json")) || "{}").tasks?.bench ?? "";
  const args = Deno.args.join(" ");
  const markdown = resultsMarkdown({
    date: new Date(started),
    minutes: (Date.now() - started) / 60000,
    quick: values.quick,
    command: `deno task bench${args && " " + args}`,
    expanded: `${task}${args && " " + args}`,
    machine: await machine(loadBefore, node.versions),
    throughput,
    denoVersions: await denoVersions(),
    micro: micro.micro,
    memory: mem,
    oneShot,
    notices,
  });
  // The In-process A/B, Streams and Size sections are bench:ab's, bench:streams' and size's
  // (bench/ab_network.ts, bench/streams.ts, bench/size.ts): kept as they are.
  const old = await readText(OUT);
  const kept = ["ab", "streams", "size"].map((name) => markedSection(old, name))
    .filter((section) => section !== "");
  await Deno.writeTextFile(OUT, [markdown.trimEnd(), ...kept].join("\n\n") + "\n");
  // Aligned tables, and `deno fmt --check` (part of `deno task check`) stays clean.
  await run("deno", ["fmt", "--quiet", OUT]);
  log(`wrote ${OUT}`);
}

if (import.meta.main) await main();
