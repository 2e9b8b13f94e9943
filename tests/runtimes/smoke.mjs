// The npm package's checks (tests/runtimes/checks.mjs) on whichever runtime
// runs this file (Node, Bun, Deno), against a node:http server on 127.0.0.1
// that each of them provides. scripts/test_runtimes.ts installs the packed
// package next to this file, so `@fetchline/fetchline` resolves through the
// package's `exports` conditions exactly as a user's import does. No test
// runner: one line per check, and the exit code is 1 on any failure. Given
// the argument `without-tough-cookie` (the package removed), it checks the
// default cookie jar instead.

import { createServer } from "node:http";
import * as mod from "@fetchline/fetchline";
import { toCurl } from "@fetchline/fetchline/utils";
import { checks, limits, run, withoutToughCookie } from "./checks.mjs";
import { bunFileChecks, fileChecks } from "./files.mjs";

const runtime = globalThis.Bun !== undefined
  ? "Bun"
  : globalThis.Deno !== undefined
  ? "Deno"
  : "Node";
const args = globalThis.Deno?.args ?? globalThis.process.argv.slice(2);

/** Starts the fixture tests/runtimes/checks.mjs describes. */
async function startServer() {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const url = new URL(req.url, "http://127.0.0.1");
    if (url.pathname === "/slow") return;
    const body = new TextDecoder().decode(await new Blob(chunks).arrayBuffer());
    const cookie = url.pathname === "/login" ? { "set-cookie": "sid=s3cr3t" } : {};
    res.writeHead(url.pathname === "/missing" ? 404 : 200, {
      "content-type": "application/json",
      ...cookie,
    });
    const { method, headers } = req;
    res.end(JSON.stringify({ method, query: url.search.slice(1), body, headers }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${server.address().port}`, close };
}

/** A port nothing listens on: one the system gave a server that is closed again. */
async function refusedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(() => resolve()));
  return port;
}

const where = import.meta.resolve("@fetchline/fetchline");
const build = /\/web\/mod\.js$/.test(where) ? "web" : "node";
const expected = runtime === "Node" ? "node" : "web";
const server = await startServer();
const fixture = { url: server.url, refusedUrl: `http://127.0.0.1:${await refusedPort()}`, runtime };
const lib = { ...mod, toCurl };
const all = {
  "the build": () => {
    if (build !== expected) throw new Error(`${where}, not the ${expected} build`);
  },
  ...(args[0] === "without-tough-cookie" ? withoutToughCookie(lib, fixture) : {
    ...checks(lib, fixture),
    ...fileChecks(lib, fixture),
    ...(runtime === "Bun" ? { ...limits(lib, fixture), ...bunFileChecks(lib, fixture) } : {}),
  }),
};
let failed = 1;
try {
  const result = await run(all, `${runtime} (${build} build)`);
  console.log(result.lines.join("\n"));
  failed = result.failed;
} finally {
  await server.close();
}
if (failed > 0) globalThis.process.exit(1);
