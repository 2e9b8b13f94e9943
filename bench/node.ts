/**
 * `deno task bench:node`: fetchline's npm build against `undici.request`,
 * Node's `fetch`, ky, axios and got, on each line of Node (bench/_node.ts):
 * bench/node_ab.mjs keeps a client of each in one Node process and sends
 * interleaved blocks to bench/server.ts, the method of bench/ab_network.ts
 * on Deno; writes the "node" section of bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:node            # 20 blocks of 2,000 requests per client, GET and POST, c=1 and 64
 * deno task bench:node --quick    # 4 blocks of 300: a check that it runs
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { nodeLinesReady } from "./_node.ts";
import { spawnServer } from "./server.ts";
import { compare, median } from "./_loop.mjs";
import { loadAverage, opening, table, writeSection } from "./_results.ts";

interface LineResult {
  readonly label: string;
  readonly node: string;
  readonly versions: Record<string, string>;
  readonly results: {
    workload: string;
    concurrency: number;
    blocks: number;
    requests: number;
    rounds: { cpuUs: Record<string, number[]>; rps: Record<string, number[]> };
  }[];
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    quick: { type: "boolean", default: false },
    blocks: { type: "string", default: "20" },
    requests: { type: "string", default: "2000" },
    warmup: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "1,64" },
  },
});
const options = values.quick ? { ...values, blocks: "4", requests: "300", warmup: "300" } : values;
const [started, loadBefore] = [new Date(), loadAverage()];
const { lines, notices } = await nodeLinesReady();
const measured: LineResult[] = [];
{
  await using server = await spawnServer();
  for (const line of lines) {
    console.error(`${line.label}: bench/node_ab.mjs`);
    const args = ["blocks", "requests", "warmup", "concurrency"] as const;
    const flags = args.map((name) => `--${name}=${options[name]}`);
    try {
      const output = await line.run("node_ab.mjs", [`--url=${server.url}`, ...flags]);
      measured.push({ label: line.label, ...JSON.parse(output) });
    } catch (error) {
      notices.push(`${line.label}: ${(error as Error).message.slice(0, 400)}`);
    }
  }
}

/** The median over blocks of `reference`'s CPU per request ÷ `client`'s. */
const ratio = (
  rounds: LineResult["results"][number]["rounds"],
  client: string,
  reference: string,
) => compare(rounds, reference, client).cpuRatio;

const sections = measured.map(({ label, node, versions, results }) => {
  const columns = results.map((r) => `${r.workload.toUpperCase()} c=${r.concurrency}`);
  const verdict = (met: boolean) => (met ? "met" : "**missed**");
  const rivals = ["ky", "axios", "got"];
  const targets = [
    [
      "fetchline ≥ 1.30 × undici.request (c=64)",
      ...results.map(({ rounds, concurrency }) => {
        const value = ratio(rounds, "fetchline", "undici");
        return concurrency === 64 ? `${value.toFixed(2)} × ${verdict(value >= 1.3)}` : "—";
      }),
    ],
    [
      `fetchline ahead of ${rivals.join(", ")}`,
      ...results.map(({ rounds }) => {
        const least = Math.min(...rivals.map((rival) => ratio(rounds, "fetchline", rival)));
        return `nearest ${least.toFixed(2)} × ${verdict(least > 1)}`;
      }),
    ],
  ];
  const rows = Object.keys(results[0]?.rounds.cpuUs ?? {}).map((client) => [
    client,
    ...results.map(({ rounds }) =>
      `${ratio(rounds, client, "undici").toFixed(2)} (${
        median(rounds.cpuUs[client]!).toFixed(1)
      } µs)`
    ),
  ]);
  const packages = Object.entries(versions).map(([name, version]) => `${name}@${version}`);
  return `### ${label} (Node ${node}; ${packages.join(", ")})

${table(["target", ...columns], targets)}

${table(["client", ...columns], rows)}`;
});
const first = measured[0]?.results[0];
const head = { title: "Node", task: "bench:node", file: "bench/node.ts" };
await writeSection(
  "node",
  `${opening({ ...head, started, loadBefore, quick: values.quick })}

One Node process per line (bench/node_ab.mjs) keeps every client and sends to bench/server.ts in
another process: each round runs a block of ${first?.requests.toLocaleString("en-US")} requests of
every client, the order rotating, ${first?.blocks} rounds, as bench:ab does on Deno. A figure is the
median over rounds of \`undici.request\`'s CPU time per request ÷ the client's (above 1: the client
is cheaper), with the client's median CPU time per request. \`undici\` is \`undici.request\` on an
\`Agent({})\`; fetchline is the npm build with \`withPool({})\` (the same pool settings), and
fetchline+hooks adds the six hooks of bench:ab; \`fetch\` is Node's own (its bundled undici), ky
\`ky.create({})\` on it; axios \`axios.create()\` and got (no retry) on node:http.

${sections.join("\n\n")}
${notices.map((notice) => `\n- ${notice}`).join("")}`,
);
