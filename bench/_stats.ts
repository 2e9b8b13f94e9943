// Small statistics for the benchmarks: those of the shared measurement loop.

export { median, percentile } from "./_loop.mjs";
