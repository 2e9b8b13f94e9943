// The one module that knows which runtime it runs on: Deno's pool (its
// proxies' and the network policy's in deno_pools.ts, loaded with such a
// pool's first request), Bun's files, the global `fetch` elsewhere. Everything
// else asks it for a connection pool or a file's bytes and never branches
// itself. The npm build compiles `runtime_node.ts` in its place (undici and
// node:fs), its browser build `runtime_browser.ts` (no pool, no proxies);
// this file imports no `node:` module.

import { HttpClientException, noFileSystem } from "../errors.ts";
import { fetchTransport, globalFetchPool } from "./fetch.ts";
import { PROXY_ENV_NAMES, readProxyEnv } from "./proxy_env.ts";
import { uploadReader } from "./body.ts";
import type { DenoNet } from "./deno_relay.ts";
import type { Connect, DenoEnvProxies } from "./deno_pools.ts";
import type {
  DiagnosticsChannel,
  FileSource,
  NetworkOptions,
  Pool,
  PoolOptions,
  Runtime,
  Transport,
} from "./types.ts";

/** The few Deno APIs the library uses, typed here so other builds need no Deno types. */
interface DenoApi extends DenoEnv, DenoNet {
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
  diagnosticsChannel,
};

/**
 * `node:diagnostics_channel` where the runtime has it (Deno, Bun; workerd
 * with Node's APIs on), from diagnostics_channel.ts, imported when first
 * asked: on Deno, asking `process.getBuiltinModule` for it would read
 * `globalThis.process`, which starts Deno's Node layer: 22–30 ms of a
 * one-shot script's 103 ms (`deno run` of bench/one_shot/fetchline.ts,
 * Deno 2.9.6, `performance.now()` around the read), where importing the
 * module takes 6–10 ms. The npm Web build's file in its place asks
 * `process.getBuiltinModule`; a runtime with neither has none.
 */
function diagnosticsChannel(): Promise<DiagnosticsChannel | undefined> {
  return import("./diagnostics_channel.ts").then(
    (module) => module.diagnosticsChannel,
    () => undefined,
  );
}

/**
 * Creates a pool: a `Deno.HttpClient` on Deno, the global `fetch` elsewhere
 * (where the builder has refused network settings). Deno trusts `caCerts`
 * in addition to its root store, as `withTls` promises. Without
 * `withProxy()`, Deno's client applies the environment's proxies itself,
 * and their failures are named as the proxy's where the environment can be
 * read (deno_pools.ts's `envProxyPool`). What a pool needs of the
 * environment is read now (a missing `--allow-env` or a bad proxy variable
 * fails the call that makes the pool); the code of a pool that routes
 * (deno_pools.ts) loads with its first request ({@linkcode loadedPool}).
 */
function createPool(options: PoolOptions = {}, network: NetworkOptions = {}): Pool {
  if (deno === undefined) return globalFetchPool(network);
  const api = deno;
  const pooled = { ...options, ...network.tls };
  const connect: Connect = (options) => denoClient(api, options);
  if (network.unixSocket !== undefined) {
    return plainPool(
      connect({ ...pooled, proxy: { transport: "unix", path: network.unixSocket } }),
    );
  }
  const { policy, proxy } = network;
  if (policy !== undefined || (proxy === null && !envHasNoProxies(deno))) {
    const noProxy = policy === undefined ? "" : readNoProxy(deno);
    return loadedPool(
      (pools) => pools.pinnedPool(api, connect, pooled, policy, noProxy),
      policy !== undefined,
    );
  }
  if (proxy !== undefined) {
    const env = readDenoEnv(deno);
    return loadedPool((pools) => pools.proxyPool(connect, pooled, proxy, env));
  }
  const env = envGranted(deno) ? envOrUndefined(deno) : undefined;
  if (env === undefined || (env.http === undefined && env.https === undefined)) {
    return plainPool(connect(pooled));
  }
  return loadedPool((pools) => pools.envProxyPool(connect, pooled, env));
}

/** One `Deno.HttpClient`'s pool. */
function plainPool([transport, client]: [Transport, { close(): void }]): Pool {
  return { transport, close: () => client.close() };
}

