// undici's HTTP cache in the public HTTP cache test suite, as undici's own
// CI runs it: `interceptors.cache()` with its MemoryCacheStore, a private
// cache (methods GET and HEAD), on Node; the same selection, server and
// grading as fetchline's run (tests/cache_conformance/harness.mjs). Run
// once, by hand, from the repository's root on Node 22 or later (undici 8
// needs it), after undici is in node_modules (`npx -y deno@2.9.6 install`,
// which the tasks that use it run first, puts it there):
//
//   npx -y node@22 bench/cache_conformance_undici.mjs
//
// It writes bench/cache_conformance_undici.json, which
// `deno task test:cache-conformance --write` puts beside fetchline's.

import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { Agent, cacheStores, interceptors, request } from "undici";
import { report, responseOf, runSuite } from "../tests/cache_conformance/harness.mjs";

const server = spawn(
  process.execPath,
  [new URL("../tests/cache_conformance/server.mjs", import.meta.url).pathname],
  { stdio: ["pipe", "pipe", "inherit"] },
);
const port = await new Promise((resolve, reject) => {
  let seen = "";
  const timer = setTimeout(() => reject(new Error("the suite's server did not start")), 10_000);
  server.stdout.on("data", (chunk) => {
    seen += chunk;
    const match = /listening (\d+)\n/.exec(seen);
    if (match !== null) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
});

const dispatcher = new Agent().compose(
  interceptors.cache({
    store: new cacheStores.MemoryCacheStore(),
    methods: ["GET", "HEAD"],
    type: "private",
  }),
);
const { version } = JSON.parse(
  await readFile(new URL("../node_modules/undici/package.json", import.meta.url), "utf8"),
);

let result;
try {
  result = await runSuite(`http://127.0.0.1:${port}`, async ({ url, method, headers, body }) => {
    const response = await request(url, { dispatcher, method, headers: headers.flat(), body });
    const bytes = new Uint8Array(await response.body.arrayBuffer());
    const pairs = Object.entries(response.headers).flatMap(([name, value]) =>
      Array.isArray(value) ? value.map((one) => [name, one]) : [[name, value]]
    );
    return responseOf(response.statusCode, pairs, bytes);
  });
} finally {
  server.stdin.end();
  await dispatcher.close();
}

for (const line of report(result.rows)) console.log(line);
console.log(`undici ${version}: ${result.passed} of ${result.graded} graded tests passed`);
const out = new URL("cache_conformance_undici.json", import.meta.url);
await writeFile(
  out,
  `${JSON.stringify({ undici: version, node: process.version, ...result }, null, 1)}\n`,
);
