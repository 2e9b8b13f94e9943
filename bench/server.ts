/**
 * The throughput benchmarks' server, run as its own process so that its CPU
 * time and garbage are not the client's: `GET` anything → a small JSON object
 * (`ITEM`), `POST` anything → the JSON body echoed back. It listens on
 * 127.0.0.1, port 0, prints `{"port": N}` on stdout once it listens, and
 * shuts down when its stdin closes (so it cannot outlive its parent).
 *
 * ```sh
 * deno run --allow-net=127.0.0.1 bench/server.ts
 * ```
 *
 * @module
 */

import { ITEM, JSON_HEADERS } from "./_workload.ts";

const ITEM_TEXT = JSON.stringify(ITEM);

async function answer(request: Request): Promise<Response> {
  if (request.method === "POST") {
    return new Response(await request.arrayBuffer(), { headers: JSON_HEADERS });
  }
  return new Response(ITEM_TEXT, { headers: JSON_HEADERS });
}

/** A server process started by {@linkcode spawnServer}. */
export interface ServerProcess extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Closes the server's stdin and waits for it to exit. */
  close(): Promise<void>;
}

/**
 * Starts this file as a separate `deno` process and waits until it listens.
 * Needs `--allow-run` for `executable` (`deno` from PATH, as a task has it,
 * unless another path to Deno is given, such as `Deno.execPath()`).
 */
export async function spawnServer(executable = "deno"): Promise<ServerProcess> {
  const child = new Deno.Command(executable, {
    args: ["run", "--allow-net=127.0.0.1", new URL(import.meta.url).pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("The benchmark server exited before it listened");
    buffered += value;
  }
  const { port } = JSON.parse(buffered.slice(0, buffered.indexOf("\n"))) as { port: number };
  const close = async () => {
    await child.stdin.close().catch(() => {});
    await lines.cancel();
    await child.status;
  };
  return { url: `http://127.0.0.1:${port}`, close, [Symbol.asyncDispose]: close };
}

if (import.meta.main) {
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ port })),
  }, answer);
  // Runs until the parent closes our stdin (or exits).
  for await (const _ of Deno.stdin.readable) { /* nothing is sent */ }
  await server.shutdown();
}
