// The network policy's cost on one line of Node (bench/network_policy.ts runs
// it on each): one process keeps two clients of the npm build, each with its
// own pool (`withPool({ poolIdleTimeout: 4000 })`), reused across calls, one with
// `withNetworkPolicy({ allow: ["127.0.0.1/32"] })`, and sends interleaved
// blocks of GETs to bench/server.ts; prints one JSON line: each client's
// CPU time per request, block by block.
//
//   node /tmp/fetchline-bench-node/node22/node_policy.mjs --url http://127.0.0.1:8080 --blocks 20

import process from "node:process";
import { parseArgs } from "node:util";
import { rounds } from "./_loop.mjs";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    blocks: { type: "string", default: "20" },
    requests: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "1" },
  },
});
const make = (policy) => {
  // A pool option (undici's default idle time): npm's undici on both sides, as the policy needs.
  const builder = new HttpClientConfigBuilder().withPool({ poolIdleTimeout: 4000 });
  if (policy) builder.withNetworkPolicy({ allow: ["127.0.0.1/32"] });
  return new HttpClient(builder.build());
};
const clients = { "no policy": make(false), "policy": make(true) };
const url = `${values.url}/items/1`;
const requests = Number(values.requests);
const result = await rounds(
  Object.fromEntries(
    Object.entries(clients).map((
      [name, client],
    ) => [name, async () => (await client.get(url)).text]),
  ),
  (body) => {
    if (typeof body !== "string" || body.length === 0) throw new Error("no answer");
  },
  {
    blocks: Number(values.blocks),
    requests,
    concurrency: Number(values.concurrency),
    warmup: requests,
  },
);
for (const client of Object.values(clients)) client.close();
console.log(JSON.stringify({ node: process.version, result }));
