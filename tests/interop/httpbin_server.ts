// httpbin (Debian's python3-httpbin) under gunicorn on a free port of
// 127.0.0.1, for the interop tests. Threads, so that a /delay/<n> the
// client gave up on does not hold up the requests after it.

/** A running httpbin; disposing it stops gunicorn and waits for its exit. */
export interface Httpbin extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
}

const PYTHON = "/usr/bin/python3";

/** Starts httpbin and resolves once it answers `GET /get`; a loaded CI machine may need many seconds. */
export async function startHttpbin(timeoutMs = 60_000): Promise<Httpbin> {
  const port = freePort();
  const child = new Deno.Command(PYTHON, {
    args: ["-m", "gunicorn", "-b", `127.0.0.1:${port}`, "--threads", "8", "httpbin:app"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // Read all along, so a full pipe never blocks gunicorn and a failed start can be shown.
  const log = new Response(child.stderr).text();
  const stop = async () => {
    try {
      child.kill("SIGINT"); // gunicorn's quick shutdown
    } catch {
      // It has exited already.
    }
    await child.status;
    return await log;
  };
  let exited = false;
  child.status.then(() => exited = true);
  for (const deadline = Date.now() + timeoutMs; !(await answers(port));) {
    if (exited || Date.now() > deadline) {
      const output = await stop();
      throw new Error(`httpbin did not start on port ${port} (${PYTHON} -m gunicorn):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/** A port nothing listens on now: bound, noted, released. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  return listener.addr.port;
}

/** True when an HTTP/1.0 `GET /get` on `port` gets a 200; a bare socket keeps no pool behind. */
async function answers(port: number): Promise<boolean> {
  let conn: Deno.TcpConn | undefined;
  try {
    conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(new TextEncoder().encode("GET /get HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"));
    const head = new Uint8Array(64);
    const n = await conn.read(head);
    return /^HTTP\/1\.[01] 200 /.test(new TextDecoder().decode(head.subarray(0, n ?? 0)));
  } catch {
    return false;
  } finally {
    conn?.close();
  }
}
