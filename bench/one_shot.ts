/**
 * `deno task bench:one-shot`: a script that sends one GET and ends, timed as
 * a whole process (spawn to exit), fetchline against the same script with
 * the runtime's `fetch` and `AbortSignal.timeout`: `deno run` of
 * bench/one_shot/fetchline.ts against ./fetch.ts, and on each line of Node
 * (bench/_node.ts) the npm build's bench/one_shot/fetchline.mjs against
 * ./fetch.mjs. The two run in turn, A B B A …, after a warm-up that fills the
 * caches; the ratio is the median of the pairs' ratios, so it holds while
 * the machine's speed drifts. Also counts the package's modules that
 * `import` of mod.ts loads (its static imports, from `deno info`; what a
 * feature loads with `import()` when first used is not among them) and their
 * lines of code (not blank, not comments). Writes the "one-shot" section of
 * bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:one-shot            # 60 pairs per runtime
 * deno task bench:one-shot --quick    # 10 pairs
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { median } from "./_loop.mjs";
import { nodeLinesReady } from "./_node.ts";
import { spawnServer } from "./server.ts";
import { loadAverage, opening, table, writeSection } from "./_results.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "60" }, quick: { type: "boolean", default: false } },
});
const runs = values.quick ? 10 : Number(values.runs);

/** The wall time of one whole process, in ms. */
async function time(command: Deno.Command): Promise<number> {
  const start = performance.now();
  const output = await command.output();
  const ms = performance.now() - start;
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr).slice(-400));
  return ms;
}

/** `runs` pairs of fetchline's script and fetch's after a warm-up: the medians and their ratio's. */
async function pairs(fetchline: () => Deno.Command, fetch: () => Deno.Command) {
  for (let i = 0; i < 3; i++) await Promise.all([time(fetchline()), time(fetch())]);
  const [a, b, ratios]: [number[], number[], number[]] = [[], [], []];
  for (let i = 0; i < runs; i++) {
    // Each pair in the other order than the last, so neither always goes first.
    const first = i % 2 === 0 ? fetchline : fetch;
    const x = await time(first());
    const y = await time((first === fetch ? fetchline : fetch)());
    const [mine, theirs] = first === fetchline ? [x, y] : [y, x];
    a.push(mine);
    b.push(theirs);
    ratios.push(mine / theirs);
  }
  return [median(a), median(b), median(ratios)] as const;
}

