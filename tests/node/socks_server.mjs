// SOCKS5 proxies for the tests, on Deno and Node: Debian's Dante (`danted`)
// started on a free loopback port with a config and log of its own (no
// authentication: Dante's `username` method checks the system's passwords,
// which a test cannot set), and a small SOCKS5 server of our own (RFC 1928,
// with RFC 1929's user name and password) that checks credentials and
// records what each client asked for: the address type shows whether the
// client resolved the host itself (socks5://) or left it to the proxy
// (socks5h://).

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { freePort, waitForPort } from "./proxy_server.mjs";

const DANTED = "/usr/sbin/danted";

/**
 * Starts Dante in the foreground on 127.0.0.1, relaying to loopback only,
 * logging each connection it relays.
 *
 * @returns {Promise<{ port: number, url: string, log(): string, relayed(): number, close(): Promise<void> }>}
 */
export async function startDante() {
  // /tmp, not os.tmpdir(): that reads TMPDIR, which Deno's test task may not read (Dante is Linux's).
  const dir = mkdtempSync("/tmp/fetchline-dante-");
  const port = await freePort();
  const config = [
    `logoutput: ${dir}/danted.log`,
    `internal: 127.0.0.1 port = ${port}`,
    "external: 127.0.0.1",
    "socksmethod: none",
    "clientmethod: none",
    "client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }",
    "socks pass { from: 127.0.0.0/8 to: 127.0.0.0/8 log: connect }",
    "socks block { from: 0.0.0.0/0 to: 0.0.0.0/0 log: connect }",
  ];
  writeFileSync(`${dir}/danted.conf`, config.join("\n") + "\n");
  const stop = startDaemon(DANTED, [
    "-N",
    "1",
    "-f",
    `${dir}/danted.conf`,
    "-p",
    `${dir}/danted.pid`,
  ]);
  const close = async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, "danted");
  } catch (error) {
    await close();
    throw error;
  }
  const log = () => {
    try {
      return readFileSync(`${dir}/danted.log`, "utf8");
    } catch {
      return "";
    }
  };
  // The connections Dante relayed, as its log counts them.
  const relayed = () =>
    log().split("\n").filter((line) => /pass\(\d+\): tcp\/connect/.test(line)).length;
  return { port, url: `socks5://127.0.0.1:${port}`, log, relayed, close };
}

/**
 * Starts `path` with `args`, its output discarded; gives what stops it and
 * waits. On Deno with `Deno.Command`: its node:child_process reads
 * variables the test task may not read.
 */
function startDaemon(path, args) {
  if (globalThis.Deno !== undefined) {
    const child = new Deno.Command(path, { args, stdin: "null", stdout: "null", stderr: "null" })
      .spawn();
    return async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await child.status;
    };
  }
  const child = spawn(path, args, { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return async () => {
    child.kill("SIGTERM");
    await exited;
  };
}

/**
 * A SOCKS5 server on 127.0.0.1 that asks for `auth` ([user, password]) when
 * given, refusing other credentials, and relays CONNECT to loopback only
 * (the one name it resolves is `localhost`; another is unreachable). `requests` holds each CONNECT as
 * `"<ip|name> host:port"`, `refused` the credentials it refused.
 *
 * @returns {Promise<{ port: number, requests: string[], refused: number, close(): Promise<void> }>}
 */
export async function startSocks5({ auth } = {}) {
  const state = { requests: [], refused: 0 };
  const sockets = new Set();
  const server = createServer((client) => {
    sockets.add(client);
    client.on("error", () => {});
    client.once("close", () => sockets.delete(client));
    serve(client).catch(() => client.destroy());
  });
  const reader = (socket) => {
    let buffered = Buffer.alloc(0);
    let wake = () => {};
    socket.on("data", (chunk) => (buffered = Buffer.concat([buffered, chunk]), wake()));
    socket.once("close", () => wake());
    return async (n) => {
      for (let i = 0; buffered.length < n; i++) {
        if (socket.destroyed || i > 100) throw new Error("closed");
        await new Promise((resolve) => (wake = resolve));
      }
      const bytes = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      return bytes;
    };
  };
  async function serve(client) {
    const read = reader(client);
    const [, count] = await read(2);
    const methods = [...await read(count)];
    const method = auth === undefined ? 0 : 2;
    if (!methods.includes(method)) return void client.end(Buffer.from([5, 0xff]));
    client.write(Buffer.from([5, method]));
    if (method === 2) {
      const [, userLength] = await read(2);
      const user = (await read(userLength)).toString();
      const [passwordLength] = await read(1);
      const password = (await read(passwordLength)).toString();
      const ok = user === auth[0] && password === auth[1];
      if (!ok) state.refused++;
      client.write(Buffer.from([1, ok ? 0 : 1]));
      if (!ok) return void client.end();
    }
    const [, command, , type] = await read(4);
    let host;
    if (type === 1) host = [...await read(4)].join(".");
    else if (type === 3) host = (await read((await read(1))[0])).toString();
    else host = (await read(16)).toString("hex").replace(/(....)(?!$)/g, "$1:");
    const port = (await read(2)).readUInt16BE(0);
    state.requests.push(`${type === 3 ? "name" : "ip"} ${host}:${port}`);
    const target = type !== 3 ? host : host === "localhost" ? "127.0.0.1" : "";
    const reply = (code) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
    if (command !== 1) return void client.end(reply(7));
    if (target === "") return void client.end(reply(4));
    if (!/^127\.|^0000:0000:0000:0000:0000:0000:0000:0001$/.test(target)) {
      return void client.end(reply(2));
    }
    const upstream = connect(port, target.includes(":") ? "::1" : target);
    sockets.add(upstream);
    upstream.once("close", () => sockets.delete(upstream));
    upstream.once("error", () => client.end(reply(5)));
    upstream.once("connect", () => {
      client.removeAllListeners("data");
      client.write(reply(0));
      client.pipe(upstream).pipe(client);
    });
  }
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    requests: state.requests,
    get refused() {
      return state.refused;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
