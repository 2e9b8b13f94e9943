// The Node comparison on one line of Node (bench/node.ts runs it on each):
// one process keeps a client of each kind and sends interleaved blocks of
// requests to bench/server.ts in another process, as bench/ab_network.ts does
// on Deno, and prints one JSON line: this Node's version, the packages', and
// each client's CPU time per request block by block, per workload and
// concurrency. bench/node.ts runs a copy of it in the folder npm installed
// its packages into, so it imports them by bare name:
//
//   node /tmp/fetchline-bench-node/node22/node_ab.mjs --url http://127.0.0.1:8080 --blocks 20

import { readFileSync } from "node:fs";
import process from "node:process";
import { parseArgs } from "node:util";
import { rounds } from "./_loop.mjs";
import { checkAnswer, ECHO_BODY, JSON_HEADERS, PATHS, withSixHooks } from "./_workload.mjs";

const NAMES = ["undici", "@fetchline/fetchline", "ky", "axios", "got"];
const [undici, fl, ky, axios, got] = await Promise.all(NAMES.map((name) => import(name)));
const versionOf = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;

const agent = new undici.Agent({});
const send = (body) => ({ method: "POST", headers: JSON_HEADERS, body: JSON.stringify(body) });

/** fetchline's npm build on undici's default pool settings, with or without the six hooks. */
function fetchline(hooks) {
  const builder = new fl.HttpClientConfigBuilder().withPool({});
  const client = new fl.HttpClient((hooks ? withSixHooks(fl, builder) : builder).build());
  return {
    get: async (url) => (await client.get(url)).json(),
    post: async (url, body) => (await client.post(url, { jsonData: body })).json(),
    close: () => client.close(),
  };
}

const kyClient = ky.default.create({});
const axiosClient = axios.default.create();
// Its defaults, but no retry: every client here sends each request once.
const gotClient = got.default.extend({ retry: { limit: 0 } });

/** Every client by name, the reference (undici.request on an Agent) first. */
const CLIENTS = {
  "undici": {
    get: async (url) => (await undici.request(url, { dispatcher: agent })).body.json(),
    post: async (url, body) =>
      (await undici.request(url, { dispatcher: agent, ...send(body) })).body.json(),
    close: () => agent.close(),
  },
  "fetchline": fetchline(false),
  "fetchline+hooks": fetchline(true),
  "fetch": {
    get: async (url) => (await fetch(url)).json(),
    post: async (url, body) => (await fetch(url, send(body))).json(),
  },
  "ky": {
    get: (url) => kyClient.get(url).json(),
    post: (url, body) => kyClient.post(url, { json: body }).json(),
  },
  "axios": {
    get: async (url) => (await axiosClient.get(url)).data,
    post: async (url, body) => (await axiosClient.post(url, body)).data,
  },
  "got": {
    get: (url) => gotClient.get(url).json(),
    post: (url, body) => gotClient.post(url, { json: body }).json(),
  },
};

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    blocks: { type: "string", default: "20" },
    requests: { type: "string", default: "2000" },
    warmup: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "1,64" },
  },
});
const options = { blocks: +values.blocks, requests: +values.requests, warmup: +values.warmup };
const results = [];
for (const workload of /** @type {const} */ (["get", "post"])) {
  for (const concurrency of values.concurrency.split(",").map(Number)) {
    const target = values.url + PATHS[workload];
    const calls = Object.fromEntries(
      Object.entries(CLIENTS).map(([name, client]) => [
        name,
        workload === "get" ? () => client.get(target) : () => client.post(target, ECHO_BODY),
      ]),
    );
    const check = (body) => checkAnswer(workload, body);
    const result = await rounds(calls, check, { ...options, concurrency });
    results.push({ workload, concurrency, ...options, rounds: result });
  }
}
for (const client of Object.values(CLIENTS)) await client.close?.();
const versions = Object.fromEntries(NAMES.map((name) => [name, versionOf(name)]));
console.log(JSON.stringify({ node: process.version, versions, results }));