const [started, loadBefore] = [new Date(), loadAverage()];
const { lines, notices } = await nodeLinesReady();
const { modules, codeLines } = await loadedByImport("mod.ts");
const rows: string[][] = [];
{
  await using server = await spawnServer();
  const deno = (file: string) => () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--allow-net=127.0.0.1", file, server.url],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    });
  // What a single-file entry would give JSR's users: mod.ts as one minified module.
  const single = await Deno.makeTempDir({ prefix: "fetchline-one-shot-" });
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--minify", "--external", "tough-cookie", "--output"]
      .concat([`${single}/mod.js`, "mod.ts"]),
  }).output();
  if (!bundled.success) throw new Error(new TextDecoder().decode(bundled.stderr).slice(-400));
  await Deno.writeTextFile(
    `${single}/fetchline.ts`,
    (await Deno.readTextFile("bench/one_shot/fetchline.ts")).replace("../../mod.ts", "./mod.js"),
  );
  const runtimes = [
    {
      label: `deno (${Deno.version.deno})`,
      // API.md "Weight": Deno at most 1.6 × (the goal beyond: 1.25 ×), Node 22 at most 1.3 ×.
      target: 1.6,
      scripts: [deno("bench/one_shot/fetchline.ts"), deno("bench/one_shot/fetch.ts")],
    },
    {
      label: `deno, mod.ts bundled (${Deno.version.deno})`,
      target: undefined,
      scripts: [deno(`${single}/fetchline.ts`), deno("bench/one_shot/fetch.ts")],
    },
    {
      // Where a one-shot script's time goes: the import alone, against the runtime's start.
      label: `deno, import of mod.ts only ÷ an empty script (${Deno.version.deno})`,
      target: undefined,
      scripts: [deno("bench/one_shot/import.ts"), deno("bench/one_shot/empty.ts")],
    },
    ...lines.map((line) => ({
      label: `${line.label} (${line.version})`,
      target: line.label === "node22" ? 1.3 : undefined,
      scripts: ["fetchline.mjs", "fetch.mjs"].map((file) => () => line.command(file, [server.url])),
    })),
  ];
  for (const { label, target, scripts: [fetchline, fetch] } of runtimes) {
    console.error(`${label}: ${runs} pairs`);
    try {
      const [a, b, ratio] = await pairs(fetchline!, fetch!);
      const verdict = target === undefined
        ? "reported"
        : `≤ ${target} ×: ${ratio <= target ? "met" : "**missed**"}`;
      rows.push([
        label,
        verdict,
        a.toFixed(1),
        b.toFixed(1),
        ratio.toFixed(2),
      ]);
    } catch (error) {
      notices.push(`${label}: ${(error as Error).message}`);
    }
  }
  await Deno.remove(single, { recursive: true });
}
const head = { title: "One-shot script", task: "bench:one-shot", file: "bench/one_shot.ts" };
await writeSection(
  "one-shot",
  `${opening({ ...head, started, loadBefore, quick: values.quick })}

A script that sends one GET (to bench/server.ts) and ends, timed as a whole process from spawn to
exit: fetchline with its defaults against the runtime's \`fetch\` with \`AbortSignal.timeout(30_000)\`
(Deno: \`deno run\` of bench/one_shot/fetchline.ts and fetch.ts, the latter on a pool of its own; Node:
bench/one_shot/fetchline.mjs, the npm build, and fetch.mjs). ${runs} pairs in turn after a warm-up;
the ratio is the median of the pairs' ratios. The second Deno row imports mod.ts as one minified
module (\`deno bundle --minify\`, tough-cookie left out), as a single-file JSR entry would. The third
times a script that only imports mod.ts against an empty script: its first column less the second
is what the import adds, the first row's fetchline less this row's is the first call's part. \`import\` of \`mod.ts\` loads ${modules} of the package's
modules, ${
    codeLines.toLocaleString("en")
  } lines of code (API.md "Weight": at most 40; issue 39: 8,000 lines).

${
    table(
      ["runtime", "target", "fetchline ms", "fetch + timeout ms", "ratio (median of pairs)"],
      rows,
      3,
    )
  }
${notices.map((notice) => `\n- ${notice}`).join("")}`,
);

/**
 * The package's modules `import` of `entry` loads (static imports only,
 * type-only ones aside, as `deno info --json` tells them) and their lines
 * of code: not blank, not a comment's.
 */
async function loadedByImport(entry: string) {
  interface Module {
    specifier: string;
    dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
  }
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", entry] })
    .output();
  const graph: Module[] = JSON.parse(new TextDecoder().decode(info.stdout)).modules;
  const bySpecifier = new Map(graph.map((module) => [module.specifier, module]));
  const root = new URL("../", import.meta.url).href;
  const seen = new Set<string>();
  const visit = (specifier: string) => {
    if (
      seen.has(specifier) || !specifier.startsWith(root) || specifier.includes("/node_modules/")
    ) {
      return;
    }
    seen.add(specifier);
    for (const { code, isDynamic } of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (code !== undefined && !isDynamic) visit(code.specifier);
    }
  };
  visit(new URL(entry, root).href);
  let codeLines = 0;
  for (const specifier of seen) {
    const source = (await Deno.readTextFile(new URL(specifier))).replace(/\/\*[\s\S]*?\*\//g, "");
    codeLines += source.split("\n").filter((line) => /^\s*(?!\/\/)\S/.test(line)).length;
  }
  return { modules: seen.size, codeLines };
}
