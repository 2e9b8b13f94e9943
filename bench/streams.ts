/**
 * `deno task bench:streams`: measures streamed, uploaded and buffered bodies
 * and SSE/NDJSON lag on Deno and on Node (the npm build), and writes the
 * "Streams" section of bench/RESULTS.md (the rest of the file is left as it
 * is).
 *
 * The server (bench/streams_server.ts) runs in its own process; every
 * measurement runs in a fresh client process (bench/streams_deno.ts,
 * bench/node_streams.mjs), reference and fetchline alternating in each round.
 *
 * Flags: `--rounds` (5), `--download-bytes` (1 GiB), `--upload-bytes`
 * (1 GiB), `--buffered-bytes` (200 MB), `--lag-count` (150 records, one every
 * `--lag-every` 20 ms), `--cpu-calls` (10000), `--node-deps` (default
 * /tmp/fetchline-bench-node; `off` leaves Node out), `--fetchline-npm`
 * (`npm`, where `deno task build:npm` writes), `--node22` (also Node 22
 * through `npx -y node@22`; `--no-node22` leaves it out), `--quick` (small
 * sizes, one round: a check that everything runs).
 *
 * ```sh
 * deno task bench:streams
 * deno task bench:streams --quick --node-deps=off
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { installNodeDeps } from "./run.ts";
import type { Measured } from "./_streams_results.ts";
import { streamsMarkdown } from "./_streams_results.ts";
import { withMarkedSection } from "./_ab_results.ts";

const OUT = "bench/RESULTS.md";
const decoder = new TextDecoder();
const log = (line: string) => console.error(line);
const deno = Deno.execPath();
const loadAverage = () => Deno.loadavg().map((load) => load.toFixed(2)).join(" ");

const { values } = parseArgs({
  args: Deno.args,
  allowNegative: true,
  options: {
    rounds: { type: "string", default: "5" },
    "download-bytes": { type: "string", default: String(2 ** 30) },
    "upload-bytes": { type: "string", default: String(2 ** 30) },
    "buffered-bytes": { type: "string", default: "200000000" },
    "lag-count": { type: "string", default: "150" },
    "lag-every": { type: "string", default: "20" },
    "cpu-calls": { type: "string", default: "10000" },
    "node-deps": { type: "string", default: "/tmp/fetchline-bench-node" },
    "fetchline-npm": { type: "string", default: "npm" },
    node22: { type: "boolean", default: true },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const rounds = quick ? 1 : Number(values.rounds);
const sizes = {
  download: quick ? 2 ** 27 : Number(values["download-bytes"]),
  upload: quick ? 2 ** 27 : Number(values["upload-bytes"]),
  buffered: quick ? 20_000_000 : Number(values["buffered-bytes"]),
};
const lag = { count: quick ? 25 : Number(values["lag-count"]), every: Number(values["lag-every"]) };
const cpuCalls = quick ? 1000 : Number(values["cpu-calls"]);

/** Runs a command to its end and gives its last line of output as JSON. */
async function measure(command: string, args: string[]): Promise<Measured> {
  const output = await new Deno.Command(command, { args, stdin: "null" }).output();
  const line = decoder.decode(output.stdout).trim().split("\n").at(-1) ?? "";
  if (!output.success || !line.startsWith("{")) {
    const reason = decoder.decode(output.stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`${command} ${args.join(" ")} failed: ${reason}`);
  }
  return JSON.parse(line) as Measured;
}

/** The server's process, started once; its port. */
async function startServer() {
  const child = new Deno.Command(deno, {
    args: ["run", "--allow-net=127.0.0.1", "bench/streams_server.ts"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("The streams server exited before it listened");
    text += value;
  }
  const { port } = JSON.parse(text.slice(0, text.indexOf("\n"))) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      await child.stdin.close().catch(() => {});
      await lines.cancel();
      await child.status;
    },
  };
}

/** A runtime the cases run on: how to start one measurement there. */
interface Runtime {
  readonly label: string;
  readonly version: string;
  readonly kind: "deno" | "node";
  run(flags: Record<string, string | boolean>): Promise<Measured>;
}

function flagList(flags: Record<string, string | boolean>): string[] {
  return Object.entries(flags).flatMap(([k, v]) =>
    v === false ? [] : v === true ? [`--${k}`] : [`--${k}=${v}`]
  );
}

function denoRuntime(): Runtime {
  return {
    label: "deno",
    version: `Deno ${Deno.version.deno}`,
    kind: "deno",
    run: (flags) =>
      measure(deno, [
        "run",
        "--allow-net=127.0.0.1",
        "--allow-read=/tmp",
        "bench/streams_deno.ts",
        ...flagList(flags),
      ]),
  };
}

