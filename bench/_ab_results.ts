// The "In-process A/B" section of bench/RESULTS.md: written by `deno task
// bench:ab` (bench/ab_network.ts) between two markers, and kept as it is when
// `deno task bench` (bench/run.ts) rewrites the rest of the file.

import os from "node:os";
import { compare, median } from "./_loop.mjs";
import type { rounds } from "./_loop.mjs";

/** Each side's CPU time per request (µs) and requests per second, round by round. */
export type Rounds = Awaited<ReturnType<typeof rounds>>;

/** The section `name` of `markdown` with its markers, or "" when it has none. */
export function markedSection(markdown: string, name: string): string {
  const [start, end] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  return from === -1 || to < from ? "" : markdown.slice(from, to + end.length);
}

/** `markdown` with its section `name` replaced by `section` (added at the end when it has none). */
export function withMarkedSection(markdown: string, name: string, section: string): string {
  const old = markedSection(markdown, name);
  if (old !== "") return markdown.replace(old, () => section);
  return `${markdown.trimEnd()}\n\n${section}\n`;
}

/** One run of bench:ab. */
export interface AbRun {
  readonly started: Date;
  readonly command: string;
  readonly loadBefore: readonly number[];
  readonly results: readonly {
    readonly workload: string;
    readonly concurrency: number;
    readonly blocks: number;
    readonly requests: number;
    readonly rounds: Rounds;
  }[];
}

/** A target: `candidate`'s CPU per request at least `goal` × `reference`'s (reference ÷ candidate). */
interface Target {
  readonly label: string;
  readonly candidate: string;
  readonly reference: string;
  /** The least ratio that meets it; "ahead of" a peer is more than 1. */
  readonly goal: number;
  readonly strict?: boolean;
}

const TARGETS: readonly Target[] = [
  {
    label: "fetchline ≥ 0.97 × fetch+timeout",
    candidate: "fetchline",
    reference: "fetch+timeout",
    goal: 0.97,
  },
  {
    label: "fetchline+hooks (six) ≥ 0.92 × fetch+timeout",
    candidate: "fetchline+hooks",
    reference: "fetch+timeout",
    goal: 0.92,
  },
  {
    label: "fetchline-no-deadline ≥ 0.95 × fetch",
    candidate: "fetchline-no-deadline",
    reference: "fetch",
    goal: 0.95,
  },
  ...["ky+timeout", "ofetch+timeout", "ky"].map((peer) => ({
    label: `fetchline ahead of ${peer}`,
    candidate: "fetchline",
    reference: peer,
    goal: 1,
    strict: true,
  })),
];

/** The median over rounds of `reference`'s CPU per request ÷ `candidate`'s. */
function ratio(rounds: Rounds, candidate: string, reference: string): number | undefined {
  const known = rounds.cpuUs[reference] !== undefined && rounds.cpuUs[candidate] !== undefined;
  return known ? compare(rounds, reference, candidate).cpuRatio : undefined;
}

function table(head: string[], rows: string[][]): string {
  const align = head.map((_, i) => (i === 0 ? "---" : "---:"));
  return [head, align, ...rows].map((row) => `| ${row.join(" | ")} |`).join("\n");
}

/** Writes `run`'s section into bench/RESULTS.md (formatted, as `deno fmt --check` expects). */
export async function writeAbSection(run: AbRun): Promise<void> {
  const out = "bench/RESULTS.md";
  const markdown = await Deno.readTextFile(out).catch(() => "# Benchmark results\n");
  await Deno.writeTextFile(out, withMarkedSection(markdown, "ab", abSection(run)));
  await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", out] }).output();
  console.error(`wrote the In-process A/B section of ${out}`);
}

/** The section, with its markers. */
function abSection(run: AbRun): string {
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(" ");
  const minutes = (Date.now() - run.started.getTime()) / 60000;
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  const machine =
    `${cpu}, ${navigator.hardwareConcurrency} cores, ${Deno.build.os} ${Deno.build.arch}, Deno ${Deno.version.deno}`;
  const columns = run.results.map((r) => `${r.workload.toUpperCase()} c=${r.concurrency}`);
  const targets = TARGETS.map((target) => [
    target.label,
    ...run.results.map(({ rounds }) => {
      const value = ratio(rounds, target.candidate, target.reference);
      if (value === undefined) return "not run";
      const met = target.strict ? value > target.goal : value >= target.goal;
      return `${value.toFixed(2)} × ${met ? "met" : "**missed**"}`;
    }),
  ]);
  const kinds = Object.keys(run.results[0]?.rounds.cpuUs ?? {});
  const ratios = kinds.map((kind) => [
    kind,
    ...run.results.map(({ rounds }) => {
      const cells = ["fetch", "fetch+timeout"].map((ref) => ratio(rounds, kind, ref)?.toFixed(2));
      return `${cells.join(" / ")} (${median(rounds.cpuUs[kind]!).toFixed(1)} µs)`;
    }),
  ]);
  const first = run.results[0];
  return `<!-- ab:start -->
## In-process A/B (Deno)

Written by \`deno task bench:ab\` (bench/ab_network.ts); the figures that settle the Deno targets.

- Date: ${run.started.toISOString()} (the run took ${minutes.toFixed(1)} min); load average
  before / after: ${load(run.loadBefore)} / ${load(Deno.loadavg())}
- Machine: ${machine}
- Command: \`${run.command}\`

One Deno process keeps every client and sends to bench/server.ts in another process: each round
runs a block of ${first?.requests.toLocaleString("en-US") ?? "?"} requests of every client, the
order rotating, ${first?.blocks ?? "?"} rounds. A ratio is the median over rounds of the
reference's CPU time per request ÷ the client's (above 1: the client is cheaper). \`fetch\` is raw
fetch, \`fetch+timeout\` adds \`AbortSignal.timeout(30_000)\`; they, ky and ofetch (\`+timeout\`:
configured with the same 30 s timeout) share one \`Deno.createHttpClient\` pool, passed as Deno's
\`client\` option, which both libraries hand to fetch; fetchline makes its own. fetchline+hooks has
six hooks: withLogging (request, response, error; a no-op logger), CorrelationIdHook,
RateLimitResponseHook, ApiKeyAuthHook; \`fetch+timeout+headers\` is fetch+timeout sending the two
headers those hooks add (a correlation ID, an API key), what their effect costs fetch itself. fetchline-no-deadline has timeout, readTimeout and
totalTimeout null. Where the CPU goes, why a target is missed and what it would need: bench/PROFILE.md.

${table(["target", ...columns], targets)}

Ratios to fetch / to fetch+timeout (the client's median CPU time per request):

${table(["client", ...columns], ratios)}
<!-- ab:end -->`;
}
