// The one module that knows which runtime it runs on. Everything else asks
// it for a connection pool or a file's bytes and never branches itself.

import type { FetchLike, PoolOptions } from "./config/client_config.ts";

/** The few Deno APIs the library uses, typed here so other builds need no Deno types. */
interface DenoApi {
  createHttpClient(options: PoolOptions): { close(): void };
  readFile(path: string): Promise<Uint8Array>;
}

const deno: DenoApi | undefined = (globalThis as { Deno?: DenoApi }).Deno;

/** A connection pool: a `fetch` bound to it, and the call that releases it. */
export interface Pool {
  readonly fetch: FetchLike;
  close(): void;
}

/** Creates a pool: a `Deno.HttpClient` on Deno, the global `fetch` elsewhere. */
export function createPool(options: PoolOptions = {}): Pool {
  if (deno === undefined) return { fetch: (input, init) => fetch(input, init), close() {} };
  const client = deno.createHttpClient(options);
  return {
    fetch: (input, init) => fetch(input, { ...init, client } as RequestInit),
    close: () => client.close(),
  };
}

/** Reads a whole file from disk. */
export async function readFile(path: string): Promise<Uint8Array> {
  if (deno !== undefined) return await deno.readFile(path);
  const fs = await import("node:fs/promises");
  return new Uint8Array(await fs.readFile(path));
}
