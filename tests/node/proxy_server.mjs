// The Node suite's forward proxy: tinyproxy started on a free port with its
// own config and log file, stopped at the end; throwaway TLS material (a CA
// and a server certificate for 127.0.0.1) made with openssl.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A port nothing listens on now. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts tinyproxy in the foreground, asking for `auth` ([user, password])
 * when given and allowing CONNECT to `connectPorts` (all when none).
 *
 * @returns {Promise<{ port: number, url: string, log(): string, close(): Promise<void> }>}
 */
export async function startTinyproxy({ auth, connectPorts = [] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "fetchline-proxy-"));
  const port = await freePort();
  const lines = [
    `Port ${port}`,
    "Listen 127.0.0.1",
    "Timeout 30",
    `LogFile "${dir}/tinyproxy.log"`,
    "LogLevel Info",
    "MaxClients 50",
    "Allow 127.0.0.1",
    ...(auth === undefined ? [] : [`BasicAuth ${auth[0]} ${auth[1]}`]),
    ...connectPorts.map((p) => `ConnectPort ${p}`),
  ];
  writeFileSync(`${dir}/tinyproxy.conf`, lines.join("\n") + "\n");
  const child = spawn("/usr/bin/tinyproxy", ["-d", "-c", `${dir}/tinyproxy.conf`], {
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = async () => {
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    log: () => readFileSync(`${dir}/tinyproxy.log`, "utf8"),
    close,
  };
}

/** Resolves once something listens on `port` (at most 5 s); `name` is what the error says did not. */
export async function waitForPort(port, name = "tinyproxy") {
  for (let attempt = 0; attempt < 100; attempt++) {
    const ok = await new Promise((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} did not listen on port ${port} within 5 s`);
}

/**
 * Runs `code` (an ES module importing `@fetchline/fetchline`) in a child
 * node with `env` as its whole environment; resolves to its stdout, and
 * fails when it exits non-zero.
 */
export function runNodeChild(code, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      cwd: import.meta.dirname,
      env: { ...env, PATH: "/usr/local/bin:/usr/bin:/bin" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.once(
      "exit",
      (status) =>
        status === 0 ? resolve(out) : reject(new Error(`Child failed (${status}): ${out}${err}`)),
    );
  });
}
