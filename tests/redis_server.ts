// A real Redis for the tests: Debian's redis-server started on a free
// loopback port, with no persistence, stopped at the end (.ci/run installs
// the package when it is missing).

import { freePort, startDaemon } from "./proxy_server.ts";

export const REDIS_SERVER = "/usr/bin/redis-server";

/** A running redis-server. */
export interface RedisServer extends AsyncDisposable {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
}

/** Starts redis-server and waits until it accepts connections (at most 5 s). */
export async function startRedis(): Promise<RedisServer> {
  const port = freePort();
  const stop = startDaemon(
    REDIS_SERVER,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
  );
  try {
    await waitForRedis(port);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, url: `redis://127.0.0.1:${port}`, [Symbol.asyncDispose]: stop };
}

/** Waits until a PING on `port` is answered with PONG. */
async function waitForRedis(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      using connection = await Deno.connect({ hostname: "127.0.0.1", port });
      await connection.write(new TextEncoder().encode("PING\r\n"));
      const buffer = new Uint8Array(16);
      const read = await connection.read(buffer);
      if (new TextDecoder().decode(buffer.subarray(0, read ?? 0)).startsWith("+PONG")) return;
    } catch { /* not yet listening */ }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not answer on port ${port} within 5 s`);
}
