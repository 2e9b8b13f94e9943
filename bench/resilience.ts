/**
 * `deno task bench:resilience`: the adaptive controls against
 * fault-injecting servers on loopback (issue 42's targets), each scenario
 * in a process of its own (this file run again with `--scenario`), its
 * server in that process:
 * - storm: a server that answers 503 to everything; calls with
 *   `maxRetries: 3`, without and with `retryBudget({ ratio: 0.1,
 *   minPerSecond: 10 })`: the requests per call.
 * - hedge: a server whose answers take 10 ms, 5% of them (at random) 100
 *   ms; p99 latency without and with `hedge({ after: "p95", maxExtra: 0.05
 *   })`, and the extra requests.
 * - adaptive: a server that allows 8 requests in flight (each held 20 ms)
 *   and answers 429 past them; the goodput of fixed `concurrency()` limits
 *   and of `adaptiveConcurrency()`, and its share of 429s after warm-up.
 * - resume: a 1 GiB download (`stream()`, read into a sink that counts)
 *   from a raw server that resets the connection at 25%, 50% and 75% and
 *   answers byte ranges: the bytes the server wrote (those in the socket's
 *   buffers at a reset included), and the process's RSS.
 * `--write` puts the figures in the "resilience" section of bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:resilience           # about 1.5 min
 * deno task bench:resilience --quick   # a check that it runs
 * ```
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import type { Middleware } from "../interfaces.ts";
import { adaptiveConcurrency, concurrency, hedge, retryBudget } from "../traffic.ts";
import { loadAverage, opening, writeSection } from "./_results.ts";

const quick = Deno.args.includes("--quick");
const scenario = Deno.args.find((arg) => arg.startsWith("--scenario="))?.slice(11);

/** A server on loopback whose answer `answer` decides, with the count of requests. */
function serve(answer: (request: Request) => Response | Promise<Response>) {
  const counts = { requests: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    counts.requests++;
    return answer(request);
  });
  return { counts, origin: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function clientOf(
  origin: string,
  configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder,
  ...middleware: Middleware[]
) {
  return new HttpClient(
    configure(new HttpClientConfigBuilder().withBaseUrl(origin).withMiddleware(...middleware))
      .build(),
  );
}

/** `workers` loops of calls until `calls` are made (or `ms` pass); each call's ms and status. */
async function drive(
  client: HttpClient,
  workers: number,
  until: { calls?: number; ms?: number },
): Promise<{ ms: number; status: number }[]> {
  const results: { ms: number; status: number }[] = [];
  const end = performance.now() + (until.ms ?? Infinity);
  let started = 0;
  await Promise.all(Array.from({ length: workers }, async () => {
    while (started < (until.calls ?? Infinity) && performance.now() < end) {
      started++;
      const at = performance.now();
      const response = await client.get("/");
      results.push({ ms: performance.now() - at, status: response.statusCode });
    }
  }));
  return results;
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * q) - 1)]!;
}

async function storm() {
  const calls = quick ? 500 : 4000;
  const result: Record<string, number> = { calls };
  for (const budgeted of [false, true]) {
    const server = serve(() => new Response("down", { status: 503 }));
    const budget = budgeted ? retryBudget({ ratio: 0.1, minPerSecond: 10 }) : undefined;
    const client = clientOf(
      server.origin,
      (b) => b.withRetry({ maxRetries: 3, backoff: 0.001, maxBackoff: 0.005, budget }),
    );
    await drive(client, 16, { calls });
    await client.close();
    await server.close();
    result[budgeted ? "budget" : "plain"] = server.counts.requests / calls;
  }
  return result;
}

async function hedging() {
  const calls = quick ? 600 : 4000;
  const result: Record<string, number> = { calls };
  for (const [name, maxExtra] of [["plain", 0], ["hedge", 0.05], ["wider", 0.1]] as const) {
    const hedged = maxExtra > 0;
    const server = serve(async () => {
      await sleep(Math.random() < 0.05 ? 100 : 10);
      return new Response("ok");
    });
    const hedging = hedge({ after: "p95", maxExtra });
    const client = clientOf(server.origin, (b) => b, ...(hedged ? [hedging] : []));
    // Warm-up: the connections, and the p95 learned.
    await drive(client, 8, { calls: 200 });
    const before = server.counts.requests;
    const results = await drive(client, 8, { calls });
    await client.close();
    await server.close();
    result[`${name}P50`] = percentile(results.map((r) => r.ms), 0.5);
    result[`${name}P99`] = percentile(results.map((r) => r.ms), 0.99);
    result[`${name}Extra`] = (server.counts.requests - before) / calls - 1;
    if (name === "hedge") {
      const state = Object.values(hedging.state())[0]!;
      result.afterMs = state.afterMs ?? NaN;
      result.won = state.won / state.hedges;
    }
  }
  return result;
}

