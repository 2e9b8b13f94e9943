/**
 * `deno task bench:resilience`: the adaptive controls against fault-injecting servers on loopback
 * (issue 42's targets). Each scenario's client runs in a process of its own (`--scenario=`), its
 * server in another (`--serve=`): in one process, on 2 cores, the server's timers spread the fast
 * answers and its buffers counted in the client's RSS. storm: 503 to everything. hedge: answers in
 * 10 ms, 5% (at random) in 100 ms. adaptive: 8 allowed in flight (20 ms each), 429 past them.
 * resume: 1 GiB through `stream()`, the connection reset at 25%, 50%, 75%, ranges answered (and
 * the same GiB, uncut, through the runtime's `fetch()`: what the runtime itself holds).
 * `--write` puts the figures in the "resilience" section of bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:resilience           # about 1 min
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
const flags = quick ? ["--quick"] : [];
const option = (name: string) => Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SIZE = quick ? 64 * 2 ** 20 : 2 ** 30;
type Counts = Record<string, number>;
const ok = "HTTP/1.1 200 OK\r\nContent-Length: ";

/** A server (`--serve=kind`) that counts what it gets and answers `GET /count` with it. */
async function serve(kind: string) {
  const counts = { requests: 0, sentBytes: 0, answers: 0 };
  let inFlight = 0;
  const answer = async (): Promise<Response> => {
    if (kind === "storm") return new Response("down", { status: 503 });
    if (kind === "hedge") return await sleep(Math.random() < 0.05 ? 100 : 10), new Response("ok");
    if (inFlight >= 8) return new Response("busy", { status: 429 });
    return inFlight++, await sleep(20), inFlight--, new Response("ok");
  };
  const port = kind === "resume" || kind === "whole"
    ? await rangeServer(counts, kind === "resume" ? [0.25, 0.5, 0.75] : [])
    : Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      if (request.url.endsWith("/count")) return Response.json(counts);
      return counts.requests++, answer();
    }).addr.port;
  console.log(JSON.stringify({ port }));
  for await (const _ of Deno.stdin.readable) { /* until the client closes stdin */ }
  Deno.exit(0);
}

