// bench/RESULTS.md: the machine, the targets, and the tables of every benchmark.

import { referencesOf, rpsOf, runtimesOf, throughputTables } from "./_report.ts";
import type { Summary } from "./_report.ts";
import type { Contender } from "./throughput.ts";
import { ECHO_BODY, ITEM } from "./_workload.ts";
import type { OneShotResult } from "./one_shot.ts";

/** The machine the figures come from. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memory: string;
  readonly os: string;
  readonly deno: string;
  readonly node: string;
  readonly loadBefore: string;
  readonly loadAfter: string;
}

/** One `deno bench` result; times in nanoseconds. */
export interface Micro {
  readonly file: string;
  readonly group: string;
  readonly name: string;
  readonly baseline: boolean;
  readonly avg: number;
  readonly p75: number;
}

/** One run of bench/memory.ts (its JSON line). */
export interface MemoryResult {
  readonly transport: string;
  readonly client: string;
  readonly requests: number;
  readonly heapBeforeMb: number;
  readonly heapAfterMb: number;
  readonly heapMaxMb: number;
  readonly rssBeforeMb: number;
  readonly rssAfterMb: number;
  readonly leakedResources: string[] | null;
}

/** Everything RESULTS.md shows. */
export interface Results {
  readonly date: Date;
  readonly minutes: number;
  readonly quick: boolean;
  /** As typed, and as the task expands it. */
  readonly command: string;
  readonly expanded: string;
  readonly machine: Machine;
  readonly throughput?: {
    readonly description: string;
    readonly contenders: readonly Contender[];
    readonly summaries: readonly Summary[];
  } | undefined;
  /** Library versions of the Deno contenders, by package name. */
  readonly denoVersions: Readonly<Record<string, string>>;
  readonly micro: readonly Micro[];
  readonly memory?: {
    readonly command: string;
    readonly passed: boolean;
    readonly results: readonly MemoryResult[];
  } | undefined;
  /** bench/one_shot.ts: a script sending one GET, as whole processes. */
  readonly oneShot?: OneShotResult | undefined;
  readonly notices: readonly string[];
}

function table(head: string[], rows: string[][], numeric = 0): string {
  const align = head.map((_, i) => (i < head.length - numeric ? "---" : "---:"));
  return [head, align, ...rows].map((row) => `| ${row.join(" | ")} |`).join("\n");
}

const us = (ns: number) => (ns / 1000).toFixed(ns < 100_000 ? 2 : 0);
const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

