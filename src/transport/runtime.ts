// The one module that knows which runtime it runs on. Everything else asks
// it for a connection pool or a file's bytes and never branches itself.
// The npm build compiles `runtime_node.ts` in its place (undici and node:fs).

import type { PoolOptions } from "../config/client_config.ts";
import { fetchTransport } from "./fetch_transport.ts";
import type { Transport } from "./fetch_transport.ts";

/** The few Deno APIs the library uses, typed here so other builds need no Deno types. */
interface DenoApi {
  createHttpClient(options: PoolOptions): { close(): void };
  readFile(path: string): Promise<Uint8Array>;
}

const deno: DenoApi | undefined = (globalThis as { Deno?: DenoApi }).Deno;

/** A connection pool: the transport bound to it, and the call that releases it. */
export interface Pool {
  readonly transport: Transport;
  close(): void;
}

/** Creates a pool: a `Deno.HttpClient` on Deno, the global `fetch` elsewhere. */
export function createPool(options: PoolOptions = {}): Pool {
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

/** Reads a whole file from disk. */
export async function readFile(path: string): Promise<Uint8Array> {
  if (deno !== undefined) return await deno.readFile(path);
  const fs = await import("node:fs/promises");
  return new Uint8Array(await fs.readFile(path));
}
