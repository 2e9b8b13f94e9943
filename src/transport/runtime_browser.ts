// The browser counterpart of `runtime.ts`: the npm package's browser build
// (`browser/`, picked by the `browser` and `worker` conditions) compiles this
// file in its place, so a page's or a web worker's bundle carries the global
// `fetch` and nothing of Deno's pool, its proxies or its TLS options, which a
// browser cannot use. Like `runtime.ts`, it exports one `Runtime` as `runtime`.

import { globalFetchPool } from "./fetch.ts";
import { noFileSystem } from "../errors.ts";
import type { FileSource, NetworkOptions, Pool, PoolOptions, Runtime } from "./types.ts";

/** The global `fetch`, no pool and no files. */
export const runtime: Runtime = {
  pooled: false,
  files: false,
  createPool,
  openFile,
  diagnosticsChannel: () => undefined,
};

/** The global `fetch` as a pool ({@linkcode globalFetchPool}). */
function createPool(_options?: PoolOptions, network: NetworkOptions = {}): Pool {
  return globalFetchPool(network);
}

/** No file system: a `files` path is refused, naming the runtime. */
function openFile(_path: string): Promise<FileSource> {
  return Promise.reject(new TypeError(noFileSystem("files")));
}
