// What every throughput client sends and receives, and the record one
// measurement prints. bench/node_throughput.mjs repeats the two payloads and
// the record's shape (it cannot import TypeScript on Node 20): keep them in step.

/** The small JSON answer of `GET /items/1`. */
export const ITEM = Object.freeze({
  id: 1,
  name: "Ada Lovelace",
  roles: Object.freeze(["admin", "editor"]),
  active: true,
  score: 98.5,
});

/** The body every client POSTs to `/echo`; the server sends it back. */
export const ECHO_BODY = Object.freeze({
  id: 42,
  name: "Grace Hopper",
  tags: Object.freeze(["a", "b", "c"]),
  note: "a small JSON body",
});

/** What one measurement sends: `get` → `GET /items/1`, `post` → `POST /echo`. */
export type Workload = "get" | "post";

/** The path each workload requests. */
export const PATHS: Readonly<Record<Workload, string>> = { get: "/items/1", post: "/echo" };

/** Throws unless `body` is the parsed answer `workload` expects (the client really parsed it). */
export function checkAnswer(workload: Workload, body: unknown): void {
  const id = (body as { id?: unknown } | null)?.id;
  const expected = workload === "get" ? ITEM.id : ECHO_BODY.id;
  if (id !== expected) {
    throw new Error(`Unexpected ${workload} answer: ${JSON.stringify(body)?.slice(0, 200)}`);
  }
}

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
