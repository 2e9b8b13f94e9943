// The Node counterpart of `runtime.ts`: the npm build compiles this file in
// its place, so the npm package pools connections in an undici `Agent` and
// sends with undici's `dispatch()` (several times the throughput of fetch on
// Node), reads files with node:fs, and never branches on the runtime again.
// Like `runtime.ts`, it exports one `Runtime` as `runtime`.

import { readFileSync } from "node:fs";
import process from "node:process";
import tls from "node:tls";
import { open, readFile, stat } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { Agent, ProxyAgent } from "undici";
import type { Dispatcher } from "undici";
import { UndiciExchange } from "./undici_exchange.ts";
import {
  ownProxyAuthorization,
  proxyAuthorization,
  proxyFailure,
  proxyFor,
  readProxyEnv,
} from "./proxy_route.ts";
import type { EnvProxies } from "./proxy_route.ts";
import type {
  FileSource,
  NetworkOptions,
  Pool,
  PoolOptions,
  ProxySetting,
  Runtime,
  TlsSettings,
  WireRequest,
  WireResponse,
} from "./types.ts";
import type { Abort } from "../client/deadline/abort.ts";

/** An undici `Agent` per pool, and node:fs. */
export const runtime: Runtime = { pooled: true, files: true, createPool, openFile };

/**
 * Creates a pool: an undici `Agent`. Deno's option names map to undici's
 * (`poolIdleTimeout` → `keepAliveTimeout`, `http2` → `allowH2`); other
 * options pass through to the Agent. undici's own headers and body timeouts
 * are off: the client's timeout covers the whole exchange. TLS settings go
 * into the Agent's `connect` options ({@linkcode tlsConnectOptions}).
 * Requests go through the proxy {@linkcode proxyFor} picks per request
 * (`withProxy()`, else the environment's, read now), each through an undici
 * `ProxyAgent` with the same options.
 */
function createPool(options: PoolOptions = {}, network: NetworkOptions = {}): Pool {
  const agentOptions = agentOptionsOf(options, network);
  const env: EnvProxies | undefined = network.proxy === undefined
    ? readProxyEnv((name) => process.env[name])
    : undefined;
  const agent = new Agent(agentOptions);
  const proxied = new Map<ProxySetting, ProxyAgent>();
  const route = (url: URL): [Dispatcher, ProxySetting | undefined] => {
    const proxy = proxyFor(url, network.proxy, env);
    if (proxy === undefined) return [agent, undefined];
    let dispatcher = proxied.get(proxy);
    if (dispatcher === undefined) proxied.set(proxy, dispatcher = proxyAgent(proxy, agentOptions));
    return [dispatcher, proxy];
  };
  return {
    transport: (wire, abort) => send(route, wire, abort),
    close: () => {
      for (const dispatcher of [agent, ...proxied.values()]) {
        void dispatcher.destroy().catch(() => {});
      }
    },
  };
}

/** Deno's pool option names mapped to undici's Agent options, with the TLS settings. */
function agentOptionsOf(options: PoolOptions, network: NetworkOptions): Agent.Options {
  const { poolIdleTimeout, poolMaxIdlePerHost: _, http1: __, http2, ...rest } = options;
  const agentOptions: Agent.Options = { headersTimeout: 0, bodyTimeout: 0, ...rest };
  if (network.tls !== undefined) {
    agentOptions.connect = { ...agentOptions.connect, ...tlsConnectOptions(network.tls) };
  }
  if (typeof poolIdleTimeout === "number") agentOptions.keepAliveTimeout = poolIdleTimeout;
  if (poolIdleTimeout === false) agentOptions.keepAliveMaxTimeout = 2 ** 31 - 1;
  if (http2 !== undefined) agentOptions.allowH2 = http2;
  return agentOptions;
}

/**
 * An undici `ProxyAgent` for `proxy`: http targets forwarded in absolute
 * form (no tunnel), https targets tunnelled with CONNECT, the pool's TLS
 * options (`connect`) applying to the target through the tunnel and to an
 * https proxy.
 */