async function nodeRuntime(
  label: string,
  node: string,
  deps: string,
): Promise<Runtime | undefined> {
  try {
    const output = await new Deno.Command(node, { args: ["--version"] }).output();
    if (!output.success) return undefined;
    const version = `Node ${decoder.decode(output.stdout).trim()}`;
    return {
      label,
      version,
      kind: "node",
      run: (flags) =>
        measure(node, ["bench/node_streams.mjs", `--deps=${deps}`, ...flagList(flags)]),
    };
  } catch {
    return undefined;
  }
}

/** The path of Node 22's binary that `npx -y node@22` installs, or undefined. */
async function node22(): Promise<string | undefined> {
  try {
    const args = ["-y", "node@22", "-e", "console.log(process.execPath)"];
    const output = await new Deno.Command("npx", { args, stdin: "null" }).output();
    return output.success ? decoder.decode(output.stdout).trim().split("\n").at(-1) : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadBefore = loadAverage();
  const notices: string[] = [];
  const runtimes: Runtime[] = [denoRuntime()];
  const deps = values["node-deps"] === "off" ? undefined : values["node-deps"];
  if (deps !== undefined) {
    const missing = await installNodeDeps(deps, values["fetchline-npm"]);
    notices.push(...missing);
    if (missing.length === 0) {
      const node = await nodeRuntime("node", "node", deps);
      if (node !== undefined) runtimes.push(node);
      const path = values.node22 ? await node22() : undefined;
      const other = path === undefined ? undefined : await nodeRuntime("node22", path, deps);
      if (other !== undefined && other.version !== node?.version) runtimes.push(other);
      else if (values.node22) notices.push("Node 22 left out: `npx -y node@22` did not run");
    }
  }
  const folder = await Deno.makeTempDir({ prefix: "fetchline-streams-" });
  const file = `${folder}/upload.bin`;
  // A sparse file: no disk written, and its pages are the page cache's, not the client's.
  await Deno.writeFile(file, new Uint8Array(0));
  await Deno.truncate(file, sizes.upload);
  const results: Measured[] = [];
  try {
    await using server = await startServer();
    const url = server.url;
    const one = async (
      runtime: Runtime,
      flags: Record<string, string | boolean>,
      variant?: string,
    ) => {
      log(`${runtime.label} ${flagList(flags).join(" ")}`);
      const result = await runtime.run({ url, ...flags });
      results.push({ ...result, runtime: runtime.label, ...(variant ? { variant } : {}) });
    };
    for (const runtime of runtimes) {
      const ref = runtime.kind === "deno"
        ? { buffered: "fetch", lag: "fetch", cpu: "fetch" }
        : { buffered: "undici", lag: "fetch", cpu: "undici" };
      const uploads = runtime.kind === "deno"
        ? ["fetch-raw", "fetchline-raw", "fetchline-multipart"]
        : ["undici-raw", "fetchline-raw", "fetchline-raw-stream", "fetchline-multipart"];
      for (let round = 0; round < rounds; round++) {
        const downloads = runtime.kind === "deno"
          ? ["fetch", "fetch-byob", "fetchline"]
          : ["undici", "undici-request", "fetch", "fetchline"];
        for (const client of downloads) {
          await one(runtime, { case: "download", client, bytes: String(sizes.download) });
        }
        for (const chunked of [false, true]) {
          for (const client of [ref.buffered, "fetchline"]) {
            const flags = { case: "buffered", client, bytes: String(sizes.buffered), chunked };
            await one(runtime, flags, chunked ? "chunked" : "length");
          }
        }
        for (const client of [ref.cpu, `${ref.cpu}-stream`, "fetchline", "fetchline-stream"]) {
          await one(runtime, { case: "cpu", client, calls: String(cpuCalls) });
        }
        for (const format of ["sse", "ndjson"]) {
          for (const client of [ref.lag, "fetchline"]) {
            const count = String(lag.count);
            await one(
              runtime,
              { case: "lag", client, format, count, every: String(lag.every) },
              format,
            );
          }
        }
      }
      // Memory is the target here, not speed: one round.
      for (const client of uploads) await one(runtime, { case: "upload", client, file });
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
  const args = Deno.args.join(" ");
  const section = streamsMarkdown({
    date: new Date(started),
    minutes: (Date.now() - started) / 60000,
    command: `deno task bench:streams${args && " " + args}`,
    loadBefore,
    loadAfter: loadAverage(),
    runtimes: runtimes.map(({ label, version }) => ({ label, version })),
    rounds,
    sizes,
    lag,
    cpuCalls,
    results,
    notices,
  });
  const markdown = await Deno.readTextFile(OUT).catch(() => "# Benchmark results\n");
  await Deno.writeTextFile(OUT, withMarkedSection(markdown, "streams", section));
  await new Deno.Command(deno, { args: ["fmt", "--quiet", OUT] }).output();
  log(`wrote the Streams section of ${OUT}`);
}

if (import.meta.main) await main();
