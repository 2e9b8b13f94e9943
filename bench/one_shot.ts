/**
 * One-shot scripts: `deno run` of a script that sends one GET and ends,
 * timed as a whole process (spawn to exit), fetchline (bench/one_shot/
 * fetchline.ts) against the same script with raw fetch and a deadline
 * (bench/one_shot/fetch.ts). The two run in turn, A B A B …, after a warm-up
 * that fills Deno's caches; the ratio is the median of the pairs' ratios, so
 * it holds while the machine's speed drifts. Also counts the modules mod.ts
 * loads (`deno info`): a cold cache fetches each one.
 *
 * ```sh
 * deno run --allow-run=deno --allow-read=. bench/one_shot.ts --runs=60
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { median } from "./_loop.mjs";
import { spawnServer } from "./server.ts";

/** What bench/run.ts puts in RESULTS.md. */
export interface OneShotResult {
  readonly runs: number;
  /** Median wall time of a whole process, ms. */
  readonly fetchlineMs: number;
  readonly fetchMs: number;
  /** Median over the pairs of fetchline's time ÷ fetch's. */
  readonly ratio: number;
  /** The modules of mod.ts's graph (`deno info --json mod.ts`). */
  readonly modules: number;
}

const script = (name: string) => new URL(`./one_shot/${name}.ts`, import.meta.url).pathname;
const MOD = new URL("../mod.ts", import.meta.url).pathname;

async function timeRun(file: string, url: string): Promise<number> {
  const command = new Deno.Command("deno", {
    args: ["run", "--quiet", "--allow-net=127.0.0.1", file, url],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  });
  const start = performance.now();
  const output = await command.output();
  const ms = performance.now() - start;
  if (!output.success) {
    throw new Error(`${file} failed: ${new TextDecoder().decode(output.stderr).slice(-400)}`);
  }
  return ms;
}

/** The number of modules `deno info` lists for mod.ts. */
export async function moduleCount(): Promise<number> {
  const output = await new Deno.Command("deno", { args: ["info", "--json", MOD], stderr: "null" })
    .output();
  return (JSON.parse(new TextDecoder().decode(output.stdout)) as { modules: unknown[] }).modules
    .length;
}

/** Runs `runs` pairs after `warmup` of each; see the module's description. */
export async function runOneShot(runs: number, warmup = 3): Promise<OneShotResult> {
  await using server = await spawnServer();
  const [fetchline, fetch] = [script("fetchline"), script("fetch")];
  for (let i = 0; i < warmup; i++) {
    await timeRun(fetchline, server.url);
    await timeRun(fetch, server.url);
  }
  const times = { fetchline: [] as number[], fetch: [] as number[] };
  const ratios: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Each pair in the other order than the last, so neither always goes first.
    const a = i % 2 === 0 ? await timeRun(fetchline, server.url) : NaN;
    const b = await timeRun(fetch, server.url);
    const c = Number.isNaN(a) ? await timeRun(fetchline, server.url) : a;
    times.fetchline.push(c);
    times.fetch.push(b);
    ratios.push(c / b);
  }
  return {
    runs,
    fetchlineMs: median(times.fetchline),
    fetchMs: median(times.fetch),
    ratio: median(ratios),
    modules: await moduleCount(),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { runs: { type: "string", default: "60" } },
  });
  const r = await runOneShot(Number(values.runs));
  console.log(
    `one-shot GET, ${r.runs} pairs: fetchline ${r.fetchlineMs.toFixed(1)} ms, raw fetch ${
      r.fetchMs.toFixed(1)
    } ms, ${r.ratio.toFixed(2)} × (median of pair ratios); mod.ts loads ${r.modules} modules`,
  );
}
