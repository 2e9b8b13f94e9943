// What every streams measurement needs, on Deno (bench/streams_deno.ts) and
// on Node (bench/node_streams.mjs): a sink that counts, and an RSS sampler.

const MiB = 2 ** 20;

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
