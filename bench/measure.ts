/**
 * One throughput measurement in a process of its own: one client, one
 * workload, one concurrency. It warms up, then sends a fixed number of
 * requests from `concurrency` lanes, reading and parsing each body, and
 * prints one JSON line (a `Measurement`). `bench/throughput.ts` starts it.
 *
 * ```sh
 * deno run --allow-net=127.0.0.1 bench/measure.ts --client=fetchline \
 *   --url=http://127.0.0.1:8080 --workload=get --concurrency=64 --requests=20000 --warmup=2000
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { DENO_CLIENTS } from "./clients.ts";
import type { BenchClient } from "./clients.ts";
import { measureCalls } from "./_loop.mjs";
import { checkAnswer, ECHO_BODY, PATHS } from "./_workload.ts";
import type { Measurement, Workload } from "./_workload.ts";

/** Runs one measurement of `client` against the server at `url`. */
export async function measure(
  name: string,
  client: BenchClient,
  url: string,
  workload: Workload,
  concurrency: number,
  requests: number,
  warmup: number,
): Promise<Measurement> {
  const target = url + PATHS[workload];
  const call = workload === "get" ? () => client.get(target) : () => client.post(target, ECHO_BODY);
  const check = (body: unknown) => checkAnswer(workload, body);
  const run = await measureCalls(call, check, { concurrency, requests, warmup });
  return { runtime: "deno", client: name, workload, ...run };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      client: { type: "string" },
      url: { type: "string" },
      workload: { type: "string", default: "get" },
      concurrency: { type: "string", default: "1" },
      requests: { type: "string", default: "1000" },
      warmup: { type: "string", default: "200" },
    },
  });
  const spec = DENO_CLIENTS.find((candidate) => candidate.name === values.client);
  if (spec === undefined || values.url === undefined) {
    throw new TypeError(
      `Usage: measure.ts --client=<${DENO_CLIENTS.map((c) => c.name).join("|")}> --url=<server>`,
    );
  }
  if (values.workload !== "get" && values.workload !== "post") {
    throw new TypeError(`Invalid workload: ${values.workload} (get or post)`);
  }
  const client = spec.create();
  await client.setup();
  const result = await measure(
    spec.name,
    client,
    values.url,
    values.workload,
    Number(values.concurrency),
    Number(values.requests),
    Number(values.warmup),
  );
  await client.close();
  console.log(JSON.stringify(result));
}