async function adaptive() {
  const allowed = 8;
  const ms = quick ? 800 : 3000;
  const workers = 64;
  const result: Record<string, number> = {};
  const crowded = () => {
    let inFlight = 0;
    return serve(async () => {
      if (inFlight >= allowed) return new Response("busy", { status: 429 });
      inFlight++;
      await sleep(20);
      inFlight--;
      return new Response("ok");
    });
  };
  const run = async (name: string, limit: Middleware, warmMs: number) => {
    const server = crowded();
    const client = clientOf(server.origin, (b) => b.withRetry({ maxRetries: 0 }), limit);
    await drive(client, workers, { ms: warmMs });
    const started = performance.now();
    const results = await drive(client, workers, { ms });
    const seconds = (performance.now() - started) / 1000;
    await client.close();
    await server.close();
    result[`${name}Goodput`] = results.filter((r) => r.status === 200).length / seconds;
    result[`${name}Refused`] = results.filter((r) => r.status === 429).length / results.length;
  };
  for (const fixed of [4, 6, 8, 10, 12]) {
    await run(`fixed${fixed}`, concurrency({ perOrigin: fixed }), 200);
  }
  const limiter = adaptiveConcurrency({ initial: 32, min: 1, max: 256 });
  await run("adaptive", limiter, quick ? 500 : 1500);
  return result;
}

/**
 * A download of `size` bytes (made as they are sent) from a raw server that
 * resets the connection at each of `cuts` (offsets of the whole body), and
 * answers byte ranges: what the server sent, and the process's memory.
 */
