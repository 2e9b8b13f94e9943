/**
 * `deno task bench:traffic`: what rateLimit() costs and how well it keeps
 * its rate (issue 29's targets), against an in-process fetch (`withFetch`,
 * no network: the figures are the limiter's). First a run of 10,000 calls
 * at once through rateLimit({ requests: 1000, perSeconds: 1 }) on the real
 * clock: the burst of 1,000 at once, then a token each ms, so 9 s; the
 * rate after the burst, and the most calls in any second after it.
 * Then the CPU a call spends in a limit that never makes it wait: blocks
 * of calls through it and through a middleware that passes each call on,
 * interleaved (bench/_loop.mjs). `--write`
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
import { rateLimit } from "../traffic.ts";
import { loadAverage, opening, table, writeSection } from "./_results.ts";
import { compare, rounds } from "./_loop.mjs";

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

// The CPU of a limit that never waits (a bucket of a billion tokens), against a middleware that
// passes each call on: what the limit adds to a chain of one link.
const passing = clientOf((request, next) => next(request));
const limited = clientOf(rateLimit({ requests: 1e9, perSeconds: 1 }));
const blocks = quick ? 6 : 20;
const requests = quick ? 1_000 : 5_000;
const result = await rounds(
  {
    "passed on": () => passing.get("http://127.0.0.1/"),
    "rateLimit": () => limited.get("http://127.0.0.1/"),
  },
  () => {},
  { blocks, requests, concurrency: 1, warmup: requests },
);
passing.close();
limited.close();
const ab = compare(result, "rateLimit", "passed on");
const own = ab.beforeCpuUs - ab.afterCpuUs;

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

The CPU a call spends in a limit that never makes it wait (a bucket of a billion tokens), against
a middleware that passes each call on, ${blocks} interleaved blocks of ${
  requests.toLocaleString("en-US")
} calls (c=1) of each:

${
  table(["", "CPU per call"], [
    ["a middleware that passes the call on", `${ab.afterCpuUs.toFixed(2)} µs`],
    ["rateLimit", `${ab.beforeCpuUs.toFixed(2)} µs`],
    ["the limit's own", `${own.toFixed(2)} µs`],
  ])
}`;
console.log(section);
if (write) await writeSection("traffic", section);
