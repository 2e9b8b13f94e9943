// RedisCacheStore from the npm build on a real redis-server (Debian's,
// started on a free loopback port, stopped after), through both client
// packages, which scripts/test_npm.ts installs beside the package. Where
// redis-server is missing the test skips, saying why, unless CI is set.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, createServer } from "node:net";
import { test } from "node:test";
import { RedisCacheStore } from "@fetchline/fetchline/cache";
import { HttpClientException } from "@fetchline/fetchline";

const REDIS_SERVER = "/usr/bin/redis-server";
const ci = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";
const skip = !existsSync(REDIS_SERVER) && !ci &&
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
async function startRedis() {
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

test("RedisCacheStore round trips binary bodies through node-redis and ioredis, with a PX expiry", {
  skip,
}, async () => {
  const server = await startRedis();
  try {
    const url = `redis://127.0.0.1:${server.port}`;
    const { createClient } = await import("redis");
    const { Redis } = await import("ioredis");
    const nodeRedis = await createClient({ url }).connect();
    const ioredis = new Redis(url);
    try {
      await checkStores(nodeRedis, ioredis);
    } finally {
      // The clients before their server: each fails loudly when it goes first.
      await nodeRedis.close();
      await ioredis.quit();
    }
  } finally {
    await server.stop();
  }
});

/** The checks, through a connected client of each package. */
async function checkStores(nodeRedis, ioredis) {
  const body = new Uint8Array(300_000).map((_, i) => i % 256);
  const entry = { meta: { status: 200, note: "é 😀" }, body };
  const viaNodeRedis = new RedisCacheStore(nodeRedis);
  const viaIoredis = new RedisCacheStore(ioredis);
  await viaNodeRedis.set("GET http://127.0.0.1/a", entry, 60_000);
  for (const store of [viaNodeRedis, viaIoredis]) {
    const read = await store.get("GET http://127.0.0.1/a");
    assert.deepEqual(read.meta, entry.meta);
    assert.deepEqual(new Uint8Array(read.body), body);
  }
  const pttl = await ioredis.pttl("fetchline-cache:GET http://127.0.0.1/a");
  assert.ok(pttl > 55_000 && pttl <= 60_000, `PTTL ${pttl}`);
  await viaIoredis.set("b", { meta: {}, body: new Uint8Array([0, 255]) }, 60_000);
  assert.deepEqual(new Uint8Array((await viaNodeRedis.get("b")).body), new Uint8Array([0, 255]));
  await viaIoredis.delete("b");
  assert.equal(await viaNodeRedis.get("b"), undefined);
  await ioredis.set("fetchline-cache:garbage", "not an entry");
  await assert.rejects(viaNodeRedis.get("garbage"), HttpClientException);
  await assert.rejects(viaIoredis.get("garbage"), HttpClientException);
}