function proxyAgent(proxy: ProxySetting, agentOptions: Agent.Options): ProxyAgent {
  const tls = agentOptions.connect as ProxyAgent.Options["requestTls"];
  const token = proxyAuthorization(proxy);
  return new ProxyAgent({
    ...agentOptions,
    uri: proxy.url,
    proxyTunnel: false,
    ...(token === undefined ? {} : { token }),
    ...(tls === undefined ? {} : { requestTls: tls, proxyTls: tls }),
  });
}

/**
 * The `tls.connect()` options for `settings`: one secure context, made now.
 * Node's `ca` replaces the roots it trusts by default, so the default ones
 * (the bundled roots, and `NODE_EXTRA_CA_CERTS` and the system's where Node
 * is told to use them) are given with the extra CAs: a private CA must not
 * make public sites untrusted. Given as options, they would be parsed again
 * for every connection (about 150 certificates: tens of milliseconds of
 * CPU each time); a context is parsed once and shared by the connections.
 * Settings OpenSSL refuses (a key that is not the certificate's) are a
 * `TypeError` at the first request, as Deno's `createHttpClient` gives.
 */
function tlsConnectOptions(settings: TlsSettings): Record<string, unknown> {
  const context: tls.SecureContextOptions = {};
  if (settings.caCerts !== undefined) {
    context.ca = [...defaultCaCerts(), ...settings.caCerts];
  }
  if (settings.cert !== undefined) {
    context.cert = settings.cert;
    context.key = settings.key;
  }
  try {
    return { secureContext: tls.createSecureContext(context) };
  } catch (error) {
    // OpenSSL's words name the problem ("key values mismatch"), never the key.
    const detail = error instanceof Error ? error.message : String(error);
    throw new TypeError(
      `Invalid tls: the certificate, key or CA certificates were refused: ${detail}`,
      { cause: error },
    );
  }
}

/**
 * The CA certificates Node trusts by default: `tls.getCACertificates()`
 * where Node has it (22.15, 23.5), else the bundled roots and the file
 * `NODE_EXTRA_CA_CERTS` names, which Node adds to them.
 */
function defaultCaCerts(): readonly string[] {
  const { getCACertificates } = tls as { getCACertificates?: (type: string) => string[] };
  if (getCACertificates !== undefined) return getCACertificates("default");
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra === undefined || extra === "") return tls.rootCertificates;
  try {
    return [...tls.rootCertificates, readFileSync(extra, "utf8")];
  } catch {
    // Node itself only warns when the file cannot be read.
    return tls.rootCertificates;
  }
}

/**
 * Opens a file as a source of its size now, opened and read only as it is
 * streamed (each stream reads it anew, so a retry sends it again). Not
 * `fs.openAsBlob`: Node's Blob reader leaves tens of MiB of chunks behind
 * for a large file. A file that is not a regular one (a pipe, a device) has
 * no size to trust: it is read whole now, and a directory fails as reading
 * it does.
 */
async function openFile(path: string): Promise<FileSource> {
  const info = await stat(path);
  if (!info.isFile()) return new Blob([await readFile(path)]);
  const size = info.size;
  return { size, stream: () => fileStream(path, size) };
}

/**
 * The bytes a file's stream reads at a time. A transport may keep a chunk
 * until it is on the wire, so each is a fresh buffer: garbage that V8
 * frees only at its next scavenge, which comes after so many chunks
 * whatever their size. Small chunks keep that garbage small: on Node 20 a
 * 1 GiB upload grows the process by 15–25 MiB with 8 KiB chunks, 25–36
 * with 16 KiB ones and 32–41 with 32 KiB ones, at some 500 MiB/s still.
 */
const FILE_CHUNK = 8 * 1024;

/**
 * The first `size` bytes of the file at `path` (its size when opened: the
 * Content-Length sent), read with a `FileHandle` in fresh chunks of
 * {@linkcode FILE_CHUNK} bytes only as they are pulled. The file is opened
 * on the first pull (a body never read opens nothing) and closed at the
 * end, on cancel and on a failed read.
 */
