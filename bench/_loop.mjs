// The in-process A/B loop of the request benchmarks, one module for both
// runtimes: bench/ab_network.ts (Deno) and bench/node_ab.mjs (each line of
// Node) interleave blocks of every client in one process. Plain ESM with
// JSDoc types, so Node runs it as it is.

import process from "node:process";

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
async function drive(call, check, concurrency, requests) {
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
async function timed(call, check, concurrency, requests) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const latencies = await drive(call, check, concurrency, requests);
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  latencies.sort();
  return { seconds, rps: requests / seconds, cpuUs: (user + system) / requests, latencies };
}

/**
 * The in-process A/B of any number of sides: after a warm-up of each (twice
 * over), `blocks` rounds of one block of `requests` calls of every side, the
 * order rotating from round to round (for two: AB, BA, …) so a drift in load
 * favours none. Returns each side's CPU time per request (µs) and requests
 * per second, round by round.
 *
 * @param {Record<string, () => Promise<unknown>>} sides The calls, by name.
 * @param {(body: unknown) => void} check
 * @param {{ blocks: number, requests: number, concurrency: number, warmup: number }} options
 * @returns {Promise<{ cpuUs: Record<string, number[]>, rps: Record<string, number[]> }>}
 */
export async function rounds(sides, check, options) {
  const { blocks, requests, concurrency, warmup } = options;
  const names = Object.keys(sides);
  for (const name of [...names, ...names]) {
    await drive(/** @type {() => Promise<unknown>} */ (sides[name]), check, concurrency, warmup);
  }
  /** @type {{ cpuUs: Record<string, number[]>, rps: Record<string, number[]> }} */
  const result = { cpuUs: {}, rps: {} };
  for (const name of names) [result.cpuUs[name], result.rps[name]] = [[], []];
  for (let i = 0; i < blocks; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = /** @type {string} */ (names[(i + j) % names.length]);
      const run = await timed(
        /** @type {() => Promise<unknown>} */ (sides[name]),
        check,
        concurrency,
        requests,
      );
      result.cpuUs[name]?.push(run.cpuUs);
      result.rps[name]?.push(run.rps);
    }
  }
  return result;
}

/**
 * Two sides of {@linkcode rounds}: the medians over rounds of `before`'s CPU
 * time per request ÷ `after`'s (above 1: AFTER is cheaper, with its
 * quartiles) and of `after`'s requests per second ÷ `before`'s, and each
 * side's median CPU µs per request and requests per second.
 *
 * @param {{ cpuUs: Record<string, number[]>, rps: Record<string, number[]> }} result
 * @param {string} before
 * @param {string} after
 */
export function compare(result, before, after) {
  const pick = (
    /** @type {Record<string, number[]>} */ record,
    /** @type {string} */ name,
  ) => /** @type {number[]} */ (record[name]);
  const [costB, costA] = [pick(result.cpuUs, before), pick(result.cpuUs, after)];
  const [rateB, rateA] = [pick(result.rps, before), pick(result.rps, after)];
  const cpuRatios = costA.map((cost, i) => /** @type {number} */ (costB[i]) / cost);
  const sorted = [...cpuRatios].sort((x, y) => x - y);
  return {
    cpuRatio: median(cpuRatios),
    cpuRatioQ1: /** @type {number} */ (sorted[Math.floor(sorted.length / 4)]),
    cpuRatioQ3: /** @type {number} */ (sorted[Math.floor((3 * sorted.length) / 4)]),
    rpsRatio: median(rateA.map((rate, i) => rate / /** @type {number} */ (rateB[i]))),
    beforeCpuUs: median(costB),
    afterCpuUs: median(costA),
    beforeRps: median(rateB),
    afterRps: median(rateA),
  };
}

/** The head of the A/B table {@linkcode abLine} writes the rows of. */
export const AB_HEAD = `${"case".padEnd(24)} ${
  "workload".padEnd(9)
} CPU/req before÷after (IQR)   rps after÷before  µs/req B→A   rps B→A`;

/**
 * One row of the A/B table.
 *
 * @param {string} name The case, such as `default` or `hooks`.
 * @param {string} workload
 * @param {ReturnType<typeof compare>} r
 * @returns {string}
 */
export function abLine(name, workload, r) {
  return `${name.padEnd(24)} ${workload.padEnd(9)} ${r.cpuRatio.toFixed(3)} (${
    r.cpuRatioQ1.toFixed(3)
  }–${r.cpuRatioQ3.toFixed(3)})      ${r.rpsRatio.toFixed(3)}             ${
    r.beforeCpuUs.toFixed(1)
  }→${r.afterCpuUs.toFixed(1)}   ${r.beforeRps.toFixed(0)}→${r.afterRps.toFixed(0)}`;
}