/** A raw server of SIZE bytes that resets the connection at `cuts` (shares), and answers ranges. */
async function rangeServer(counts: Counts, cuts: number[]): Promise<number> {
  const { createServer } = await import("node:net");
  const block = new Uint8Array(64 * 1024).fill(7);
  const server = createServer((socket) => {
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (data) => {
      head += data.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const body = JSON.stringify(counts);
      if (head.startsWith("GET /count")) {
        return void socket.end(`${ok}${body.length}\r\n\r\n${body}`);
      }
      const from = Number(/range: bytes=(\d+)-/i.exec(head)?.[1] ?? 0);
      const cut = Math.floor(SIZE * (cuts[counts.answers!++] ?? 1));
      const range = `206 Partial Content\r\nContent-Range: bytes ${from}-${SIZE - 1}/${SIZE}`;
      socket.write(`HTTP/1.1 ${from === 0 ? "200 OK" : range}\r\nAccept-Ranges: bytes\r\n`);
      socket.write(`ETag: "big"\r\nContent-Length: ${SIZE - from}\r\n\r\n`);
      head = "";
      let at = from;
      const pump = () => {
        while (at < cut) {
          const chunk = block.subarray(0, Math.min(block.length, cut - at));
          [at, counts.sentBytes] = [at + chunk.length, counts.sentBytes! + chunk.length];
          if (!socket.write(chunk)) return void socket.once("drain", pump);
        }
        if (cut < SIZE) socket.resetAndDestroy();
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** Starts `--serve=kind` as a separate process: its origin, its counts, and close(). */
async function spawn(kind: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", import.meta.filename!, `--serve=${kind}`, ...flags],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) text += (await lines.read()).value ?? "\n";
  const origin = `http://127.0.0.1:${JSON.parse(text).port}`;
  const counts = async (): Promise<Counts> => await (await fetch(`${origin}/count`)).json();
  const close = async () => (await child.stdin.close(), await lines.cancel(), await child.status);
  return { origin, counts, close };
}
type Server = Awaited<ReturnType<typeof spawn>>;

const clientOf = (origin: string, retry: object, ...middleware: Middleware[]) =>
  new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(origin).withRetry(retry).withMiddleware(...middleware)
      .build(),
  );

/** `workers` loops of calls until `calls` are made (or `ms` pass): each call's ms and status. */
async function drive(client: HttpClient, workers: number, until: { calls?: number; ms?: number }) {
  const results: { ms: number; status: number }[] = [];
  const [end, most] = [performance.now() + (until.ms ?? Infinity), until.calls ?? Infinity];
  let started = 0;
  await Promise.all(Array.from({ length: workers }, async () => {
    while (started++ < most && performance.now() < end) {
      const at = performance.now();
      const { statusCode } = await client.get("/");
      results.push({ ms: performance.now() - at, status: statusCode });
    }
  }));
  return results;
}

const percentile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(values.length * q) - 1)]!;
const sent = async (server: Server) => (await server.counts()).requests!;

async function storm(server: Server) {
  const result: Counts = { calls: quick ? 500 : 4000 };
  for (const name of ["plain", "budget"]) {
    const budget = name === "budget" ? retryBudget({ ratio: 0.1, minPerSecond: 10 }) : undefined;
    const retry = { maxRetries: 3, backoff: 0.001, maxBackoff: 0.005, budget };
    const client = clientOf(server.origin, retry);
    const before = await sent(server);
    await drive(client, 16, { calls: result.calls! });
    await client.close();
    result[name] = (await sent(server) - before) / result.calls!;
  }
  return result;
}

async function hedging(server: Server) {
  const result: Counts = { calls: quick ? 600 : 4000 };
  for (const [name, maxExtra] of [["plain", 0], ["hedge", 0.05], ["wider", 0.1]] as const) {
    const hedging = hedge({ after: "p95", maxExtra });
    const client = clientOf(server.origin, {}, ...(maxExtra > 0 ? [hedging] : []));
    await drive(client, 8, { calls: 200 }); // warm-up: the connections, and the p95 learned
    const before = await sent(server);
    const delays: number[] = [];
    const learned = () => Object.values(hedging.state())[0]?.afterMs ?? 0;
    const sampler = setInterval(() => delays.push(learned()), 20);
    const ms = (await drive(client, 8, { calls: result.calls! })).map((r) => r.ms);
    clearInterval(sampler);
    await client.close();
    result[`${name}P50`] = percentile(ms, 0.5);
    result[`${name}P99`] = percentile(ms, 0.99);
    result[`${name}Extra`] = (await sent(server) - before) / result.calls! - 1;
    // The share of the run the learned delay sat past 30 ms (no hedge in time for a slow answer).
    result[`${name}High`] = delays.filter((d) => d > 30).length / delays.length;
  }
  return result;
}

async function adaptive(server: Server) {
  const [ms, result] = [quick ? 800 : 3000, {} as Counts];
  const run = async (name: string, limit: Middleware, warmMs: number) => {
    const client = clientOf(server.origin, { maxRetries: 0 }, limit);
    await drive(client, 64, { ms: warmMs });
    const started = performance.now();
    const results = await drive(client, 64, { ms });
    const seconds = (performance.now() - started) / 1000;
    await client.close();
    result[`${name}Goodput`] = results.filter((r) => r.status === 200).length / seconds;
    result[`${name}Refused`] = results.filter((r) => r.status === 429).length / results.length;
  };
  for (const n of [4, 6, 8, 10, 12]) await run(`${n}`, concurrency({ perOrigin: n }), 200);
  await run("adaptive", adaptiveConcurrency({ initial: 32, min: 1, max: 256 }), quick ? 500 : 1500);
  return result;
}

/** The GiB read into a sink that counts, through fetchline or the runtime's fetch(); RSS and heap. */
async function download(server: Server, plain: boolean) {
  const client = new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 3 }).withTimeout(null).build(),
  );
  // Live memory (heap and ArrayBuffers) after a full GC: what is kept, not garbage yet to collect.
  const live = () => ((globalThis as { gc?: () => void }).gc?.(), Deno.memoryUsage());
  const kept = () => (({ heapUsed, external }) => heapUsed + external)(live());
  const [start, before, most] = [kept(), Deno.memoryUsage(), { rss: 0 }];
  const sample = () => {
    const now = Deno.memoryUsage();
    most.rss = Math.max(most.rss, now.rss - before.rss);
  };
  const sampler = setInterval(sample, 20);
  const started = performance.now();
  const url = `${server.origin}/big`;
  const body = plain ? (await fetch(url)).body! : (await client.stream("GET", url)).body;
  let [read, half] = [0, 0];
  for await (const chunk of body) {
    read += chunk.byteLength;
    if (half === 0 && read >= SIZE / 2) half = kept();
  }
  const end = kept();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await client.close();
  const { sentBytes, answers } = await server.counts();
  const mib = (bytes: number) => bytes / 2 ** 20;
  const [kept1, kept2, rss] = [mib(half - start), mib(end - start), mib(most.rss)];
  return { read, sentBytes, answers, seconds, half: kept1, end: kept2, rss };
}