/**
 * A pool `make` makes of deno_pools.ts, which loads with the pool's first
 * request (or check, with `checks`): 840 lines of code (the proxies', the
 * relay, the network policy's checks) `import` of mod.ts would load for
 * every client otherwise. A request whose pool loaded after the close
 * (its call is aborted too) is refused, so nothing is left open.
 */
function loadedPool(make: (pools: typeof import("./deno_pools.ts")) => Pool, checks = false): Pool {
  let pool: Pool | undefined;
  let loading: Promise<Pool> | undefined;
  let closed = false;
  const load = () => loading ??= import("./deno_pools.ts").then((pools) => pool = make(pools));
  return {
    transport(wire, abort) {
      if (pool !== undefined) return pool.transport(wire, abort);
      return load().then((made) =>
        closed
          ? Promise.reject(new TypeError("The connection pool is closed"))
          : made.transport(wire, abort)
      );
    },
    close() {
      closed = true;
      pool?.close();
    },
    checkDestination: checks
      ? (url, abort) =>
        pool !== undefined
          ? pool.checkDestination!(url, abort)
          : load().then((made) => made.checkDestination!(url, abort))
      : undefined,
  };
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

/** What of Deno's environment the pools read. */
interface DenoEnv {
  env: { get(name: string): string | undefined };
  permissions: { querySync(descriptor: { name: "env"; variable: string }): { state: string } };
}

interface DenoClients extends DenoEnv {
  createHttpClient(options: PoolOptions): { close(): void };
}

// Every variable Deno's client reads: REQUEST_METHOD turns HTTP_PROXY off.
const NAMES = [...PROXY_ENV_NAMES, "REQUEST_METHOD"];

/** The environment's NO_PROXY as Deno's client reads it; the permission to read it is required. */
function readNoProxy(deno: DenoEnv): string {
  const names = ["NO_PROXY", "no_proxy"];
  if (
    names.some((variable) =>
      deno.permissions.querySync({ name: "env", variable }).state !== "granted"
    )
  ) {
    throw new HttpClientException(
      "The network policy needs --allow-env=NO_PROXY,no_proxy on Deno: Deno's HTTP client " +
        "connects by itself to the hosts NO_PROXY names, and the policy must know them",
    );
  }
  return deno.env.get("NO_PROXY") ?? deno.env.get("no_proxy") ?? "";
}

/** True when the environment can be read and names no proxy Deno's client would use. */
function envHasNoProxies(deno: DenoEnv): boolean {
  const env = envGranted(deno) ? envOrUndefined(deno) : undefined;
  return env !== undefined && env.http === undefined && env.https === undefined;
}

/** A `Deno.HttpClient` made with `options`, and the transport that sends through it. */
function denoClient(
  deno: DenoClients,
  options: PoolOptions,
): [Transport, { close(): void }] {
  const client = deno.createHttpClient(options);
  // Deno's fetch decodes gzip and br but leaves a deflate body encoded.
  return [fetchTransport(fetch, { init: { client } as RequestInit, inflate: true }), client];
}

/** True when every variable Deno's client reads may be read without a prompt. */
function envGranted(deno: DenoEnv): boolean {
  return NAMES.every((variable) =>
    deno.permissions.querySync({ name: "env", variable }).state === "granted"
  );
}

/**
 * The environment's proxies, or `undefined` where a value is not a proxy
 * URL: Deno's client then ignores it (an `ftp:` one), and its errors are
 * left as they are.
 */
function envOrUndefined(deno: DenoEnv): DenoEnvProxies | undefined {
  try {
    return readDenoEnv(deno);
  } catch {
    return undefined;
  }
}

function readDenoEnv(deno: DenoEnv): DenoEnvProxies {
  if (!envGranted(deno)) {
    throw new HttpClientException(
      "Proxy settings need --allow-env on Deno: Deno's HTTP client reads the environment's " +
        `proxies itself, and withProxy() must check they do not override it (--allow-env=${
          NAMES.join(",")
        })`,
    );
  }
  const denoNoProxy = deno.env.get("NO_PROXY") ?? deno.env.get("no_proxy") ?? "";
  return { ...readProxyEnv((name) => deno.env.get(name)), denoNoProxy };
}
