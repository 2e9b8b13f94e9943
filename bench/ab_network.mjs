// The Node side of bench/ab_network.ts: an in-process A/B of two npm builds
// of fetchline (BEFORE and AFTER), one client of each in this one process,
// sending interleaved blocks of requests to bench/server.ts in another
// process. Whole-process runs swing by ±15% on a shared machine; blocks that
// alternate in one process share its load, so their ratio holds still.
//
// Both builds must resolve `undici` from one node_modules, so that the two
// differ only in fetchline's code: put each build's folder (what
// `deno task build:npm` writes to npm/) side by side under a folder that
// holds undici:
//
//   mkdir -p /tmp/ab-node/node_modules
//   cp -r /tmp/before/npm /tmp/ab-node/before   # `deno task build:npm` run in that tree
//   cp -r npm /tmp/ab-node/after                  # and in this one
//   cp -rL node_modules/undici /tmp/ab-node/node_modules/undici
//   deno run --allow-net=127.0.0.1 bench/server.ts   # prints {"port": N}; or let --deno start it
//   node bench/ab_network.mjs --before /tmp/ab-node/before --after /tmp/ab-node/after \
//     --deno "$(command -v deno)" --blocks 30 --requests 2000 --concurrency 64
//
// With --url it uses a server already running instead of starting one with
// --deno. It prints, per case (the default client, and the five hooks of
// "fetchline+hooks") and workload (GET JSON, POST JSON), the median over
// block pairs of BEFORE's CPU time per request ÷ AFTER's (above 1: AFTER is
// cheaper) and of AFTER's requests per second ÷ BEFORE's; --json prints one
// JSON line each instead; --canned sends nothing (each client's withFetch
// transport answers as the server would, in this process: the library's own
// CPU time, through fetch's path rather than the undici pool's). Plain ESM:
// Node 20 cannot import TypeScript; the workload and the loop are
// bench/_workload.mjs's and bench/_loop.mjs's, which the Deno benchmarks share.

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { AB_HEAD, abLine, interleave } from "./_loop.mjs";
import { cannedFetch, checkAnswer, ECHO_BODY, PATHS, withFiveHooks } from "./_workload.mjs";

/** A client of `lib`, the default one or with the five hooks of "fetchline+hooks". */
function clientOf(lib, hooks, canned) {
  let builder = new lib.HttpClientConfigBuilder();
  builder = canned ? builder.withFetch(cannedFetch) : builder.withPool({});
  return new lib.HttpClient((hooks ? withFiveHooks(lib, builder) : builder).build());
}

/** The call of one side: a request of `workload`, its answer read and parsed. */
function side(lib, hooks, url, workload, canned) {
  const client = clientOf(lib, hooks, canned);
  const target = url + PATHS[workload];
  return {
    call: workload === "get"
      ? async () => (await client.get(target)).json()
      : async () => (await client.post(target, { jsonData: ECHO_BODY })).json(),
    close: () => client[Symbol.asyncDispose](),
  };
}

/** Runs the interleaved blocks of one case and workload; returns the summary. */
async function compare(libs, hooks, workload, url, options) {
  const before = side(libs.before, hooks, url, workload, options.canned);
  const after = side(libs.after, hooks, url, workload, options.canned);
  try {
    const check = (body) => checkAnswer(workload, body);
    const summary = await interleave(before.call, after.call, check, options);
    return { case: hooks ? "hooks" : "default", workload, ...summary };
  } finally {
    await before.close();
    await after.close();
  }
}

/** bench/server.ts in a process of its own, started with the `deno` at `denoPath`. */
async function startServer(denoPath) {
  const script = fileURLToPath(new URL("./server.ts", import.meta.url));
  const child = spawn(denoPath, ["run", "--allow-net=127.0.0.1", script], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise((resolveLine, reject) => {
    lines.once("line", resolveLine);
    child.once("exit", () => reject(new Error("The benchmark server exited before it listened")));
  });
  const { port } = JSON.parse(first);
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      const exited = new Promise((done) => child.once("exit", done));
      child.stdin.end();
      await exited;
    },
  };
}

const { values } = parseArgs({
  options: {
    before: { type: "string" },
    after: { type: "string" },
    url: { type: "string" },
    deno: { type: "string", default: "deno" },
    blocks: { type: "string", default: "30" },
    requests: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "64" },
    warmup: { type: "string", default: "2000" },
    cases: { type: "string", default: "default,hooks" },
    workloads: { type: "string", default: "get,post" },
    json: { type: "boolean", default: false },
    canned: { type: "boolean", default: false },
  },
});
if (values.before === undefined || values.after === undefined) {
  throw new TypeError("Usage: ab_network.mjs --before <build> --after <build> [--url <server>] …");
}
const libs = {
  before: await import(pathToFileURL(join(resolve(values.before), "mod.js")).href),
  after: await import(pathToFileURL(join(resolve(values.after), "mod.js")).href),
};
const options = {
  blocks: Number(values.blocks),
  requests: Number(values.requests),
  concurrency: Number(values.concurrency),
  warmup: Number(values.warmup),
  canned: values.canned,
};
const server = values.url === undefined && !values.canned
  ? await startServer(values.deno)
  : undefined;
const url = values.url ?? server?.url ?? "http://127.0.0.1:9";
try {
  if (!values.json) console.log(AB_HEAD);
  for (const name of values.cases.split(",")) {
    for (const workload of values.workloads.split(",")) {
      const r = await compare(libs, name === "hooks", workload, url, options);
      console.log(values.json ? JSON.stringify(r) : abLine(r.case, r.workload, r));
    }
  }
} finally {
  await server?.close();
}