const [serving, scenario] = [option("serve"), option("scenario")];
if (serving !== undefined) await serve(serving);
if (scenario !== undefined) {
  const server = await spawn({ adaptive: "crowded", fetch: "whole" }[scenario] ?? scenario);
  const run = {
    storm,
    hedge: hedging,
    adaptive,
    resume: (s: Server) => download(s, false),
    fetch: (s: Server) => download(s, true),
  }[scenario]!;
  console.log(JSON.stringify(await run(server)));
  await server.close();
  Deno.exit(0);
}

const [started, loadBefore] = [new Date(), loadAverage()];
const figures: Record<string, unknown> = {};
for (const name of ["storm", "hedge", "adaptive", "resume", "fetch"]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: "run --v8-flags=--expose-gc --allow-net=127.0.0.1 --allow-read=. --allow-run".split(" ")
      .concat(import.meta.filename!, `--scenario=${name}`, flags),
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`the ${name} scenario failed`);
  figures[name] = JSON.parse(new TextDecoder().decode(output.stdout));
}
type Of<K extends string> = Record<K, number>;
const s = figures.storm as Of<"calls" | "plain" | "budget">;
const h = figures.hedge as Of<`${"plain" | "hedge" | "wider"}${"P50" | "P99" | "Extra" | "High"}`>;
const a = figures.adaptive as Counts;
type Download = Of<keyof Awaited<ReturnType<typeof download>>>;
const [r, f] = [figures.resume, figures.fetch] as [Download, Download];
const fixed = [4, 6, 8, 10, 12].map((n) => [n, a[`${n}Goodput`]!, a[`${n}Refused`]!] as const);
const best = fixed.reduce((x, y) => (y[1] > x[1] ? y : x));
const ratio = a.adaptiveGoodput! / best[1];
const [gain, wide] = [h.plainP99 / h.hedgeP99, h.plainP99 / h.widerP99];
const met = (ok: boolean) => ok ? "met" : "**missed**";
const [gib, ms] = [(n: number) => `${(n / 2 ** 30).toFixed(4)} GiB`, (v: number) => v.toFixed(1)];
const [pct, x] = [(v: number) => `${(v * 100).toFixed(1)}%`, (v: number) => `${v.toFixed(2)}x`];
const [flat, bytes] = [Math.max(r.half, r.end) < 64, r.sentBytes <= 1.01 * SIZE];
const rows = `
| 503 storm, \`maxRetries: 3\`, c=16: requests a call | ${x(s.plain)} | 4x |
| the same with \`retryBudget({ ratio: 0.1, minPerSecond: 10 })\` | ${x(s.budget)} | ≤ 1.15x: ${
  met(s.budget <= 1.15)
} |
| 5% of answers 10x slower (10 / 100 ms), c=8, no hedging: p50 / p99 | ${ms(h.plainP50)} / ${
  ms(h.plainP99)
} ms | |
| \`hedge({ after: "p95", maxExtra: 0.05 })\`: p50 / p99 | ${ms(h.hedgeP50)} / ${
  ms(h.hedgeP99)
} ms | |
| p99 without ÷ with hedging | ${x(gain)} | ≥ 3x: ${met(gain >= 3)} |
| extra requests with hedging | ${pct(h.hedgeExtra)} | ≤ 6%: ${met(h.hedgeExtra <= 0.06)} |
| share of the run the learned p95 sat past 30 ms | ${pct(h.hedgeHigh)} | |
| \`maxExtra: 0.1\`: p99 (÷); extra; p95 past 30 ms | ${ms(h.widerP99)} ms (${x(wide)}); ${
  pct(h.widerExtra)
}; ${pct(h.widerHigh)} | |
| 8 allowed in flight (20 ms each), 64 callers: best fixed limit | ${best[1].toFixed(0)} /s (${
  best[0]
}) | |
| \`adaptiveConcurrency({ initial: 32 })\` after warm-up | ${a.adaptiveGoodput!.toFixed(0)} /s (${
  pct(ratio)
}) | ≥ 80%: ${met(ratio >= 0.8)} |
| its 429s after warm-up | ${pct(a.adaptiveRefused!)} | ≤ 5%: ${met(a.adaptiveRefused! <= 0.05)} |
| ${gib(SIZE)} via \`stream()\`, cut at 25, 50, 75%: sent | ${
  gib(r.sentBytes)
} (${r.answers} answers) | ${met(bytes && r.read === SIZE)} |
| its live memory after a GC, half-way / end; RSS peak | +${ms(r.half)} / +${ms(r.end)}; +${
  ms(r.rss)
} MiB | flat: ${met(flat)} |
| the same, uncut, via the runtime's \`fetch()\` | +${ms(f.half)} / +${ms(f.end)}; +${
  ms(f.rss)
} MiB | |`;
const run = { title: "Adaptive resilience", task: "bench:resilience", file: "bench/resilience.ts" };
const section = `${opening({ ...run, started, loadBefore, quick })}

Each scenario's client runs in a Deno process of its own, its fault-injecting server in another.

| scenario | measured | target |
| --- | ---: | ---: |${rows}

Hedging: with exactly 5% of answers slow, the p95 of a window of 200 answers is the slowest fast
answer when the window holds at most 10 slow ones and a slow one when it holds more, about 42% of
windows (binomially): then the learned delay is past the fast answers, the slow answers get no hedge
in time, and the p99 stays theirs. A hedged call is learned at the time its head came (a lower bound
of its first send's: the delay climbs by a hedge's latency a recount); a slow call that \`maxExtra\`
turned away is learned at its 100 ms and takes the delay there at once (the run with 0.1 turns fewer
away). Memory: "flat" is the live memory (JS heap and ArrayBuffers after a full GC, less
before) under 64 MiB half-way and at the end (a GiB kept would be 1,024); the RSS peak is garbage
not yet collected and the runtime's buffers, the same for its own \`fetch()\` of the bytes uncut.

Fixed limits' goodput: ${
  fixed.map(([n, g, no]) => `${n}: ${g.toFixed(0)} /s (${pct(no)} 429s)`).join(", ")
}.`;
console.log(section);
if (Deno.args.includes("--write")) await writeSection("resilience", section);
