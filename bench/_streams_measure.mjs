// What every streams measurement needs, on Deno (bench/streams_deno.ts) and
// on Node (bench/node_streams.mjs): plain JavaScript, as Node 20 cannot
// import TypeScript.

/** Milliseconds on the clock every process on the machine shares: the time origin plus the monotonic time since. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * A sink that counts the bytes written to it and drops them.
 *
 * @returns {{ stream: WritableStream<Uint8Array>, bytes: () => number }}
 */
export function sink() {
  let bytes = 0;
  const stream = new WritableStream({
    write(chunk) {
      bytes += chunk.byteLength;
    },
  });
  return { stream, bytes: () => bytes };
}

const MiB = 2 ** 20;

/**
 * Samples the RSS every millisecond (as often as the event loop lets it)
 * until `stop()`, which gives the RSS before, the peak, and their difference.
 *
 * @param {() => number} rss The runtime's RSS reader, in bytes.
 */
export function rssSampler(rss) {
  const before = rss();
  let peak = before;
  const sample = () => {
    peak = Math.max(peak, rss());
  };
  const id = setInterval(sample, 1);
  return {
    stop() {
      sample();
      clearInterval(id);
      return {
        rssBeforeMiB: before / MiB,
        rssPeakMiB: peak / MiB,
        rssGrowthMiB: (peak - before) / MiB,
      };
    },
  };
}

/**
 * The server's clock minus this process's, estimated from the round trip
 * to `/clock` that took least time of 20 (the server's reading is taken
 * half-way): the clocks are the same one, and this measures what is left.
 *
 * @param {() => Promise<number>} serverTime Asks the server for its clock.
 */
export async function clockOffset(serverTime) {
  let best = { offsetMs: 0, offsetRttMs: Infinity };
  for (let i = 0; i < 20; i++) {
    const sent = now();
    const server = await serverTime();
    const back = now();
    if (back - sent < best.offsetRttMs) {
      best = { offsetMs: server - (sent + back) / 2, offsetRttMs: back - sent };
    }
  }
  return best;
}

/** The nearest-rank percentile `p` of ascending `sorted`. */
function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/**
 * Records, for each record's JSON text as the client yields it, how long
 * after the server wrote it (its `t`, moved to this clock by `offsetMs`).
 *
 * @param {number} offsetMs The server's clock minus this process's.
 */
export function lagRecorder(offsetMs) {
  const lags = [];
  return {
    /** @param {string} json */
    record(json) {
      const at = now();
      lags.push(at - (JSON.parse(json).t - offsetMs));
    },
    /** @param {number} expected The records the server sends. */
    summary(expected) {
      if (lags.length !== expected) throw new Error(`Got ${lags.length} of ${expected} records`);
      const sorted = lags.sort((a, b) => a - b);
      return {
        records: sorted.length,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: sorted[sorted.length - 1],
      };
    },
  };
}
