// The types of what every request benchmark sends and receives, and the
// record one measurement prints; the values are bench/_workload.mjs's, which
// the Node benchmarks import too.

export {
  cannedFetch,
  checkAnswer,
  ECHO_BODY,
  ITEM,
  JSON_HEADERS,
  NO_OP_LOGGER,
  PATHS,
  withFiveHooks,
  withSixHooks,
} from "./_workload.mjs";

/** What one measurement sends: `get` → `GET /items/1`, `post` → `POST /echo`. */
export type Workload = "get" | "post";

/** Where a measurement ran: Deno, or a line of Node such as `node22`. */
export type Runtime = "deno" | `node${number}`;

/** One measurement: one client, one workload, one concurrency, in its own process. */
export interface Measurement {
  readonly runtime: Runtime;
  readonly client: string;
  readonly workload: Workload;
  readonly concurrency: number;
  /** Requests measured (after the warm-up). */
  readonly requests: number;
  readonly seconds: number;
  /** Requests per second. */
  readonly rps: number;
  /** Latency percentiles of one request, in milliseconds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Client process CPU time (user + system) per request, in microseconds. */
  readonly cpuUsPerRequest: number;
}
