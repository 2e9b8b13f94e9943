// The one module that knows which runtime it runs on. Everything else asks
// it for a connection pool or a file's bytes and never branches itself.
// The npm build compiles `runtime_node.ts` in its place (undici and node:fs);
// this file imports no `node:` module.

import { fetchTransport } from "./fetch_transport.ts";
import { denoEnvProxyTransport, denoProxyTransport } from "./deno_proxy.ts";
import { uploadReader } from "./byte_stream.ts";
import { noFileSystem, runtimeName } from "./runtime_name.ts";
import type { DenoEnv } from "./deno_proxy.ts";
import type { FileSource, NetworkOptions, Pool, PoolOptions, Runtime } from "./types.ts";

/** The few Deno APIs the library uses, typed here so other builds need no Deno types. */
interface DenoApi extends DenoEnv {
  createHttpClient(options: PoolOptions): { close(): void };
  readFile(path: string): Promise<Uint8Array>;
  stat(path: string): Promise<{ isFile: boolean; size: number }>;
  open(path: string): Promise<{ readable: ReadableStream<Uint8Array> }>;
}

const deno: DenoApi | undefined = (globalThis as { Deno?: DenoApi }).Deno;

/** Bun's file, typed here as {@linkcode DenoApi} is: a Blob read from disk as it is streamed. */
interface BunFile extends Blob {
  stat(): Promise<{ isFile(): boolean; size: number }>;
}

const bun: { file(path: string): BunFile } | undefined =
  (globalThis as { Bun?: { file(path: string): BunFile } }).Bun;

/** Deno's pool and files; Bun's files; elsewhere the global `fetch`, and no files. */
export const runtime: Runtime = {
  pooled: deno !== undefined,
  files: deno !== undefined || bun !== undefined,
  createPool,
  openFile,
};

/**
 * Creates a pool: a `Deno.HttpClient` on Deno, the global `fetch` elsewhere
 * (where the builder has refused network settings). Deno trusts `caCerts`
 * in addition to its root store, as `withTls` promises. Without
 * `withProxy()`, Deno's client applies the environment's proxies itself,
 * and their failures are named as the proxy's where the environment can be
 * read (deno_proxy.ts).
 */
function createPool(options: PoolOptions = {}, network: NetworkOptions = {}): Pool {
  if (deno === undefined) {
    if (network.proxy !== undefined && network.proxy !== null) {
      throw new TypeError(`Invalid proxy: ${runtimeName()} has no pool to send through a proxy`);
    }
    // workerd's fetch, like Deno's, decodes gzip and br but leaves a deflate body encoded.
    const inflate = runtimeName() === "workerd";
    return {
      transport: fetchTransport((input, init) => fetch(input, init), { inflate }),
      close() {},
    };
  }
  const pooled = { ...options, ...network.tls };
  return network.proxy === undefined
    ? denoEnvProxyTransport(deno, pooled)
    : denoProxyTransport(deno, pooled, network.proxy);
}

/**
 * Opens a file as a source of its size now, opened and read only as it is
 * streamed; only Deno and Bun have a file system here (Node runs the npm
 * build). A file that is not a regular one (a pipe, a device) has no size
 * to trust: it is read whole now, and a directory fails as reading it does.
 */
async function openFile(path: string): Promise<FileSource> {
  if (deno === undefined) {
    if (bun !== undefined) return await bunFile(bun.file(path));
    throw new TypeError(noFileSystem("files"));
  }
  const { isFile, size } = await deno.stat(path);
  if (!isFile) return new Blob([await deno.readFile(path) as Uint8Array<ArrayBuffer>]);
  const api = deno;
  return { size, stream: () => lazyFileStream(() => api.open(path)) };
}

/**
 * The file's bytes as a stream that opens it on the first read, so a body
 * never read (the request failed first) leaves no file open, and reads it
 * in small chunks only as they are asked for. The file's own stream closes
 * it at its end or when cancelled.
 */
function lazyFileStream(
  open: () => Promise<{ readable: ReadableStream<Uint8Array> }>,
): ReadableStream<Uint8Array> {
  let reader: ReturnType<typeof uploadReader> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= uploadReader((await open()).readable);
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader?.cancel(reason),
  }, { highWaterMark: 0 });
}

/**
 * A file on Bun: `Bun.file()` reads the file only as it is streamed, cut to
 * the size the file has now, so the length sent is the length read. A source
 * rather than the Blob itself: Bun copies a file's Blob into another Blob
 * (as a multipart body of Blobs is made) as empty.
 */
async function bunFile(file: BunFile): Promise<FileSource> {
  const info = await file.stat();
  if (!info.isFile()) return new Blob([await file.arrayBuffer()]);
  const { size } = info;
  return { size, stream: () => file.slice(0, size).stream() };
}
