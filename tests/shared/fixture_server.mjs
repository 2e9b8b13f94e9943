// The shared suite's fixture: ONE process (Node, or Deno with node:http) that
// serves every area's routes (tests/shared/routes/index.mjs) on two ports of
// 127.0.0.1, so a test has two origins, and prints one JSON line on stdout:
// { "url", "otherUrl", "refusedUrl" } (the last a port nothing listens on).
// Runtimes that cannot open a server (a page, workerd) reach it over the
// network; the others start it as a child process too, so every runtime sees
// the same server. It exits when its stdin ends, so it never outlives the run
// that started it.
//
// Every route answers CORS: Access-Control-Allow-Origin *, and
// Access-Control-Expose-Headers naming every header the route sets; a
// preflight (OPTIONS with Access-Control-Request-Method) allows whatever
// method and headers it asks for. A route that tests a CORS failure opts out
// with `res.removeHeader("access-control-allow-origin")` before it answers.
// A route is `(req, res, state)`: `state` is one Map for all routes, for
// counters keyed by a query parameter the test picks.

import { createServer } from "node:http";
import process from "node:process";
import * as areas from "./routes/index.mjs";

const routes = new Map();
for (const area of Object.values(areas)) {
  for (const [path, handler] of Object.entries(area)) {
    if (routes.has(path)) throw new Error(`Route defined twice: ${path}`);
    routes.set(path, handler);
  }
}
const state = new Map();

/** Names every header the route set in Access-Control-Expose-Headers, unless it opted out of CORS. */
function exposeOnWrite(res) {
  const writeHead = res.writeHead;
  res.writeHead = function (status, ...rest) {
    const given = rest.find((item) => typeof item === "object" && item !== null) ?? {};
    const names = Array.isArray(given)
      ? given.filter((_, index) => index % 2 === 0)
      : Object.keys(given);
    if (res.hasHeader("access-control-allow-origin")) {
      const all = new Set([...res.getHeaderNames(), ...names.map((name) => name.toLowerCase())]);
      for (const name of ["access-control-allow-origin", "access-control-expose-headers"]) {
        all.delete(name);
      }
      if (all.size > 0) res.setHeader("access-control-expose-headers", [...all].join(", "));
    }
    return writeHead.call(this, status, ...rest);
  };
}

async function handle(req, res) {
  const { pathname } = new URL(req.url, "http://127.0.0.1");
  res.setHeader("access-control-allow-origin", "*");
  if (req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined) {
    res.writeHead(204, {
      "access-control-allow-methods": req.headers["access-control-request-method"],
      "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*",
      "access-control-max-age": "600",
    });
    return res.end();
  }
  exposeOnWrite(res);
  const route = routes.get(pathname);
  if (route === undefined) {
    res.writeHead(404, { "content-type": "text/plain" });
    return res.end(`No route: ${pathname}`);
  }
  try {
    await route(req, res, state);
  } catch (error) {
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`Route failed: ${error?.stack ?? error}`);
    } else {
      res.destroy();
    }
  }
}

async function listen(server, port = 0) {
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return `http://127.0.0.1:${server.address().port}`;
}

const servers = [createServer(handle), createServer(handle)];
const [url, otherUrl] = [await listen(servers[0]), await listen(servers[1])];
const closed = createServer();
const refusedUrl = await listen(closed);
await new Promise((resolve) => closed.close(resolve));

function stop() {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  process.exit(0);
}
process.stdin.on("data", () => {});
process.stdin.on("end", stop);
process.stdin.on("error", stop);
process.on("SIGTERM", stop);
process.stdout.write(`${JSON.stringify({ url, otherUrl, refusedUrl })}\n`);
