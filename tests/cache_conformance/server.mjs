// The suite's server (its handlers, vendored in suite/test-engine/server/)
// on a free loopback port: runs on Node, prints `listening <port>` once it
// listens, and stops when its standard input closes (its parent is gone).

import http from "node:http";
import process from "node:process";
import handleConfig from "./suite/test-engine/server/handle-config.mjs";
import handleState from "./suite/test-engine/server/handle-state.mjs";
import handleTest from "./suite/test-engine/server/handle-test.mjs";

const handlers = { config: handleConfig, test: handleTest, state: handleState };

const server = http.createServer((request, response) => {
  const segments = new URL(request.url ?? "/", "http://127.0.0.1").pathname.split("/").slice(1);
  const handler = handlers[segments.shift() ?? ""];
  if (handler === undefined) {
    response.writeHead(404, { "Content-Type": "text/plain" });
    response.end("not found\n");
    return;
  }
  handler(segments, request, response);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