/** The issue's targets, each with the figure measured and whether it is met. */
function targets(results: Results): string {
  const summaries = results.throughput?.summaries ?? [];
  const rows: string[][] = [];
  // The Deno targets are settled by bench:ab's in-process A/B: whole-process ratios swing with
  // the machine's load, so its rows here only inform, one verdict per target staying there.
  for (const s of summaries) {
    if (s.runtime !== "deno" || s.client !== "fetchline") continue;
    const against = (client: string, reference: string) => {
      const [rps, base] = [rpsOf(summaries, s, client), rpsOf(summaries, s, reference)];
      return rps === undefined || base === undefined ? "–" : `${(rps / base).toFixed(2)} ×`;
    };
    rows.push([
      `deno, c=${s.concurrency}, ${s.workload}, req/s: fetchline, +hooks (five) ÷ fetch+timeout; no-timeout ÷ fetch`,
      `${against("fetchline", "fetch+timeout")}, ${against("fetchline+hooks", "fetch+timeout")}; ${
        against("fetchline-no-timeout", "fetch")
      }`,
      "informative: the verdicts are the In-process A/B's",
    ]);
  }
  // Every line of Node has the same targets.
  for (const runtime of runtimesOf(summaries).filter((r) => r !== "deno")) {
    for (const s of summaries) {
      if (s.runtime !== runtime || s.client !== "fetchline") continue;
      const base = rpsOf(summaries, s, "undici");
      if (s.concurrency === 64 && base !== undefined) {
        rows.push([
          `${runtime}, c=64, ${s.workload}: fetchline ≥ 1.30 × undici`,
          `${(s.rps / base).toFixed(2)} ×`,
          verdict(s.rps / base >= 1.3),
        ]);
      }
      const rivals = ["ky", "axios", "got"];
      const ahead = rivals.filter((rival) => (rpsOf(summaries, s, rival) ?? -1) >= s.rps);
      rows.push([
        `${runtime}, c=${s.concurrency}, ${s.workload}: fetchline ahead of ${rivals.join(", ")}`,
        ahead.length === 0 ? "ahead of all" : `behind ${ahead.join(", ")}`,
        verdict(ahead.length === 0),
      ]);
    }
  }
  const oneShot = results.oneShot;
  if (oneShot !== undefined) {
    rows.push([
      `deno, one-shot script (one GET, whole process): fetchline ≤ 1.20 × raw fetch + timeout`,
      `${oneShot.ratio.toFixed(2)} × (${oneShot.fetchlineMs.toFixed(0)} ms against ${
        oneShot.fetchMs.toFixed(0)
      } ms; mod.ts loads ${oneShot.modules} modules; ${oneShot.runs} pairs)`,
      verdict(oneShot.ratio <= 1.2),
    ]);
  }
  const avg = (name: string) => results.micro.find((m) => m.name === name)?.avg;
  const transport = avg("transport alone: Response, read, JSON.parse");
  const hooked = avg("fetchline, 5 hooks");
  if (transport !== undefined && hooked !== undefined) {
    const overhead = hooked - transport;
    rows.push([
      "pipeline overhead, 5 hooks < 10 µs",
      `${us(overhead)} µs`,
      verdict(overhead < 1e4),
    ]);
  }
  const stringify = avg("JSON.stringify: a 1 MB body");
  const serialize = avg("serializeJson: a 1 MB body (Python style)");
  if (stringify !== undefined && serialize !== undefined) {
    const ratio = serialize / stringify;
    rows.push([
      "serializeJson ≤ 1.5 × JSON.stringify, 1 MB",
      `${ratio.toFixed(2)} ×`,
      verdict(ratio <= 1.5),
    ]);
  }
  for (const m of results.memory?.results ?? []) {
    const growth = m.heapAfterMb - m.heapBeforeMb;
    rows.push([
      `heap flat over ${m.requests.toLocaleString("en-US")} requests (${m.transport}): < 1 MB`,
      `${growth >= 0 ? "+" : ""}${(growth * 1024).toFixed(0)} KB`,
      verdict(growth < 1),
    ]);
  }
  if (results.memory !== undefined) {
    rows.push([
      "no open resources or timers after close() (deno test sanitizers)",
      results.memory.passed ? "none" : "see the test output",
      verdict(results.memory.passed),
    ]);
  }
  return table(["target", "measured", "verdict"], rows);
}

function microTable(micro: readonly Micro[]): string {
  const rows = micro.map((m) => {
    const base = micro.find((b) => b.file === m.file && b.group === m.group && b.baseline);
    const versus = base === undefined || m.baseline
      ? "baseline"
      : m.file.endsWith("pipeline_bench.ts")
      ? `+${us(m.avg - base.avg)} µs`
      : `${(m.avg / base.avg).toFixed(2)} ×`;
    return [m.file, m.name, us(m.avg), us(m.p75), versus];
  });
  return table(["file", "benchmark", "avg µs", "p75 µs", "vs baseline"], rows, 3);
}

function memoryTable(memory: readonly MemoryResult[]): string {
  const mb = (value: number) => value.toFixed(2);
  const rows = memory.map((m) => [
    m.transport,
    m.client,
    m.requests.toLocaleString("en-US"),
    mb(m.heapBeforeMb),
    mb(m.heapAfterMb),
    mb(m.heapMaxMb),
    (((m.heapAfterMb - m.heapBeforeMb) * 1024 * 1024) / m.requests).toFixed(1),
    `${mb(m.rssBeforeMb)} → ${mb(m.rssAfterMb)}`,
    m.leakedResources === null
      ? "n/a"
      : m.leakedResources.length === 0
      ? "none"
      : m.leakedResources.join(", "),
  ]);
  const head = ["transport", "client", "requests", "heap before MB", "heap after MB"];
  head.push("heap max MB", "bytes/request", "RSS MB", "resources left after close()");
  return table(head, rows, 6);
}

