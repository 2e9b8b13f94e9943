/**
 * `deno task bench:network`: what `withNetworkPolicy()` costs a call, with a
 * pool reused across calls (issue 31's target), in interleaved blocks
 * (bench/_loop.mjs) against bench/server.ts in another process: a client
 * without a policy and one with `withNetworkPolicy({ allow: ["127.0.0.1/32"] })`
 * (the server is on loopback), on Deno, where the pool connects through its
 * relay (deno_relay.ts), and on each line of Node (bench/node_policy.mjs,
 * the npm build), where undici's connect lookup checks. On Deno the relay
 * carries every byte, so a 10 MB body is timed too. `--write` puts the
 * figures in the "network-policy" section of bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:network           # 20 blocks of 2,000 GETs, 10 blocks of 20 10 MB bodies
 * deno task bench:network --quick   # 4 blocks of 300, 3 blocks of 5
 * ```
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { spawnServer } from "./server.ts";
import { nodeLinesReady } from "./_node.ts";
import { loadAverage, opening, table, writeSection } from "./_results.ts";
import { compare, median, rounds } from "./_loop.mjs";

const quick = Deno.args.includes("--quick");
const write = Deno.args.includes("--write");
const started = new Date();
const loadBefore = loadAverage();
const blocks = quick ? 4 : 20;
const requests = quick ? 300 : 2_000;
const bigBlocks = quick ? 3 : 10;
const bigRequests = quick ? 5 : 20;
const BIG = 10 * 1024 * 1024;

type Rounds = { cpuUs: Record<string, number[]>; rps: Record<string, number[]> };

/** The policy's figures of `result`: CPU per call each side, the ratio, and what it adds. */
function row(label: string, result: Rounds, unit = "") {
  const c = compare(result, "no policy", "policy");
  const added = c.afterCpuUs - c.beforeCpuUs;
  return [
    label,
    `${c.beforeCpuUs.toFixed(1)} µs`,
    `${c.afterCpuUs.toFixed(1)} µs`,
    `${(1 / c.cpuRatio).toFixed(2)} × (IQR ${(1 / c.cpuRatioQ3).toFixed(2)}–${
      (1 / c.cpuRatioQ1).toFixed(2)
    })`,
    `${added >= 0 ? "+" : ""}${added.toFixed(1)} µs${unit}`,
  ];
}

// undici's default idle time: a pool option, so on Node both sides run npm's undici (a pool
// without options runs Node's own, bench:node's `fetchline`), and the same on Deno.
const SAME_POOL = { poolIdleTimeout: 4000 };
const client = (policy: boolean) =>
  new HttpClient(
    (policy
      ? new HttpClientConfigBuilder().withNetworkPolicy({ allow: ["127.0.0.1/32"] })
      : new HttpClientConfigBuilder()).withPool(SAME_POOL).withTimeout(60).build(),
  );

await using server = await spawnServer();
const clients = { "no policy": client(false), "policy": client(true) };
const sides = (path: string, read: "text" | "bytes") =>
  Object.fromEntries(
    Object.entries(clients).map((
      [name, c],
    ) => [name, async () =>
      read === "text" ? (await c.get(path)).text : (await c.get(path)).content]
    ),
  );
const small = await rounds(
  sides(`${server.url}/items/1`, "text"),
  (body: unknown) => {
    if (typeof body !== "string" || body === "") throw new Error("no answer");
  },
  { blocks, requests, concurrency: 1, warmup: requests },
);
const big = await rounds(
  sides(`${server.url}/bytes?n=${BIG}`, "bytes"),
  (body: unknown) => {
    if ((body as Uint8Array).byteLength !== BIG) throw new Error("short body");
  },
  { blocks: bigBlocks, requests: bigRequests, concurrency: 1, warmup: bigRequests },
);
for (const c of Object.values(clients)) c.close();
const mbps = (name: string) => median(big.rps[name]!) * BIG / 1e6;

// Node: the npm build, on each line.
const { lines, notices } = await nodeLinesReady();
const nodeRows: string[][] = [];
for (const line of lines) {
  console.error(`${line.label}: bench/node_policy.mjs`);
  try {
    const output = await line.run("node_policy.mjs", [
      `--url=${server.url}`,
      `--blocks=${blocks}`,
      `--requests=${requests}`,
    ]);
    const { node, result } = JSON.parse(output) as { node: string; result: Rounds };
    nodeRows.push(row(`Node ${node}, GET (small body)`, result));
  } catch (error) {
    notices.push(`${line.label}: ${(error as Error).message.slice(0, 400)}`);
  }
}

const head = ["", "no policy (CPU/call)", "policy (CPU/call)", "policy ÷ none", "the policy adds"];
const section = `${
  opening({
    title: "Network policy",
    task: "bench:network",
    file: "bench/network_policy.ts",
    started,
    loadBefore,
    quick,
  })
}

A client without a policy against one with \`withNetworkPolicy({ allow: ["127.0.0.1/32"] })\`, each
with its own pool (\`withPool({ poolIdleTimeout: 4000 })\`: on Node, npm's undici for both) reused
across calls, GETs at c=1 to bench/server.ts in another
process: ${blocks} interleaved rounds of a block of ${
  requests.toLocaleString("en-US")
} calls of each
(a 10 MB body: ${bigBlocks} rounds of ${bigRequests}); medians of the process's CPU time per call
(all threads: on Deno the relay's too), and of the rounds' ratios.

${
  table(head, [
    row("Deno, GET (small body)", small),
    row("Deno, GET of 10 MB", big),
    ...nodeRows,
  ], 4)
}

Deno's 10 MB body through the relay: ${mbps("policy").toFixed(0)} MB/s, against ${
  mbps("no policy").toFixed(0)
} MB/s without the policy (medians of the rounds).
${notices.length === 0 ? "" : `\n${notices.map((notice) => `- ${notice}`).join("\n")}\n`}`;
console.log(section);
if (write) await writeSection("network-policy", section);
