// The workload of bench/_workload.ts for the Node benchmarks
// (bench/node_throughput.mjs, bench/ab_network.mjs), which cannot import
// TypeScript: keep the two in step.

/** The body each POST sends, which bench/server.ts echoes. */
export const ECHO_BODY = {
  id: 42,
  name: "Grace Hopper",
  tags: ["a", "b", "c"],
  note: "a small JSON body",
};
/** The path of each workload. */
export const PATHS = { get: "/items/1", post: "/echo" };
/** The `id` each workload's answer carries. */
export const EXPECTED_ID = { get: 1, post: 42 };
/** The JSON content type, as a headers record. */
export const JSON_HEADERS = { "content-type": "application/json" };
/** A logger that discards every line, for the logging hooks of "fetchline+hooks". */
export const NO_OP_LOGGER = { debug() {}, info() {}, warn() {}, error() {} };