function clientTable(results: Results): string {
  const rows = (results.throughput?.contenders ?? []).map((c) => {
    const npm = results.denoVersions[c.name];
    const version = c.runtime !== "deno"
      ? c.version
      : npm !== undefined
      ? `${c.name}@${npm}`
      : c.name.startsWith("fetchline")
      ? "fetchline (this tree)"
      : `Deno ${Deno.version.deno}`;
    return [c.runtime, c.name, c.description, version];
  });
  return table(["runtime", "client", "what", "version"], rows);
}

/** The whole of RESULTS.md. */
export function resultsMarkdown(results: Results): string {
  const { machine, throughput, memory } = results;
  const quick = results.quick
    ? "\n\n**Quick run (`--quick`): a tenth of the requests; the figures are rough.**"
    : "";
  const machineTable = table(["", ""], [
    ["CPU", machine.cpu],
    ["Cores", String(machine.cores)],
    ["Memory", machine.memory],
    ["OS", machine.os],
    ["Deno", machine.deno],
    ["Node", machine.node],
    ["Load average before / after", `${machine.loadBefore} / ${machine.loadAfter}`],
  ]);
  const notices = results.notices.length === 0
    ? ""
    : `\n## Notices\n\n${results.notices.map((notice) => `- ${notice}`).join("\n")}\n`;
  return `# Benchmark results

Written by \`deno task bench\` (bench/run.ts); do not edit by hand. Run it on a quiet machine to
replace these figures.${quick}

- Date: ${results.date.toISOString()} (the run took ${results.minutes.toFixed(1)} min)
- Command: \`${results.command}\`
- That is: \`${results.expanded}\`
- Memory: \`${memory?.command ?? "not run"}\`

## Machine

${machineTable}

## Targets

The Deno targets (fetchline against raw fetch + AbortSignal.timeout, with six hooks, with every
deadline off, against ky and ofetch) have their verdicts in "In-process A/B" below, the figures
that settle them; the whole-process Deno rows here show the ratios of this run only.

${targets(results)}

## Throughput

The server (bench/server.ts) runs in its own process on 127.0.0.1: GET answers a
${bytes(ITEM)}-byte JSON object, POST echoes a ${bytes(ECHO_BODY)}-byte JSON body. Every
measurement runs in a fresh client process, which warms up and then reads and parses every body:
${throughput?.description ?? "not run"}. Each round runs every client in turn (A B C … A B C …);
the tables quote the medians of the rounds. Ratios are to ${
    referencesOf("deno").join(" and ")
  } (Deno) and to ${
    referencesOf("node20").join(" and ")
  } (each line of Node, on its own line) at the same workload and concurrency. Client CPU is the client process's user + system time
(all its threads) per request.

${throughput === undefined ? "Not run." : throughputTables(throughput.summaries)}

${throughput === undefined ? "" : clientTable(results)}

## Micro-benchmarks (\`deno bench\`)

In memory, no network. The pipeline cases send one call through the client over a \`withFetch\`
transport that returns a canned JSON Response and parse the body; "vs baseline" is the client's
overhead per request over the transport alone (bench/pipeline_bench.ts names the config and the
hooks).

${results.micro.length === 0 ? "Not run." : microTable(results.micro)}

## Memory

bench/memory.ts under \`deno test\`, whose sanitizers fail a test that leaves a resource or a
timer behind: fetchline with the five hooks, alternating GET and POST, the heap measured after
full GCs, after a warm-up and then every tenth of the run. Test ${
    memory === undefined ? "not run" : memory.passed ? "passed" : "**failed**"
  }.

${memory === undefined || memory.results.length === 0 ? "Not run." : memoryTable(memory.results)}
${notices}`;
}
