// The Node side of the throughput benchmark: one measurement in a process of
// its own, the counterpart of bench/measure.ts, printing the same JSON line
// (runtime "node<major>", such as "node22", so the lines of Node measured
// side by side keep apart) for bench/throughput.ts to merge.
//
// The libraries are not in the repository: bench/run.ts installs them with npm
// into a folder outside it (never commit node_modules) and passes it as --deps:
//
//   npm install --prefix /tmp/fetchline-bench-node undici@^7 ky@^1 axios@^1 got@^14
//   # fetchline's npm build (`deno task build:npm` writes npm/), packed and installed:
//   npm pack ./npm --pack-destination /tmp/fetchline-bench-node
//   npm install --prefix /tmp/fetchline-bench-node /tmp/fetchline-bench-node/fetchline-fetchline-*.tgz
//   node bench/node_throughput.mjs --deps /tmp/fetchline-bench-node --list
//   node bench/node_throughput.mjs --deps /tmp/fetchline-bench-node --client undici \
//     --url http://127.0.0.1:8080 --workload get --concurrency 64 --requests 20000 --warmup 2000
//
// Clients: raw fetch (Node's own), undici.request with an Agent, ky, axios, got,
// and fetchline and fetchline+hooks from the npm build when it is installed
// (left out with a notice otherwise). undici and fetchline get the same Agent
// settings (AGENT_OPTIONS). Plain ESM with no build step: Node 20 cannot
// import TypeScript, so the payloads come from bench/_workload.mjs and the
// loop from bench/_loop.mjs, which bench/measure.ts shares on Deno.

import process from "node:process";
import { parseArgs } from "node:util";
import { load, packageJson } from "./_node_load.mjs";
import { measureCalls } from "./_loop.mjs";
import { checkAnswer, ECHO_BODY, JSON_HEADERS, PATHS, withFiveHooks } from "./_workload.mjs";

/** This Node's line, as the measurements name their runtime. */
const RUNTIME = `node${process.versions.node.split(".")[0]}`;

/** The pool settings given to both undici's Agent and fetchline's `withPool`: undici's defaults. */
const AGENT_OPTIONS = {};

function rawFetch() {
  return {
    setup() {},
    async get(url) {
      return await (await fetch(url)).json();
    },
    async post(url, body) {
      const init = { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(body) };
      return await (await fetch(url, init)).json();
    },
    close() {},
  };
}

function undiciRequest(deps) {
  let undici, agent;
  return {
    async setup() {
      undici = await load(deps, "undici");
      agent = new undici.Agent(AGENT_OPTIONS);
    },
    async get(url) {
      const { body } = await undici.request(url, { dispatcher: agent });
      return await body.json();
    },
    async post(url, body) {
      const init = { dispatcher: agent, method: "POST", headers: JSON_HEADERS };
      const answer = await undici.request(url, { ...init, body: JSON.stringify(body) });
      return await answer.body.json();
    },
    async close() {
      await agent.close();
    },
  };
}

function kyClient(deps) {
  let ky;
  return {
    async setup() {
      ky = (await load(deps, "ky")).default.create({});
    },
    get: (url) => ky.get(url).json(),
    post: (url, body) => ky.post(url, { json: body }).json(),
    close() {},
  };
}

function gotClient(deps) {
  let got;
  return {
    async setup() {
      // Its defaults, but no retry: every client here sends each request once.
      got = (await load(deps, "got")).default.extend({ retry: { limit: 0 } });
    },
    get: (url) => got.get(url).json(),
    post: (url, body) => got.post(url, { json: body }).json(),
    close() {},
  };
}

function axiosClient(deps) {
  let axios;
  return {
    async setup() {
      axios = (await load(deps, "axios")).default.create();
    },
    get: async (url) => (await axios.get(url)).data,
    post: async (url, body) => (await axios.post(url, body)).data,
    close() {},
  };
}

/** fetchline's npm build; `hooks` adds the same five hooks as bench/clients.ts. */
function fetchline(deps, hooks) {
  let client;
  return {
    async setup() {
      const fl = await load(deps, "@fetchline/fetchline");
      const builder = new fl.HttpClientConfigBuilder().withPool(AGENT_OPTIONS);
      client = new fl.HttpClient((hooks ? withFiveHooks(fl, builder) : builder).build());
    },
    async get(url) {
      return (await client.get(url)).json();
    },
    async post(url, body) {
      return (await client.post(url, { jsonData: body })).json();
    },
    async close() {
      await client[Symbol.asyncDispose]();
    },
  };
}

/** Every Node client: name → [description, package it needs or undefined, factory]. */
const CLIENTS = {
  "fetch": ["Node's global `fetch` (its bundled undici, global dispatcher)", undefined, rawFetch],
  "undici": ["`undici.request` with an `Agent(AGENT_OPTIONS)`", "undici", undiciRequest],
  "fetchline": [
    "fetchline npm build, `withPool(AGENT_OPTIONS)`, no hooks",
    "@fetchline/fetchline",
    (deps) => fetchline(deps, false),
  ],
  "fetchline+hooks": [
    "fetchline npm build with the 5 hooks of bench/clients.ts",
    "@fetchline/fetchline",
    (deps) => fetchline(deps, true),
  ],
  "ky": ["ky, `ky.create({})` defaults, global fetch", "ky", kyClient],
  "axios": ["axios, `axios.create()` defaults (http adapter)", "axios", axiosClient],
  "got": ["got, its defaults but `retry: { limit: 0 }` (node:http)", "got", gotClient],
};

/** The clients whose package is installed, and a notice for each one left out. */
function available(deps) {
  const clients = [];
  const notices = [];
  for (const [name, [description, pkg]] of Object.entries(CLIENTS)) {
    const found = pkg === undefined ? { version: process.versions.node } : packageJson(deps, pkg);
    if (found === undefined) {
      notices.push(`node ${name}: skipped, ${pkg} is not installed in ${deps}`);
    } else {
      clients.push({ name, description, version: `${pkg ?? "node"}@${found.version}` });
    }
  }
  return { runtime: RUNTIME, node: process.version, clients, notices };
}

async function measure(name, client, url, workload, concurrency, requests, warmup) {
  const target = url + PATHS[workload];
  const call = workload === "get" ? () => client.get(target) : () => client.post(target, ECHO_BODY);
  const check = (body) => checkAnswer(workload, body);
  const run = await measureCalls(call, check, { concurrency, requests, warmup });
  return { runtime: RUNTIME, client: name, workload, ...run };
}

const { values } = parseArgs({
  options: {
    deps: { type: "string" },
    list: { type: "boolean", default: false },
    client: { type: "string" },
    url: { type: "string" },
    workload: { type: "string", default: "get" },
    concurrency: { type: "string", default: "1" },
    requests: { type: "string", default: "1000" },
    warmup: { type: "string", default: "200" },
  },
});
if (values.deps === undefined) throw new TypeError("Usage: node_throughput.mjs --deps <folder> …");
if (values.list) {
  console.log(JSON.stringify(available(values.deps)));
} else {
  const entry = CLIENTS[values.client];
  if (entry === undefined || values.url === undefined || !(values.workload in PATHS)) {
    throw new TypeError(
      `Usage: --client=<${Object.keys(CLIENTS).join("|")}> --url=<server> --workload=get|post`,
    );
  }
  const client = entry[2](values.deps);
  await client.setup();
  const result = await measure(
    values.client,
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