async function resume() {
  const { createServer } = await import("node:net");
  const { Buffer } = await import("node:buffer");
  const size = quick ? 64 * 2 ** 20 : 2 ** 30;
  const cuts = [0.25, 0.5, 0.75].map((share) => Math.floor(size * share));
  const block = Buffer.alloc(64 * 1024, 7);
  let sentBytes = 0;
  let answers = 0;
  const server = createServer((socket) => {
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (data) => {
      head += data.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const range = /range: bytes=(\d+)-/i.exec(head);
      head = "";
      const from = range === null ? 0 : Number(range[1]);
      const cut = cuts[answers++] ?? size;
      socket.write(
        [
          range === null ? "HTTP/1.1 200 OK" : "HTTP/1.1 206 Partial Content",
          `Content-Length: ${size - from}`,
          "Accept-Ranges: bytes",
          'ETag: "big"',
          ...(range === null ? [] : [`Content-Range: bytes ${from}-${size - 1}/${size}`]),
          "",
          "",
        ].join("\r\n"),
      );
      let at = from;
      const pump = () => {
        while (at < cut) {
          const chunk = block.subarray(0, Math.min(block.length, cut - at));
          at += chunk.length;
          sentBytes += chunk.length;
          if (!socket.write(chunk)) return void socket.once("drain", pump);
        }
        if (cut < size) socket.resetAndDestroy();
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 3 }).withTimeout(null).build(),
  );
  const rssBefore = Deno.memoryUsage().rss;
  let rssMost = rssBefore;
  const sampler = setInterval(() => rssMost = Math.max(rssMost, Deno.memoryUsage().rss), 50);
  const started = performance.now();
  const response = await client.stream("GET", `http://127.0.0.1:${port}/big`);
  let read = 0;
  for await (const chunk of response.body) read += chunk.byteLength;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await client.close();
  await new Promise((resolve) => server.close(resolve));
  return {
    size,
    read,
    sentBytes,
    answers,
    seconds,
    rssBefore: rssBefore / 2 ** 20,
    rssGrowth: (rssMost - rssBefore) / 2 ** 20,
  };
}

if (scenario !== undefined) {
  const run = { storm, hedge: hedging, adaptive, resume }[scenario];
  if (run === undefined) throw new Error(`unknown scenario ${scenario}`);
  console.log(JSON.stringify(await run()));
  Deno.exit(0);
}

const started = new Date();
const loadBefore = loadAverage();
/** Runs `name` in a process of its own; its figures. */
async function inProcess(name: string): Promise<Record<string, number>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-read=.",
      new URL(import.meta.url).pathname,
      `--scenario=${name}`,
      ...(quick ? ["--quick"] : []),
    ],
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`the ${name} scenario failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

const s = await inProcess("storm");
const h = await inProcess("hedge");
const a = await inProcess("adaptive");
const r = await inProcess("resume");
const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(4)} GiB`;
const met = (ok: boolean) => ok ? "met" : "**missed**";
const fixedNames = Object.keys(a).filter((k) => k.startsWith("fixed") && k.endsWith("Goodput"));
const best = Math.max(...fixedNames.map((k) => a[k]!));
const bestName = fixedNames.find((k) => a[k] === best)!.slice(5, -7);
const ratio = a.adaptiveGoodput! / best;
const p99Gain = h.plainP99! / h.hedgeP99!;
const section = `${
  opening({
    title: "Adaptive resilience",
    task: "bench:resilience",
    file: "bench/resilience.ts",
    started,
    loadBefore,
    quick,
  })
}

Each scenario runs in a Deno process of its own, its fault-injecting server on loopback in that
process (so the server's work shares the client's event loop: latencies include it).

| scenario | measured | target |
| --- | ---: | ---: |
| 503 storm, \`maxRetries: 3\`, ${s.calls} calls at c=16: requests per call without a budget | ${
  s.plain!.toFixed(3)
}x | 4x |
| the same with \`retryBudget({ ratio: 0.1, minPerSecond: 10 })\` | ${
  s.budget!.toFixed(3)
}x | ≤ 1.15x: ${met(s.budget! <= 1.15)} |
| 5% of answers 10x slower (10 ms / 100 ms), ${h.calls} calls at c=8: p50 / p99 without hedging | ${
  h.plainP50!.toFixed(1)
} / ${h.plainP99!.toFixed(1)} ms | |
| with \`hedge({ after: "p95", maxExtra: 0.05 })\`: p50 / p99 | ${h.hedgeP50!.toFixed(1)} / ${
  h.hedgeP99!.toFixed(1)
} ms | |
| p99 without ÷ with hedging | ${p99Gain.toFixed(2)}x | ≥ 3x: ${met(p99Gain >= 3)} |
| with \`maxExtra: 0.1\`: p99, extra requests | ${h.widerP99!.toFixed(1)} ms (${
  (h.plainP99! / h.widerP99!).toFixed(2)
}x), ${(h.widerExtra! * 100).toFixed(1)}% | |
| extra requests with hedging | ${(h.hedgeExtra! * 100).toFixed(1)}% | ≤ 6%: ${
  met(h.hedgeExtra! <= 0.06)
} |
| 8 allowed in flight (20 ms each, 429 past them), 64 callers: best fixed limit's goodput | ${
  best.toFixed(0)
} /s (limit ${bestName}) | |
| \`adaptiveConcurrency({ initial: 32 })\`'s goodput after warm-up | ${
  a.adaptiveGoodput!.toFixed(0)
} /s (${(ratio * 100).toFixed(0)}%) | ≥ 80%: ${met(ratio >= 0.8)} |
| its 429s after warm-up | ${(a.adaptiveRefused! * 100).toFixed(2)}% | ≤ 5%: ${
  met(a.adaptiveRefused! <= 0.05)
} |
| a ${gib(r.size!)} download (\`stream()\`) cut at 25%, 50% and 75%: bytes sent by the server | ${
  gib(r.sentBytes!)
} in ${r.answers} answers, ${gib(r.read!)} read | ≤ 1.01 GiB a GiB: ${
  met(r.sentBytes! <= 1.01 * r.size! && r.read === r.size)
} |
| its memory: the process's RSS, most during the download less before (${
  r.rssBefore!.toFixed(0)
} MiB) | +${r.rssGrowth!.toFixed(1)} MiB (in ${r.seconds!.toFixed(1)} s) | flat |

The hedge's delay learned at the end: ${h.afterMs!.toFixed(1)} ms; ${
  (h.won! * 100).toFixed(0)
}% of the hedges won. With exactly 5% of answers slow, the p95 sits on the edge between the fast
answers and the slow ones: each fast answer of the tail past the learned delay (the loaded machine's
timers spread the 10 ms answers over 10-30 ms) takes a hedge from the 5% that \`maxExtra\` allows, and
the slow answers left without one keep the p99 where it was; and with demand at the cap, the slow
answers that come while the cap is spent go without a hedge too. With room for more hedges (\`maxExtra: 0.1\`, the row above) the p99 falls only as far as the
fast answers' tail lets the learned delay fall: on a loaded machine, not far.

Fixed limits' goodput: ${
  fixedNames.map((k) =>
    `${k.slice(5, -7)}: ${a[k]!.toFixed(0)} /s (${
      (a[`fixed${k.slice(5, -7)}Refused`]! * 100).toFixed(1)
    }% 429s)`
  ).join(", ")
}.`;
console.log(section);
if (Deno.args.includes("--write")) await writeSection("resilience", section);
