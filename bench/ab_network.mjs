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
// CPU time, through fetch's path rather than the undici pool's). Plain ESM: Node 20 cannot import TypeScript, so
// the payloads repeat bench/_workload.ts.

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { ECHO_BODY, EXPECTED_ID, JSON_HEADERS, NO_OP_LOGGER, PATHS } from "./_workload.mjs";

const ITEM_TEXT = JSON.stringify({
  id: 1,
  name: "Ada Lovelace",
  roles: ["admin", "editor"],
  active: true,
  score: 98.5,
});

/**
 * The transport of --canned: bench/server.ts's answers made in this process
 * (through fetch's path, withFetch, not the undici pool's), so a block
 * measures the library's own CPU time without the network's.
 */
async function cannedFetch(_input, init) {
  if (init?.method === "POST") return new Response(init.body, { headers: JSON_HEADERS });
  return await Promise.resolve(new Response(ITEM_TEXT, { headers: JSON_HEADERS }));
}

/** A client of `lib`, the default one or with the five hooks of bench/clients.ts. */
function clientOf(lib, hooks, canned) {
  let builder = new lib.HttpClientConfigBuilder();
  builder = canned ? builder.withFetch(cannedFetch) : builder.withPool({});
  if (hooks) {
    const tokenManager = new lib.TokenManager([{
      name: "static",
      fetch: () =>
        Promise.resolve(
          new lib.TokenData({ accessToken: "bench-token-0123456789", expiresIn: 3600 }),
        ),
    }]);
    builder = builder.withLogging({ logger: NO_OP_LOGGER })
      .withRequestHook(new lib.CorrelationIdHook())
      .withTokenAuth({ tokenManager });
  }
  return new lib.HttpClient(builder.build());
}

function side(name, lib, hooks, url, workload, canned) {
  const client = clientOf(lib, hooks, canned);
  const target = url + PATHS[workload];
  return {
    name,
    call: workload === "get"
      ? async () => (await client.get(target)).json()
      : async () => (await client.post(target, { jsonData: ECHO_BODY })).json(),
    close: () => client[Symbol.asyncDispose](),
  };
}

async function drive(call, workload, concurrency, requests) {
  let next = 0;
  const lane = async () => {
    while (next < requests) {
      next++;
      const body = await call();
      if (body?.id !== EXPECTED_ID[workload]) {
        throw new Error(`Unexpected ${workload} answer: ${JSON.stringify(body)?.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, lane));
}

/** One block's cost: CPU time per request (µs) and requests per second. */
async function block(current, workload, concurrency, requests) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await drive(current.call, workload, concurrency, requests);
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  return { cpuUs: (user + system) / requests, rps: requests / seconds };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Runs `blocks` pairs of blocks of one case and workload; returns the summary. */
async function compare(libs, hooks, workload, url, options) {
  const { blocks, requests, concurrency, warmup, canned } = options;
  const before = side("before", libs.before, hooks, url, workload, canned);
  const after = side("after", libs.after, hooks, url, workload, canned);
  try {
    for (const warm of [before, after, before, after]) {
      await block(warm, workload, concurrency, warmup);
    }
    const cpuRatios = [];
    const rpsRatios = [];
    const costs = { before: [], after: [] };
    const rates = { before: [], after: [] };
    for (let i = 0; i < blocks; i++) {
      const order = i % 2 === 0 ? [before, after] : [after, before];
      const got = {};
      for (const current of order) {
        got[current.name] = await block(current, workload, concurrency, requests);
      }
      cpuRatios.push(got.before.cpuUs / got.after.cpuUs);
      rpsRatios.push(got.after.rps / got.before.rps);
      costs.before.push(got.before.cpuUs);
      costs.after.push(got.after.cpuUs);
      rates.before.push(got.before.rps);
      rates.after.push(got.after.rps);
    }
    const sorted = [...cpuRatios].sort((x, y) => x - y);
    return {
      case: hooks ? "hooks" : "default",
      workload,
      blocks,
      requests,
      concurrency,
      cpuRatio: median(cpuRatios),
      cpuRatioQ1: sorted[Math.floor(blocks / 4)],
      cpuRatioQ3: sorted[Math.floor((3 * blocks) / 4)],
      rpsRatio: median(rpsRatios),
      beforeCpuUs: median(costs.before),
      afterCpuUs: median(costs.after),
      beforeRps: median(rates.before),
      afterRps: median(rates.after),
    };
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
  if (!values.json) {
    console.log(
      "case     workload  CPU/req before÷after (IQR)   rps after÷before  µs/req B→A   rps B→A",
    );
  }
  for (const name of values.cases.split(",")) {
    for (const workload of values.workloads.split(",")) {
      const r = await compare(libs, name === "hooks", workload, url, options);
      if (values.json) console.log(JSON.stringify(r));
      else {
        console.log(
          `${r.case.padEnd(8)} ${r.workload.padEnd(9)} ${r.cpuRatio.toFixed(3)} (${
            r.cpuRatioQ1.toFixed(3)
          }–${r.cpuRatioQ3.toFixed(3)})      ${r.rpsRatio.toFixed(3)}             ${
            r.beforeCpuUs.toFixed(1)
          }→${r.afterCpuUs.toFixed(1)}   ${r.beforeRps.toFixed(0)}→${r.afterRps.toFixed(0)}`,
        );
      }
    }
  }
} finally {
  await server?.close();
}
