// The one module that knows which runtime it runs on. Everything else asks
// it for a connection pool or a file's bytes and never branches itself.
// The npm build compiles `runtime_node.ts` in its place (undici and node:fs);
// this file imports no `node:` module.

import { fetchTransport } from "./fetch_transport.ts";
import type { Pool, PoolOptions, Runtime } from "./types.ts";

/** The few Deno APIs the library uses, typed here so other builds need no Deno types. */
interface DenoApi {
  createHttpClient(options: PoolOptions): { close(): void };
  readFile(path: string): Promise<Uint8Array>;
}

const deno: DenoApi | undefined = (globalThis as { Deno?: DenoApi }).Deno;

/** Deno's pool and files; elsewhere the global `fetch`, and no files. */
export const runtime: Runtime = { createPool, readFile };

/** Creates a pool: a `Deno.HttpClient` on Deno, the global `fetch` elsewhere. */
function createPool(options: PoolOptions = {}): Pool {
  if (deno === undefined) {
    return { transport: fetchTransport((input, init) => fetch(input, init)), close() {} };
  }
  const client = deno.createHttpClient(options);
  return {
    // Deno's fetch decodes gzip and br but leaves a deflate body encoded.
    transport: fetchTransport(fetch, { init: { client } as RequestInit, inflate: true }),
    close: () => client.close(),
  };
}

/** Reads a whole file from disk; only Deno has a file system here (Node runs the npm build). */
async function readFile(path: string): Promise<Uint8Array> {
  if (deno === undefined) {
    throw new TypeError("Invalid files: a file path needs Deno or Node; give a Blob or bytes");
  }
  return await deno.readFile(path);
}