function fileStream(path: string, size: number): ReadableStream<Uint8Array> {
  let file: FileHandle | undefined;
  let position = 0;
  const close = () => {
    const handle = file;
    file = undefined;
    return handle?.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = new Uint8Array(Math.min(FILE_CHUNK, size - position));
        let read = 0;
        if (chunk.byteLength > 0) {
          file ??= await open(path, "r");
          read = (await file.read(chunk, 0, chunk.byteLength, position)).bytesRead;
        }
        if (read === 0) {
          await close();
          return controller.close();
        }
        position += read;
        controller.enqueue(read === chunk.byteLength ? chunk : chunk.subarray(0, read));
      } catch (error) {
        await close()?.catch(() => {});
        throw error;
      }
    },
    cancel: () => close(),
  }, { highWaterMark: 0 });
}

// The headers Node's fetch adds when a request has none of its own.
const FETCH_DEFAULTS: readonly (readonly [string, string])[] = [
  ["accept", "*/*"],
  ["accept-encoding", "gzip, deflate, br"],
  ["user-agent", "node"],
];

/**
 * Sends one request with undici's `dispatch()`, the layer under `request()`:
 * the handler ({@linkcode UndiciExchange}) feeds the body to the response's
 * stream itself instead of through a `Readable` per response, which took
 * about a third of undici's own CPU time per request.
 */
function send(
  route: (url: URL) => [Dispatcher, ProxySetting | undefined],
  wire: WireRequest,
  abort: Abort,
): Promise<WireResponse> {
  const exchange = new UndiciExchange(wire.method, abort);
  let proxy: ProxySetting | undefined;
  try {
    const url = new URL(wire.url);
    const [dispatcher, via] = route(url);
    proxy = via;
    const refused = via === undefined ? undefined : ownProxyAuthorization(via, wire.headers);
    if (refused !== undefined) return Promise.reject(refused);
    dispatcher.dispatch({
      origin: url.origin,
      path: url.pathname + url.search,
      method: wire.method as Dispatcher.HttpMethod,
      headers: withFetchDefaults(wire.headers, wire.bodyLength),
      body: bodyOf(wire.body),
    }, exchange);
  } catch (error) {
    return Promise.reject(error);
  }
  if (proxy === undefined) return exchange.head;
  const through = proxy;
  return exchange.head.catch((error) => {
    throw abort.aborted ? error : proxyFailure(through, error) ?? error;
  });
}

/**
 * The body as `dispatch()` takes it: a string or bytes as they are; a Blob
 * as it is too (undici reads it as a stream, with its size as the
 * Content-Length); a web `ReadableStream` as the async iterable it is, read
 * as it is sent (chunked, unless its length is known).
 */
function bodyOf(body: WireRequest["body"]): NonNullable<Dispatcher.DispatchOptions["body"]> | null {
  if (body === undefined) return null;
  return body as NonNullable<Dispatcher.DispatchOptions["body"]>;
}

/**
 * The headers as undici's flat `[name, value, ...]` list, fetch's defaults
 * added, and a stream body's known length as its Content-Length (undici
 * sends a stream with the length given, and fails a body of another length).
 */
function withFetchDefaults(
  headers: Readonly<Record<string, string>>,
  bodyLength: number | undefined,
): string[] {
  const flat: string[] = [];
  if (bodyLength !== undefined) flat.push("content-length", String(bodyLength));
  let given = 0;
  for (const name in headers) {
    flat.push(name, headers[name] as string);
    const lower = name.toLowerCase();
    for (let i = 0; i < FETCH_DEFAULTS.length; i++) {
      if ((FETCH_DEFAULTS[i] as readonly [string, string])[0] === lower) given |= 1 << i;
    }
  }
  FETCH_DEFAULTS.forEach(([name, value], i) => {
    if ((given & (1 << i)) === 0) flat.push(name, value);
  });
  return flat;
}
