// A real forward proxy for the tests: tinyproxy started on a free port with
// its own config and log file, stopped at the end; and throwaway TLS
// material (a CA and a server certificate for 127.0.0.1) made with openssl.

const TINYPROXY = "/usr/bin/tinyproxy";

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
/** Starts `path` with `args`, its output discarded; gives what stops it (SIGTERM) and waits. */
export function startDaemon(path: string, args: string[]): () => Promise<void> {
  const child = new Deno.Command(path, { args, stdin: "null", stdout: "null", stderr: "null" })
    .spawn();
  return async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
  };
}

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
  const daemon = startDaemon(TINYPROXY, ["-d", "-c", `${dir}/tinyproxy.conf`]);
  const stop = async () => {
    await daemon();
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

/** The `--allow-env` flag a child needs for `withProxy()` on Deno: every variable Deno's client reads. */
export const PROXY_ENV_FLAG =
  "--allow-env=HTTP_PROXY,http_proxy,HTTPS_PROXY,https_proxy,ALL_PROXY,all_proxy,NO_PROXY,no_proxy,REQUEST_METHOD";

/**
 * A child module (for {@linkcode runDenoChild}) that builds a client with
 * `setup` (builder calls, such as `.withProxy(null)`), sends one GET to
 * `url` without retries and prints `status <code>` or `error <name> <message>`.
 */
export function proxyChildCode(setup: string, url: string): string {
  const mod = new URL("../mod.ts", import.meta.url).href;
  return `
    import { HttpClient, HttpClientConfigBuilder } from ${JSON.stringify(mod)};
    const http = new HttpClient(new HttpClientConfigBuilder()${setup}.withRetry({ maxRetries: 0 }).build());
    try {
      console.log("status", (await http.get(${JSON.stringify(url)})).statusCode);
    } catch (error) {
      console.log("error", error.name, error.message);
    } finally {
      http.close();
    }
  `;
}

/** A target server on 127.0.0.1 answering "ok", and the paths it was asked for, in order. */
export function recordingTarget(): { server: Deno.HttpServer; origin: string; seen: string[] } {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seen.push(new URL(request.url).pathname);
    return new Response("ok");
  });
  return { server, origin: `http://127.0.0.1:${server.addr.port}`, seen };
}
