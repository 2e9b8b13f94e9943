// A real redis-server for the Node suite's Redis tests: Debian's, started
// on a free loopback port, stopped after. Where redis-server is missing a
// test skips, saying why (`skip`), unless CI is set.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, createServer } from "node:net";

export const REDIS_SERVER = "/usr/bin/redis-server";
const ci = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";
export const skip = !existsSync(REDIS_SERVER) && !ci &&
  `${REDIS_SERVER} is missing (.ci/run installs Debian's redis-server)`;

/** A port nothing listens on now. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something answers a connection on `port`. */
function listening(port) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.end();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** Starts redis-server; resolves to its port and a stop function, within 5 s. */
export async function startRedis() {
  const port = await freePort();
  const child = spawn(REDIS_SERVER, [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await listening(port)) return { port, stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`redis-server did not listen on port ${port} within 5 s`);
}
