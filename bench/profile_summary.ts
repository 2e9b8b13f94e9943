/**
 * Summarizes V8 CPU profiles (`deno run --cpu-prof`) by function: self time
 * (the function was on top of the stack) and total time (it was anywhere on
 * the stack, counted once per sample), with `file:line`, the top ones first.
 *
 * ```sh
 * deno run --cpu-prof --cpu-prof-dir=/tmp/prof --allow-net=127.0.0.1 bench/measure.ts …
 * deno run --allow-read=/tmp/prof bench/profile_summary.ts /tmp/prof/*.cpuprofile --top=25
 * ```
 *
 * `--filter=src/` keeps only the functions whose file contains the text
 * (self and total are still shares of the whole profile).
 *
 * @module
 */

import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One function's times, in microseconds. */
export interface FunctionTime {
  readonly key: string;
  self: number;
  total: number;
}

function keyOf(node: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.startsWith(root) ? url.slice(root.length) : url.replace(/^file:\/\//, "");
  const name = functionName === "" ? "(anonymous)" : functionName;
  return file === "" ? name : `${name} ${file}:${lineNumber + 1}`;
}

/** Adds `profile`'s samples to `times`; returns the profile's duration in µs. */
export function addProfile(
  profile: CpuProfile,
  times: Map<string, FunctionTime>,
  root: string,
): number {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const entry = (key: string) => {
    let time = times.get(key);
    if (time === undefined) times.set(key, time = { key, self: 0, total: 0 });
    return time;
  };
  let duration = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample's delta is the time since the previous one: charge it to this sample.
    const delta = profile.timeDeltas[i] ?? 0;
    duration += delta;
    let id: number | undefined = profile.samples[i]!;
    entry(keyOf(byId.get(id)!, root)).self += delta;
    const seen = new Set<string>();
    for (; id !== undefined; id = parent.get(id)) {
      const key = keyOf(byId.get(id)!, root);
      if (seen.has(key)) continue;
      seen.add(key);
      entry(key).total += delta;
    }
  }
  return duration;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      top: { type: "string", default: "30" },
      filter: { type: "string", default: "" },
      sort: { type: "string", default: "self" },
    },
  });
  const root = new URL("../", import.meta.url).href;
  const times = new Map<string, FunctionTime>();
  let duration = 0;
  for (const path of positionals) {
    duration += addProfile(JSON.parse(await Deno.readTextFile(path)), times, root);
  }
  const by = values.sort === "total" ? "total" : "self";
  const rows = [...times.values()]
    .filter((time) => time.key.includes(values.filter))
    .sort((a, b) => b[by] - a[by])
    .slice(0, Number(values.top));
  const share = (us: number) => `${((100 * us) / duration).toFixed(1).padStart(5)}%`;
  console.log(`${positionals.length} profile(s), ${(duration / 1000).toFixed(0)} ms sampled`);
  console.log(`${"self".padStart(7)} ${"total".padStart(7)}  function file:line`);
  for (const row of rows) console.log(`${share(row.self)} ${share(row.total)}  ${row.key}`);
}
