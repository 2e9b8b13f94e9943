// bench/RESULTS.md is a row of sections, each between `<!-- name:start -->` and
// `<!-- name:end -->` and written by one benchmark through writeSection(); the
// rest of the file is left as it is.

import os from "node:os";

const OUT = "bench/RESULTS.md";

/** The load average, as `uptime` prints it. */
export const loadAverage = () => Deno.loadavg().map((load) => load.toFixed(2)).join(" ");

/** A Markdown table; the last `numeric` columns are right-aligned. */
export function table(head: string[], rows: string[][], numeric = head.length - 1): string {
  const align = head.map((_, i) => (i < head.length - numeric ? "---" : "---:"));
  return [head, align, ...rows].map((row) => `| ${row.join(" | ")} |`).join("\n");
}

/** What every section opens with: its title, its task, when, where and how it ran. */
export interface Run {
  readonly title: string;
  /** The task, such as `bench:ab`, and the file it runs. */
  readonly task: string;
  readonly file: string;
  readonly started: Date;
  readonly loadBefore: string;
  /** A quick run's figures are rough: the section says so. */
  readonly quick?: boolean;
}

/** The opening lines of `run`'s section. */
export function opening(run: Run): string {
  const args = Deno.args.filter((arg) => arg !== "--write").join(" ");
  const minutes = (Date.now() - run.started.getTime()) / 60000;
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  const quick = run.quick
    ? "\n**Quick run (`--quick`): a check that it runs; the figures are rough.**\n"
    : "";
  return `## ${run.title}

Written by \`deno task ${run.task}\` (${run.file}).
${quick}
- Date: ${run.started.toISOString()} (the run took ${minutes.toFixed(1)} min)
- Command: \`deno task ${run.task}${args && ` ${args}`}\`
- Machine: ${cpu}, ${navigator.hardwareConcurrency} cores, ${Deno.build.os} ${Deno.build.arch}, Deno ${Deno.version.deno}; load average before / after: ${run.loadBefore} / ${loadAverage()}`;
}

/** Replaces the section `name` of bench/RESULTS.md with `markdown` (added at the end when absent). */
export async function writeSection(name: string, markdown: string): Promise<void> {
  const [start, end] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  const section = `${start}\n\n${markdown.trim()}\n\n${end}`;
  const old = await Deno.readTextFile(OUT).catch(() => "# Benchmark results\n");
  const [from, to] = [old.indexOf(start), old.indexOf(end)];
  const text = from !== -1 && to > from
    ? old.slice(0, from) + section + old.slice(to + end.length)
    : `${old.trimEnd()}\n\n${section}\n`;
  await Deno.writeTextFile(OUT, text);
  // Aligned tables, as `deno fmt --check` (part of `deno task check`) expects.
  await new Deno.Command("deno", { args: ["fmt", "--quiet", OUT] }).output();
  console.error(`wrote the ${name} section of ${OUT}`);
}
