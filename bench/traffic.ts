/**
 * `deno task bench:traffic`: what rateLimit() costs and how well it keeps
 * its rate (issue 29's targets), against an in-process fetch (`withFetch`,
 * no network: the figures are the limiter's). First a run of 10,000 calls
 * at once through rateLimit({ requests: 1000, perSeconds: 1 }) on the real
 * clock: the burst of 1,000 at once, then a token each ms, so 9 s; the
 * rate after the burst, and the most calls in any second after it.
 * Then the CPU each control adds to a call it does not make wait, against
 * a middleware that passes each call on and a loopback round trip, in
 * interleaved blocks (bench/_loop.mjs). `--write`
 * puts the figures in the "traffic" section of bench/RESULTS.md.
 *
 * ```sh
 * deno task bench:traffic           # 10,000 calls (9 s), then 20 blocks of 5,000: about 20 s
 * deno task bench:traffic --quick   # 2,000 calls (1 s), 6 blocks of 1,000
 * ```
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import type { Middleware } from "../interfaces.ts";
import { circuitBreaker, concurrency, dedupe, rateLimit, serverPacing } from "../traffic.ts";
import { spawnServer } from "./server.ts";
import { loadAverage, opening, table, writeSection } from "./_results.ts";
import { compare, median, rounds } from "./_loop.mjs";

const quick = Deno.args.includes("--quick");
const write = Deno.args.includes("--write");
const started = new Date();
const loadBefore = loadAverage();

/** A client over an in-process fetch, through `link`, that notes in `sent` when each call reached it. */
function clientOf(link: Middleware, sent: number[] = []) {
  return new HttpClient(
    new HttpClientConfigBuilder().withTimeout(null).withRetry({ maxRetries: 0 }).withMiddleware(
      link,
    )
      .withFetch(() => (sent.push(performance.now()), Promise.resolve(new Response("ok")))).build(),
  );
}

// The rate: every call at once, on the real clock.
const CALLS = quick ? 2_000 : 10_000;
const RATE = 1000;
const sent: number[] = [];
{
  using client = clientOf(rateLimit({ requests: RATE, perSeconds: 1 }), sent);
  await Promise.all(Array.from({ length: CALLS }, () => client.get("http://127.0.0.1/")));
}
// From the first call sent (the first token taken) to the last: the burst, then a token a ms.
const elapsed = (sent.at(-1)! - sent[0]!) / 1000;
const expected = (CALLS - RATE) / RATE;
const rate = (CALLS - RATE) / elapsed;
const deviation = Math.abs(rate / RATE - 1);
// The most calls sent in any second that starts after the burst, and the longest gap between two.
let busiest = 0;
let gap = 0;
for (let i = RATE, j = RATE; i < sent.length; i++) {
  while (j < sent.length && sent[j]! < sent[i]! + 1000) j++;
  busiest = Math.max(busiest, j - i);
  gap = Math.max(gap, sent[i]! - sent[i - 1]!);
}

// The CPU each control adds to a call it does not make wait (a bucket of a billion tokens, a
// queue of a million places, no pause, a closed circuit, no identical call in flight), against a
// middleware that passes each call on; and a loopback round trip (bench/server.ts, no middleware)
// to weigh it against.
await using server = await spawnServer();
const roundTrip = new HttpClient(new HttpClientConfigBuilder().withBaseUrl(server.url).build());
const controls: Record<string, Middleware> = {
  "passed on": (request, next) => next(request),
  "concurrency": concurrency({ max: 1e6 }),
  "rateLimit": rateLimit({ requests: 1e9, perSeconds: 1 }),
  "serverPacing": serverPacing(),
  "circuitBreaker": circuitBreaker(),
  "dedupe": dedupe(),
};
const clients = Object.fromEntries(
  Object.entries(controls).map(([name, link]) => [name, clientOf(link)]),
);
const blocks = quick ? 6 : 20;
const requests = quick ? 1_000 : 5_000;
const result = await rounds(
  {
    "round trip": () => roundTrip.get("/items/1"),
    ...Object.fromEntries(
      Object.entries(clients).map((
        [name, client],
      ) => [name, () => client.get("http://127.0.0.1/")]),
    ),
  },
  () => {},
  { blocks, requests, concurrency: 1, warmup: requests },
);
roundTrip.close();
for (const client of Object.values(clients)) client.close();
const cpu = (name: string) => median(result.cpuUs[name]!);
const overheads = Object.keys(controls).filter((name) => name !== "passed on").map((name) => {
  // Paired round by round: the median of each round's ratio to the middleware passing calls on.
  const own = (compare(result, name, "passed on").cpuRatio - 1) * cpu("passed on");
  const share = own / cpu("round trip");
  return [
    name,
    `${own.toFixed(2)} µs`,
    `${(share * 100).toFixed(1)}%`,
    `≤ 3%: ${share <= 0.03 ? "met" : "**missed**"}`,
  ];
});

const section = `${
  opening({
    title: "Traffic control",
    task: "bench:traffic",
    file: "bench/traffic.ts",
    started,
    loadBefore,
    quick,
  })
}

rateLimit() against an in-process fetch (\`withFetch\`): the limiter's own figures, no network.
${CALLS.toLocaleString("en-US")} calls at once through
\`rateLimit({ requests: ${RATE}, perSeconds: 1 })\` on the real clock (a burst of ${RATE} at once,
then a token a ms):

${
  table(["", "measured", "expected", "target"], [
    ["the last call sent after", `${elapsed.toFixed(3)} s`, `${expected.toFixed(3)} s`, ""],
    [
      "rate after the burst",
      `${rate.toFixed(1)} /s`,
      `${RATE} /s`,
      `within 1%: ${deviation <= 0.01 ? "met" : "**missed**"} (${(deviation * 100).toFixed(2)}%)`,
    ],
    ["the most calls in a second after the burst", `${busiest}`, `≤ ${2 * RATE}`, ""],
    ["the longest time without a call after the burst", `${gap.toFixed(1)} ms`, "", ""],
  ], 3)
}

A bucket of ${RATE} tokens lets at most ${RATE} calls a second through while the process keeps up;
when its event loop stalls (here: the client's own work for the ${
  (CALLS - RATE).toLocaleString("en-US")
} calls queued at once), the tokens the stall missed go at once after it, up to the burst.

The CPU each control adds to a call it does not make wait (a bucket of a billion tokens, a queue of
a million places, no pause, a closed circuit, no identical call in flight): a call through it less
a call through a middleware that passes it on (both answered in this process; the median of the
rounds' ratios, times the latter's CPU), against the CPU of a
loopback round trip (bench/server.ts in another process, no middleware: ${
  cpu("round trip").toFixed(1)
} µs), ${blocks} interleaved rounds of a block of ${requests.toLocaleString("en-US")} calls (c=1) of
each, medians:

${table(["control", "CPU it adds", "of a round trip", "target"], overheads, 3)}`;
console.log(section);
if (write) await writeSection("traffic", section);
