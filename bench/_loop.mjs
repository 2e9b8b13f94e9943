// The measurement loop of the request benchmarks, one module for both
// runtimes: bench/measure.ts (Deno) and bench/node_throughput.mjs (Node) time
// one client in a process of its own, bench/ab_network.mjs interleaves two
// in one process. Plain ESM with JSDoc types, as Node 20 imports no
// TypeScript.

import process from "node:process";

/**
 * The nearest-rank percentile `p` (0–100) of ascending `sorted` values.
 *
 * @param {ArrayLike<number>} sorted
 * @param {number} p
 * @returns {number}
 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return /** @type {number} */ (sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]);
}

/**
 * The median of `values` (the mean of the two middle ones for an even count).
 *
 * @param {readonly number[]} values
 * @returns {number}
 */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const high = /** @type {number} */ (sorted[middle]);
  return sorted.length % 2 === 1 ? high : (/** @type {number} */ (sorted[middle - 1]) + high) / 2;
}

/**
 * Sends `requests` calls from `concurrency` lanes, checking each answer;
 * returns each call's latency in ms.
 *
 * @param {() => Promise<unknown>} call
 * @param {(body: unknown) => void} check
 * @param {number} concurrency
 * @param {number} requests
 * @returns {Promise<Float64Array>}
 */
export async function drive(call, check, concurrency, requests) {
  const latencies = new Float64Array(requests);
  let next = 0;
  const lane = async () => {
    while (next < requests) {
      const index = next++;
      const start = performance.now();
      const body = await call();
      latencies[index] = performance.now() - start;
      check(body);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, lane));
  return latencies;
}

/**
 * One timed run of `requests` calls: the process's CPU time (user + system,
 * all threads) per request in µs, requests per second, sorted latencies.
 *
 * @param {() => Promise<unknown>} call
 * @param {(body: unknown) => void} check
 * @param {number} concurrency
 * @param {number} requests
 * @returns {Promise<{ seconds: number, rps: number, cpuUs: number, latencies: Float64Array }>}
 */
export async function timed(call, check, concurrency, requests) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const latencies = await drive(call, check, concurrency, requests);
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  latencies.sort();
  return { seconds, rps: requests / seconds, cpuUs: (user + system) / requests, latencies };
}

/**
 * One throughput measurement of one client: `warmup` calls, then `requests`
 * timed ones; the fields of a measurement record but its runtime, client
 * and workload.
 *
 * @param {() => Promise<unknown>} call
 * @param {(body: unknown) => void} check
 * @param {{ concurrency: number, requests: number, warmup: number }} level
 */
export async function measureCalls(call, check, { concurrency, requests, warmup }) {
  await drive(call, check, concurrency, warmup);
  const run = await timed(call, check, concurrency, requests);
  return {
    concurrency,
    requests,
    seconds: run.seconds,
    rps: run.rps,
    p50Ms: percentile(run.latencies, 50),
    p99Ms: percentile(run.latencies, 99),
    cpuUsPerRequest: run.cpuUs,
  };
}

/**
 * The in-process A/B: after a warm-up of each, `blocks` pairs of blocks of
 * `requests` calls, BEFORE and AFTER in alternating order (BA, AB, …) so a
 * drift in load favours neither. Returns the medians over pairs of BEFORE's
 * CPU time per request ÷ AFTER's (above 1: AFTER is cheaper, with its
 * quartiles) and of AFTER's requests per second ÷ BEFORE's.
 *
 * @param {() => Promise<unknown>} before
 * @param {() => Promise<unknown>} after
 * @param {(body: unknown) => void} check
 * @param {{ blocks: number, requests: number, concurrency: number, warmup: number }} options
 */
export async function interleave(before, after, check, options) {
  const { blocks, requests, concurrency, warmup } = options;
  for (const warm of [before, after, before, after]) {
    await drive(warm, check, concurrency, warmup);
  }
  /** @type {number[]} */
  const cpuRatios = [];
  /** @type {number[]} */
  const rpsRatios = [];
  /** @type {{ before: number[], after: number[] }} */
  const costs = { before: [], after: [] };
  /** @type {{ before: number[], after: number[] }} */
  const rates = { before: [], after: [] };
  for (let i = 0; i < blocks; i++) {
    const first = i % 2 === 0 ? before : after;
    const a = await timed(first, check, concurrency, requests);
    const b = await timed(first === before ? after : before, check, concurrency, requests);
    const [beforeRun, afterRun] = first === before ? [a, b] : [b, a];
    cpuRatios.push(beforeRun.cpuUs / afterRun.cpuUs);
    rpsRatios.push(afterRun.rps / beforeRun.rps);
    costs.before.push(beforeRun.cpuUs);
    costs.after.push(afterRun.cpuUs);
    rates.before.push(beforeRun.rps);
    rates.after.push(afterRun.rps);
  }
  const sorted = [...cpuRatios].sort((x, y) => x - y);
  return {
    blocks,
    requests,
    concurrency,
    cpuRatio: median(cpuRatios),
    cpuRatioQ1: /** @type {number} */ (sorted[Math.floor(blocks / 4)]),
    cpuRatioQ3: /** @type {number} */ (sorted[Math.floor((3 * blocks) / 4)]),
    rpsRatio: median(rpsRatios),
    beforeCpuUs: median(costs.before),
    afterCpuUs: median(costs.after),
    beforeRps: median(rates.before),
    afterRps: median(rates.after),
  };
}

/** The head of the A/B table {@linkcode abLine} writes the rows of. */
export const AB_HEAD =
  "case     workload  CPU/req before÷after (IQR)   rps after÷before  µs/req B→A   rps B→A";

/**
 * One row of the A/B table.
 *
 * @param {string} name The case, such as `default` or `hooks`.
 * @param {string} workload
 * @param {Awaited<ReturnType<typeof interleave>>} r
 * @returns {string}
 */
export function abLine(name, workload, r) {
  return `${name.padEnd(8)} ${workload.padEnd(9)} ${r.cpuRatio.toFixed(3)} (${
    r.cpuRatioQ1.toFixed(3)
  }–${r.cpuRatioQ3.toFixed(3)})      ${r.rpsRatio.toFixed(3)}             ${
    r.beforeCpuUs.toFixed(1)
  }→${r.afterCpuUs.toFixed(1)}   ${r.beforeRps.toFixed(0)}→${r.afterRps.toFixed(0)}`;
}
