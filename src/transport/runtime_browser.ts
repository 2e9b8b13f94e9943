// The browser counterpart of `runtime.ts`: the npm package's browser build
// (`browser/`, picked by the `browser` and `worker` conditions) compiles this
// file in its place, so a page's or a web worker's bundle carries the global
// `fetch` and nothing of Deno's pool, its proxies or its TLS options, which a
// browser cannot use. Like `runtime.ts`, it exports one `Runtime` as `runtime`.

import { fetchTransport } from "./fetch.ts";
import { noFileSystem, runtimeName } from "./failures.ts";
import type { FileSource, NetworkOptions, Pool, PoolOptions, Runtime } from "./types.ts";

/** The global `fetch`, no pool and no files. */
export const runtime: Runtime = { pooled: false, files: false, createPool, openFile };

/**
 * The global `fetch` as a pool with nothing to close. The builder refuses
 * a proxy and TLS options here first (`pooled` is false); a setting that
 * reached this far anyway is refused too, never ignored.
 */
function createPool(_options?: PoolOptions, network: NetworkOptions = {}): Pool {
  if (network.proxy !== undefined && network.proxy !== null) {
    throw new TypeError(`Invalid proxy: ${runtimeName()} has no pool to send through a proxy`);
  }
  if (network.tls !== undefined) {
    throw new TypeError(`Invalid tls: ${runtimeName()} has no pool to apply TLS options`);
  }
  // workerd's fetch, like Deno's, decodes gzip and br but leaves a deflate
  // body encoded (a worker bundled with only the `worker` condition runs here).
  const inflate = runtimeName() === "workerd";
  return {
    transport: fetchTransport((input, init) => fetch(input, init), { inflate }),
    close() {},
  };
}

/** No file system: a `files` path is refused, naming the runtime. */
function openFile(_path: string): Promise<FileSource> {
  return Promise.reject(new TypeError(noFileSystem("files")));
}
