// A real forward proxy for the tests: tinyproxy started on a free port with
// its own config and log file, stopped at the end; and throwaway TLS
// material (a CA and a server certificate for 127.0.0.1) made with openssl.

const TINYPROXY = "/usr/bin/tinyproxy";
const OPENSSL = "/usr/bin/openssl";

/** A running tinyproxy. */
export interface Tinyproxy extends AsyncDisposable {
  readonly port: number;
  /** `http://127.0.0.1:<port>`, with the credentials when it wants them. */
  readonly url: string;
  /** What tinyproxy logged so far: every request it saw. */
  log(): Promise<string>;
}

/** A port nothing listens on now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Starts tinyproxy in the foreground, allowing CONNECT to `connectPorts`,
 * asking for `auth` (user, password) when given, and waits until it
 * accepts connections (at most 5 s).
 */
export async function startTinyproxy(
  options: { auth?: readonly [string, string]; connectPorts?: readonly number[] } = {},
): Promise<Tinyproxy> {
  const dir = await Deno.makeTempDir({ prefix: "fetchline-proxy-" });
  const port = freePort();
  const lines = [
    `Port ${port}`,
    "Listen 127.0.0.1",
    "Timeout 30",
    `LogFile "${dir}/tinyproxy.log"`,
    "LogLevel Info",
    "MaxClients 50",
    "Allow 127.0.0.1",
    ...(options.auth === undefined ? [] : [`BasicAuth ${options.auth[0]} ${options.auth[1]}`]),
    ...(options.connectPorts ?? []).map((p) => `ConnectPort ${p}`),
  ];
  await Deno.writeTextFile(`${dir}/tinyproxy.conf`, lines.join("\n") + "\n");
  const child = new Deno.Command(TINYPROXY, {
    args: ["-d", "-c", `${dir}/tinyproxy.conf`],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  };
  try {
    await waitForPort(port);
  } catch (error) {
    await stop();
    throw error;
  }
  const userInfo = options.auth === undefined
    ? ""
    : `${encodeURIComponent(options.auth[0])}:${encodeURIComponent(options.auth[1])}@`;
  return {
    port,
    url: `http://${userInfo}127.0.0.1:${port}`,
    log: () => Deno.readTextFile(`${dir}/tinyproxy.log`),
    [Symbol.asyncDispose]: stop,
  };
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`tinyproxy did not listen on port ${port} within 5 s`);
}

/** A CA and a server certificate for IP 127.0.0.1 it signed, in PEM. */
export interface TlsMaterial {
  readonly caCert: string;
  readonly cert: string;
  readonly key: string;
}

/** Makes a throwaway CA and a server certificate for 127.0.0.1 with openssl. */
export async function makeTlsMaterial(): Promise<TlsMaterial> {
  const dir = await Deno.makeTempDir({ prefix: "fetchline-tls-" });
  try {
    await Deno.writeTextFile(`${dir}/ext.cnf`, "subjectAltName=IP:127.0.0.1\n");
    const steps = [
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem"]
        .concat(["-days", "2", "-subj", "/CN=fetchline test CA"]),
      ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr"]
        .concat(["-subj", "/CN=127.0.0.1"]),
      ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key"]
        .concat(["-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf"]),
    ];
    for (const args of steps) {
      const { code, stderr } = await new Deno.Command(OPENSSL, { args, cwd: dir, stdout: "null" })
        .output();
      if (code !== 0) {
        throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(stderr)}`);
      }
    }
    const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
    return {
      caCert: await read("ca.pem"),
      cert: await read("server.pem"),
      key: await read("server.key"),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Runs `code` (a module) in a child Deno with `env` as its whole
 * environment and the given permission flags; resolves to its stdout,
 * failing when it exits non-zero. The child runs through sh, which the
 * test permissions allow, so the Deno binary's path needs no permission.
 */
export async function runDenoChild(
  code: string,
  env: Record<string, string>,
  flags: readonly string[],
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "fetchline-child-" });
  try {
    const file = `${dir}/child.ts`;
    await Deno.writeTextFile(file, code);
    const { code: status, stdout, stderr } = await new Deno.Command("sh", {
      args: ["-c", 'exec "$0" run --quiet --no-prompt "$@"', Deno.execPath(), ...flags, file],
      env: { ...env, NO_COLOR: "1", PATH: "/usr/local/bin:/usr/bin:/bin" },
      clearEnv: true,
      stdin: "null",
    }).output();
    const out = new TextDecoder().decode(stdout);
    if (status !== 0) {
      throw new Error(`Child failed (${status}): ${out}${new TextDecoder().decode(stderr)}`);
    }
    return out;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
