/**
 * `deno task bench:streams`: the memory a large body costs, streamed down,
 * uploaded from a path and read whole, on Deno and on each line of Node
 * (bench/_node.ts) against the runtime's own client; writes the "streams"
 * section of bench/RESULTS.md.
 *
 * The server (bench/server.ts) runs in its own process; every measurement
 * runs in a fresh client process (bench/streams_deno.ts,
 * bench/node_streams.mjs), reference and fetchline in turn in each round.
 *
 * ```sh
 * deno task bench:streams                 # 1 GiB down and up, 200 MB read whole, 3 rounds
 * deno task bench:streams --quick         # 128 MiB, 20 MB, one round: a check that it runs
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
  options: {
    rounds: { type: "string", default: "3" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const rounds = quick ? 1 : Number(values.rounds);
const SIZES = { download: quick ? 2 ** 27 : 2 ** 30, upload: quick ? 2 ** 27 : 2 ** 30 };
const BUFFERED = quick ? 20_000_000 : 200_000_000;
const MiB = 2 ** 20;

/** One measurement's JSON line. */
interface Measured {
  readonly runtime: string;
  readonly case: string;
  readonly client: string;
  readonly bytes: number;
  readonly seconds: number;
  readonly rssGrowthMiB: number;
}

/** A runtime: its label and version, its clients by case, and how to run one measurement. */
interface Runtime {
  readonly label: string;
  readonly version: string;
  readonly clients: Record<"download" | "buffered" | "upload", string[]>;
  run(args: string[]): Promise<string>;
}

async function denoRun(args: string[]): Promise<string> {
  const script = ["run", "--allow-net=127.0.0.1", "--allow-read=/tmp", "bench/streams_deno.ts"];
  const output = await new Deno.Command(Deno.execPath(), { args: [...script, ...args] }).output();
  const text = new TextDecoder().decode(output.success ? output.stdout : output.stderr).trim();
  if (!output.success) throw new Error(`streams_deno.ts ${args.join(" ")}: ${text.slice(-400)}`);
  return text.split("\n").at(-1)!;
}

const [started, loadBefore] = [new Date(), loadAverage()];
const { lines, notices } = await nodeLinesReady();
const runtimes: Runtime[] = [
  {
    label: "deno",
    version: `Deno ${Deno.version.deno}`,
    clients: {
      download: ["fetch", "fetchline"],
      buffered: ["fetch", "fetchline"],
      upload: ["fetch-raw", "fetchline-raw", "fetchline-multipart"],
    },
    run: denoRun,
  },
  ...lines.map((line) => ({
    label: line.label,
    version: `Node ${line.version}`,
    clients: {
      download: ["undici", "fetchline"],
      buffered: ["undici", "fetchline"],
      upload: ["undici-raw", "fetchline-raw", "fetchline-multipart"],
    },
    run: (args: string[]) => line.run("node_streams.mjs", args),
  })),
];
const folder = await Deno.makeTempDir({ prefix: "fetchline-streams-" });
const file = `${folder}/upload.bin`;
// A sparse file: no disk written, and its pages are the page cache's, not the client's.
await Deno.writeFile(file, new Uint8Array(0));
await Deno.truncate(file, SIZES.upload);
const results: Measured[] = [];
try {
  await using server = await spawnServer();
  for (const runtime of runtimes) {
    const one = async (kase: string, client: string, more: string) => {
      const args = [`--case=${kase}`, `--client=${client}`, `--url=${server.url}`, more];
      console.error(`${runtime.label} ${args.join(" ")}`);
      try {
        results.push({ runtime: runtime.label, ...JSON.parse(await runtime.run(args)) });
      } catch (error) {
        notices.push(`${runtime.label} ${kase} ${client}: ${(error as Error).message}`);
      }
    };
    for (let round = 0; round < rounds; round++) {
      for (const client of runtime.clients.download) {
        await one("download", client, `--bytes=${SIZES.download}`);
      }
      for (const client of runtime.clients.buffered) {
        await one("buffered", client, `--bytes=${BUFFERED}`);
      }
    }
    // Memory is the target here, not speed: one round.
    for (const client of runtime.clients.upload) await one("upload", client, `--file=${file}`);
  }
} finally {
  await Deno.remove(folder, { recursive: true });
}

const size = (bytes: number) =>
  bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${Math.round(bytes / 1e6)} MB`;
const CASES = {
  download: `${size(SIZES.download)} streamed into a sink that counts and drops`,
  buffered: `${size(BUFFERED)} read whole (Content-Length)`,
  upload: `${size(SIZES.upload)} uploaded from a path`,
};
const rows: string[][] = [];
for (const runtime of runtimes) {
  for (const kase of ["download", "buffered", "upload"] as const) {
    for (const client of runtime.clients[kase]) {
      const rs = results.filter((r) =>
        r.runtime === runtime.label && r.case === kase && r.client === client
      );
      if (rs.length === 0) continue;
      const growth = median(rs.map((r) => r.rssGrowthMiB));
      const ratio = growth * MiB / rs[0]!.bytes;
      const met = kase === "buffered" ? ratio < 1.25 : growth < 32;
      const bound = kase === "buffered" ? "< 1.25 × body" : "< 32 MiB";
      rows.push([
        runtime.label,
        CASES[kase],
        client,
        client.startsWith("fetchline") ? `${bound}: ${met ? "met" : "**missed**"}` : "reference",
        median(rs.map((r) => r.bytes / r.seconds / 1e6)).toFixed(0),
        growth.toFixed(1),
        ratio.toFixed(2),
      ]);
    }
  }
}
const head = { title: "Streams", task: "bench:streams", file: "bench/streams.ts" };
await writeSection(
  "streams",
  `${opening({ ...head, started, loadBefore, quick })}
- Runtimes: ${runtimes.map((r) => `${r.label}: ${r.version}`).join("; ")}

The server (bench/server.ts) generates every byte it sends and drops every byte it receives; each
measurement runs in a fresh client process (bench/streams_deno.ts, bench/node_streams.mjs) that
warms up on a small body first. RSS growth is the peak RSS sampled every millisecond during the
transfer minus the RSS just before it; downloads run ${rounds} round(s) (medians), uploads one. The
references: raw \`fetch\` + \`pipeTo\` or \`bytes()\` on Deno, \`undici.stream\` or \`request\` +
\`arrayBuffer()\` on Node. A raw upload sends \`(await Deno.open(path)).readable\` on Deno and
\`await fs.openAsBlob(path)\` on Node (undici: \`fs.createReadStream(path)\`) as the body; multipart is
the path in \`files\`. The uploaded file is sparse: its pages are the page cache's, not the client's.

${
    table(
      ["runtime", "case", "client", "target", "MB/s", "RSS growth MiB", "growth ÷ body"],
      rows,
      3,
    )
  }
${notices.map((notice) => `\n- ${notice}`).join("")}`,
);
