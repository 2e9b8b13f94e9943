// Medians of the throughput rounds and their Markdown tables.

import { median } from "./_loop.mjs";
import type { Measurement, Runtime, Workload } from "./_workload.ts";

/** The medians of one client's rounds at one workload and concurrency. */
export interface Summary {
  readonly runtime: Runtime;
  readonly client: string;
  readonly workload: Workload;
  readonly concurrency: number;
  readonly rounds: number;
  readonly rps: number;
  readonly rpsMin: number;
  readonly rpsMax: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUsPerRequest: number;
}

/** The reference clients a runtime's ratios are taken against: the same on every line of Node. */
export function referencesOf(runtime: Runtime): readonly string[] {
  return runtime === "deno" ? ["fetch"] : ["fetch", "undici"];
}

/** The runtimes measured: Deno first, then the lines of Node, oldest first. */
export function runtimesOf(summaries: readonly Pick<Summary, "runtime">[]): Runtime[] {
  const nodes = new Set(summaries.map((s) => s.runtime).filter((r) => r !== "deno"));
  const lines = [...nodes].sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
  return [...(summaries.some((s) => s.runtime === "deno") ? ["deno" as const] : []), ...lines];
}

/** A runtime's name in a heading: "Deno", "Node 22". */
function runtimeTitle(runtime: Runtime): string {
  return runtime === "deno" ? "Deno" : `Node ${runtime.slice(4)}`;
}

/** Groups measurements by runtime, client, workload and concurrency, and takes medians. */
export function summarize(measurements: readonly Measurement[]): Summary[] {
  const groups = new Map<string, Measurement[]>();
  for (const m of measurements) {
    const key = `${m.runtime}\0${m.client}\0${m.workload}\0${m.concurrency}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((runs) => {
    const { runtime, client, workload, concurrency } = runs[0]!;
    const rps = runs.map((run) => run.rps);
    return {
      runtime,
      client,
      workload,
      concurrency,
      rounds: runs.length,
      rps: median(rps),
      rpsMin: Math.min(...rps),
      rpsMax: Math.max(...rps),
      p50Ms: median(runs.map((run) => run.p50Ms)),
      p99Ms: median(runs.map((run) => run.p99Ms)),
      cpuUsPerRequest: median(runs.map((run) => run.cpuUsPerRequest)),
    };
  });
}

/** The median req/s of `client` at the same runtime, workload and concurrency as `row`. */
export function rpsOf(
  summaries: readonly Summary[],
  row: Pick<Summary, "runtime" | "workload" | "concurrency">,
  client: string,
): number | undefined {
  return summaries.find((s) =>
    s.runtime === row.runtime && s.workload === row.workload &&
    s.concurrency === row.concurrency && s.client === client
  )?.rps;
}

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "–";
}

/**
 * One Markdown table per runtime and concurrency: req/s (median and the
 * range over rounds), the ratio to each reference, p50, p99, client CPU.
 */
export function throughputTables(summaries: readonly Summary[]): string {
  const sections: string[] = [];
  for (const runtime of runtimesOf(summaries)) {
    const references = referencesOf(runtime);
    const rows = summaries.filter((s) => s.runtime === runtime);
    const levels = [...new Set(rows.map((s) => s.concurrency))].sort((a, b) => a - b);
    for (const concurrency of levels) {
      const head = [
        "workload",
        "client",
        "req/s (median)",
        "range over rounds",
        ...references.map((ref) => `× ${ref}`),
        "p50 ms",
        "p99 ms",
        "client CPU µs/req",
      ];
      const lines = [
        `### ${runtimeTitle(runtime)}, concurrency ${concurrency}`,
        "",
        `| ${head.join(" | ")} |`,
        `| ${head.map((_, i) => (i < 2 ? "---" : "---:")).join(" | ")} |`,
      ];
      for (const s of rows.filter((row) => row.concurrency === concurrency)) {
        const ratios = references.map((ref) => {
          const base = rpsOf(summaries, s, ref);
          return base === undefined ? "–" : fixed(s.rps / base, 2);
        });
        const cells = [
          s.workload === "get" ? "GET JSON" : "POST echo",
          s.client,
          integer.format(s.rps),
          `${integer.format(s.rpsMin)}–${integer.format(s.rpsMax)}`,
          ...ratios,
          fixed(s.p50Ms, 2),
          fixed(s.p99Ms, 2),
          integer.format(s.cpuUsPerRequest),
        ];
        lines.push(`| ${cells.join(" | ")} |`);
      }
      sections.push(lines.join("\n"));
    }
  }
  return sections.join("\n\n");
}
