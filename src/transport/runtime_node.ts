// The Node counterpart of `runtime.ts`: the npm build compiles this file in
// its place, so the npm package pools connections in an undici `Agent` and
// sends with undici's `dispatch()` (several times the throughput of fetch on
// Node), reads files with node:fs, and never branches on the runtime again.
// Like `runtime.ts`, it exports one `Runtime` as `runtime`. The undici is
// Node's own where it will do (`ownAgent()`), npm's, loaded on first use,
// where it will not.

import { readFileSync } from "node:fs";
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { createRequire } from "node:module";
import process from "node:process";
import { Readable, Transform } from "node:stream";
import type { TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import tls from "node:tls";
import zlib from "node:zlib";
import { open, readFile, stat } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import type { Agent, buildConnector, Dispatcher, ProxyAgent } from "undici";
import type { SocksClient } from "socks";
import { isIP } from "node:net";
import { once } from "node:events";
import diagnostics, { subscribe } from "node:diagnostics_channel";
import type { TransportPhases } from "../models/timings.ts";
import { ownProxyAuthorization, proxyAuthorization, proxyFailure, proxyFor } from "./proxy.ts";
import { type EnvProxies, readProxyEnv } from "./proxy_env.ts";
import { decodeFailure, headOverflow } from "./failures.ts";
import { checkedAddresses, destinationCheck, guardedTransport } from "./network_policy.ts";
import { hasNoBody, isZlibWrapped } from "./fetch.ts";
import { joinHeaders } from "../http/headers.ts";
import type {
  FileSource,
  NetworkOptions,
  NetworkPolicy,
  Pool,
  PoolOptions,
  ProxySetting,
  Runtime,
  TlsSettings,
  Transport,
  WireRequest,
  WireResponse,
} from "./types.ts";
import type { Abort } from "./types.ts";

/** An undici `Agent` per pool, and node:fs. */
export const runtime: Runtime = {
  pooled: true,
  files: true,
  createPool,
  openFile,
  diagnosticsChannel: () => diagnostics,
};

/** npm's undici, loaded by the first pool that needs it ({@linkcode createPool}). */
type Undici = typeof import("undici");
let undici: Undici | undefined;

/**
 * Creates a pool: an undici `Agent`. Deno's option names map to undici's
 * (`poolIdleTimeout` → `keepAliveTimeout`, `http2` → `allowH2`); other
 * options pass through to the Agent. undici's own headers and body timeouts
 * are off: the client's timeout covers the whole exchange. TLS settings go
 * into the Agent's `connect` options ({@linkcode tlsConnectOptions}).
 * Requests go through the proxy {@linkcode proxyFor} picks per request
 * (`withProxy()`, else the environment's, read now), each through an undici
 * `ProxyAgent` with the same options. A pool without options, TLS settings
 * or a proxy is an Agent of Node's own undici ({@linkcode ownAgent}); any
 * other loads npm's undici 8 now, before its first request's timeout starts
 * (npm's is CommonJS: `require()` loads it at once).
 */
function createPool(options: PoolOptions = {}, network: NetworkOptions = {}): Pool {
  const agentOptions = agentOptionsOf(options, network);
  const env: EnvProxies | undefined = network.proxy === undefined
    ? readProxyEnv((name) => process.env[name])
    : undefined;
  const { policy } = network;
  const plain = Object.keys(options).length === 0 && network.tls === undefined &&
    policy === undefined && network.unixSocket === undefined &&
    (network.proxy ?? env?.http ?? env?.https) == null;
  const own = plain ? ownAgent(agentOptions) : undefined;
  if (own !== undefined) {
    return {
      transport: (wire, abort) => send(() => [own, undefined], wire, abort),
      close: () => void own.destroy().catch(() => {}),
    };
  }
  const { Agent } = undici ??= createRequire(import.meta.url)("undici") as Undici;
  const agent = new Agent(agentOptions);
  const proxied = new Map<ProxySetting, Dispatcher>();
  const route = (url: URL): [Dispatcher, ProxySetting | undefined] => {
    const proxy = proxyFor(url, network.proxy, env);
    if (proxy === undefined) return [agent, undefined];
    let dispatcher = proxied.get(proxy);
    if (dispatcher === undefined) {
      dispatcher = proxy.url.startsWith("socks5")
        ? socksAgent(proxy, agentOptions)
        : proxyAgent(proxy, agentOptions);
      proxied.set(proxy, dispatcher);
    }
    return [dispatcher, proxy];
  };
  const transport: Transport = (wire, abort) => send(route, wire, abort);
  return {
    transport: policy === undefined ? transport : guardedTransport(policy, transport),
    // The resolver of the pool's lookup (policyLookup): the addresses checked are those it would connect to.
    checkDestination: policy === undefined ? undefined : destinationCheck(policy, systemLookup),
    close: () => {
      for (const dispatcher of [agent, ...proxied.values()]) {
        void dispatcher.destroy().catch(() => {});
      }
    },
  };
}

/**
 * An Agent of the undici Node's own `fetch` is built on, already loaded
 * with the package (its `Response` is that undici's), for a pool with no
 * settings of its own: npm's undici costs a one-shot script more than its
 * request (bench:one-shot, one GET against `fetch` + `AbortSignal.timeout`:
 * 2.41x on Node 22 and 2.23x on Node 24 with npm's undici imported, 1.41x
 * and 1.50x with Node's, in the same session). Its class is its global dispatcher's, unless one of another kind
 * was set (npm's undici 8, a proxy agent, a mock): then `undefined`, and
 * the pool takes npm's. HTTP/2 over TLS where Node's undici offers it as
 * stable (7, Node 24); undici 6 (Node 22) has it as an experiment, with a
 * warning: HTTP/1.1 there. undici 6 also makes only the handler calls of
 * its own API ({@linkcode Undici6Handler}).
 */
function ownAgent(agentOptions: Agent.Options): Dispatcher | undefined {
  void globalThis.Response; // Node's undici, which sets its global dispatcher as it loads.
  const global = (globalThis as Record<symbol, unknown>)[Symbol.for("undici.globalDispatcher.1")];
  const Own = (global as { constructor?: unknown } | undefined)?.constructor;
  if (typeof Own !== "function" || Own.name !== "Agent") return undefined;
  const allowH2 = Number(process.versions.undici?.split(".")[0]) >= 7;
  const own = new (Own as typeof Agent)({ ...agentOptions, allowH2 });
  return {
    dispatch: (options, handler) => own.dispatch(options, new Undici6Handler(handler)),
    destroy: () => own.destroy(),
  } as Dispatcher;
}

/**
 * A handler of undici 7's API (`onRequestStart`…) that takes undici 6's
 * calls (`onConnect`…) too, for an Agent of Node's own undici: undici 6
 * (Node 22's) makes only those calls, undici 7 and later (Node 24's) only
 * the others, passed on as they are.
 */
class Undici6Handler implements Dispatcher.DispatchHandler {
  readonly #handler: Dispatcher.DispatchHandler;
  /** What undici 6's calls give, as the controller undici 7 gives (the exchange uses these three). */
  readonly #controller = {
    paused: false,
    abort: (_: Error): void => {},
    resumeExchange: (): void => {},
    pause() {
      this.paused = true;
    },
    resume() {
      if (!this.paused) return;
      this.paused = false;
      this.resumeExchange();
    },
  };

  constructor(handler: Dispatcher.DispatchHandler) {
    this.#handler = handler;
  }

  get #asController(): Dispatcher.DispatchController {
    return this.#controller as unknown as Dispatcher.DispatchController;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: object): void {
    this.#handler.onRequestStart?.(controller, context);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    message: string,
  ): void {
    this.#handler.onResponseStart?.(controller, status, headers, message);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Record<string, string>): void {
    this.#handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.#handler.onResponseError?.(controller, error);
  }

  // undici 6's calls.

  onConnect(abort: (reason: Error) => void): void {
    this.#controller.abort = abort;
    this.onRequestStart(this.#asController, {});
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void, message: string): boolean {
    this.#controller.resumeExchange = resume;
    const headers: Record<string, string | string[]> = Object.create(null);
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = (raw[i] as Buffer).toString("latin1").toLowerCase();
      const value = (raw[i + 1] as Buffer).toString("latin1");
      const given = headers[name];
      headers[name] = given === undefined ? value : [given, value].flat();
    }
    this.onResponseStart(this.#asController, status, headers, message);
    return !this.#controller.paused;
  }

  onData(chunk: Buffer): boolean {
    this.onResponseData(this.#asController, chunk);
    return !this.#controller.paused;
  }

  onComplete(): void {
    this.onResponseEnd(this.#asController, {});
  }

  onError(error: Error): void {
    this.onResponseError(this.#asController, error);
  }
}

/** Deno's pool option names mapped to undici's Agent options, with the TLS settings. */
function agentOptionsOf(options: PoolOptions, network: NetworkOptions): Agent.Options {
  const { poolIdleTimeout, poolMaxIdlePerHost: _, http1: __, http2, ...rest } = options;
  const agentOptions: Agent.Options = { headersTimeout: 0, bodyTimeout: 0, ...rest };
  if (network.tls !== undefined) {
    agentOptions.connect = { ...agentOptions.connect, ...tlsConnectOptions(network.tls) };
  }
  if (network.policy !== undefined) {
    agentOptions.connect = { ...agentOptions.connect, lookup: policyLookup(network.policy) };
  }
  if (network.unixSocket !== undefined) {
    agentOptions.connect = { ...agentOptions.connect, socketPath: network.unixSocket };
  }
  if (typeof poolIdleTimeout === "number") agentOptions.keepAliveTimeout = poolIdleTimeout;
  if (poolIdleTimeout === false) agentOptions.keepAliveMaxTimeout = 2 ** 31 - 1;
  if (http2 !== undefined) agentOptions.allowH2 = http2;
  return agentOptions;
}

/** What `net.connect()` hands its `lookup`, and what it takes back. */
type LookupCallback = (
  error: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/** A name's addresses from the system's resolver (`dns.lookup()`, as Node's own connections). */
async function systemLookup(hostname: string): Promise<string[]> {
  return (await dnsLookup(hostname, { all: true, order: "verbatim" })).map((entry) =>
    entry.address
  );
}

/**
 * The `lookup` of a pool with a network policy, which `net.connect()` calls
 * for each new connection to a host name: it resolves the name once (the
 * policy's `resolve`, else `dns.lookup()`, the system's resolver, as Node's
 * own), checks every answer, and hands back only the allowed ones, so the
 * socket connects to an address the policy checked and never looks the
 * name up again. No cache of its own: `dns.lookup()` tells no TTL, and a
 * connection kept alive is reused without a lookup.
 */
function policyLookup(policy: NetworkPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const done = callback as LookupCallback;
    checkedAddresses(policy, hostname, systemLookup).then((addresses) => {
      const asked = options.family;
      const family = asked === 4 || asked === "IPv4" ? 4 : asked === 6 || asked === "IPv6" ? 6 : 0;
      const entries = addresses.map((address) => ({
        address,
        family: address.includes(":") ? 6 : 4,
      })).filter((entry) => family === 0 || entry.family === family);
      const first = entries[0];
      if (first === undefined) {
        const error = Object.assign(new Error(`No IPv${family} address for ${hostname}`), {
          code: "ENOTFOUND",
        });
        done(error, "");
      } else if (options.all) done(null, entries);
      else done(null, first.address, first.family);
    }, (error: Error) => done(error, ""));
  };
}

/**
 * An undici `ProxyAgent` for `proxy`: http targets forwarded in absolute
 * form (no tunnel), https targets tunnelled with CONNECT, the pool's TLS
 * options (`connect`) applying to the target through the tunnel and to an
 * https proxy.
 */
function proxyAgent(proxy: ProxySetting, agentOptions: Agent.Options): ProxyAgent {
  const { ProxyAgent } = undici as Undici;
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
 * An undici `Agent` whose connections go through the SOCKS5 proxy `proxy`
 * (the `socks` package: undici's own `Socks5ProxyAgent` is experimental,
 * prints a warning in every process that uses it, and always sends the host
 * name). As curl, `socks5://` resolves the host here (`dns.lookup()`, as
 * Node's own connections do) and sends the proxy its address; `socks5h://`
 * sends the proxy the name. https is TLS through the tunnel, the
 * certificate checked for the URL's host with the pool's TLS settings. The
 * proxy's handshake and the TLS handshake each end within undici's connect
 * timeout (10 s), as a direct connection's do.
 */
function socksAgent(proxy: ProxySetting, agentOptions: Agent.Options): Agent {
  const { Agent } = undici as Undici;
  const { SocksClient: Socks } = createRequire(import.meta.url)("socks") as {
    SocksClient: typeof SocksClient;
  };
  const url = new URL(proxy.url);
  const remote = url.protocol === "socks5h:";
  const tlsOptions = agentOptions.connect as tls.ConnectionOptions | undefined;
  const connect = async (options: buildConnector.Options) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80);
    const { socket } = await Socks.createConnection({
      proxy: {
        host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: Number(url.port) || 1080,
        type: 5,
        ...(proxy.credentials === undefined
          ? {}
          : { userId: proxy.credentials.username, password: proxy.credentials.password }),
      },
      command: "connect",
      destination: {
        host: remote || isIP(host) !== 0 ? host : (await dnsLookup(host)).address,
        port,
      },
      timeout: CONNECT_TIMEOUT_MS,
    });
    if (options.protocol !== "https:") return socket;
    const secure = tls.connect({
      ...tlsOptions,
      socket,
      host,
      ...(isIP(host) === 0 ? { servername: options.servername ?? host } : {}),
    });
    const timer = setTimeout(() => secure.destroy(tlsTimeout(host, port)), CONNECT_TIMEOUT_MS);
    try {
      await once(secure, "secureConnect");
    } finally {
      clearTimeout(timer);
    }
    return secure;
  };
  return new Agent({
    ...agentOptions,
    connect: (options, callback) =>
      void connect(options).then(
        (socket) => callback(null, socket),
        (error) => callback(error, null),
      ),
  });
}

/** undici's connect timeout, which a connection through a SOCKS5 proxy keeps too. */
const CONNECT_TIMEOUT_MS = 10_000;

function tlsTimeout(host: string, port: number): Error {
  return Object.assign(
    new Error(`TLS handshake with ${host}:${port} timed out after ${CONNECT_TIMEOUT_MS} ms`),
    { code: "UND_ERR_CONNECT_TIMEOUT" },
  );
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
    dispatching = exchange;
    dispatcher.dispatch({
      origin: url.origin,
      path: url.pathname + url.search,
      method: wire.method as Dispatcher.HttpMethod,
      headers: withFetchDefaults(wire.headers, wire.bodyLength),
      body: bodyOf(wire.body),
    }, exchange);
  } catch (error) {
    return Promise.reject(error);
  } finally {
    dispatching = undefined;
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

// The phases of an exchange, from undici's diagnostics channels (Node's own
// undici and npm's publish on the same ones): the connection's setup (from
// `beforeConnect` to `connected`: the lookup, TCP and TLS together, as undici
// tells no step between), whether the request went on a kept connection,
// the send (`sendHeaders` to `bodySent`) and the wait for the head. undici
// creates its request in `dispatch()` itself, so the exchange being
// dispatched is the one its `request:create` names. A request that is not
// this transport's (the process's own `fetch`) is not followed.

/** The exchange `dispatch()` is creating a request for, during the call only. */
let dispatching: UndiciExchange | undefined;
/** undici's requests of this transport's exchanges. */
const EXCHANGES = new WeakMap<object, UndiciExchange>();
/** A new connection's setup, in milliseconds, until its first request is sent on it. */
const NEW_SOCKETS = new WeakMap<object, number>();
/** When the connections being set up to an origin began, in order. */
const CONNECTING = new Map<string, number[]>();

interface UndiciConnect {
  readonly connectParams: { protocol: string; hostname: string; port: string | number };
  readonly socket?: object;
}

function originOf({ connectParams: { protocol, hostname, port } }: UndiciConnect): string {
  return `${protocol}//${hostname}:${port}`;
}

/** The oldest connection begun to the origin of `message`, now set up or failed. */
function connectStarted(message: UndiciConnect): number | undefined {
  const origin = originOf(message);
  const started = CONNECTING.get(origin);
  const start = started?.shift();
  if (started?.length === 0) CONNECTING.delete(origin);
  return start;
}

subscribe("undici:request:create", (message) => {
  if (dispatching !== undefined) {
    EXCHANGES.set((message as { request: object }).request, dispatching);
  }
});
subscribe("undici:client:beforeConnect", (message) => {
  const origin = originOf(message as UndiciConnect);
  const started = CONNECTING.get(origin);
  if (started === undefined) CONNECTING.set(origin, [performance.now()]);
  else if (started.length < 1024) started.push(performance.now());
});
subscribe("undici:client:connectError", (message) => void connectStarted(message as UndiciConnect));
subscribe("undici:client:connected", (message) => {
  const start = connectStarted(message as UndiciConnect);
  const { socket } = message as UndiciConnect;
  if (start !== undefined && socket !== undefined) {
    NEW_SOCKETS.set(socket, performance.now() - start);
  }
});
subscribe("undici:client:sendHeaders", (message) => {
  const { request, socket } = message as { request: object; socket: object };
  const exchange = EXCHANGES.get(request);
  if (exchange === undefined) return;
  const connectMs = NEW_SOCKETS.get(socket);
  if (connectMs !== undefined) NEW_SOCKETS.delete(socket);
  exchange.sending(performance.now(), connectMs);
});
subscribe("undici:request:bodySent", (message) => {
  EXCHANGES.get((message as { request: object }).request)?.sent(performance.now());
});

// One exchange of the npm build's transport as undici's `dispatch()` handler
// (under `request()`, without its `Readable` per response). It resolves at
// the response head, then feeds the body, decoded by Node's zlib when
// encoded, into a byte stream made when `body` is first asked for. Chunks
// that come before a reader are held as they came; undici is paused while
// enough unread bytes wait.

/**
 * What an exchange is aborted with: undici's `RequestAbortedError` (code
 * `UND_ERR_ABORTED`), here whichever undici sends.
 */
class RequestAbortedError extends Error {
  override name = "AbortError";
  readonly code = "UND_ERR_ABORTED";
  constructor() {
    super("Request aborted");
  }
}
const errors = { RequestAbortedError };

/**
 * A chunk as a plain `Uint8Array` over the same memory (undici and zlib give
 * Buffers, each its own), as a body's chunks are on every runtime: kept, not copied.
 */
function plain(chunk: Uint8Array): Uint8Array {
  return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** How much of a discarded body is read before the connection is dropped instead (as undici's `dump()`). */
const DISCARD_LIMIT = 128 * 1024;
/** The unread bytes held (in the stream, or before a reader comes) before undici is paused. */
const HIGH_WATER = 64 * 1024;

/**
 * One exchange as undici's dispatch handler, and its response once the head
 * has arrived ({@linkcode UndiciExchange.head}). Aborting the step aborts the
 * exchange, even while it waits for a connection.
 */
class UndiciExchange implements Dispatcher.DispatchHandler, WireResponse {
  status = 0;
  headers: Record<string, string> = {};
  location: string | null = null;
  /** Resolves with this once the response head has arrived. */
  readonly head: Promise<WireResponse>;
  readonly #method: string;
  readonly #abort: Abort;
  #resolveHead!: (response: WireResponse) => void;
  #rejectHead!: (error: unknown) => void;
  #started = false;
  #controller: Dispatcher.DispatchController | undefined;
  /** False for HEAD, 204, 205 and 304. */
  #hasBody = false;
  /** The body stream, once asked for (`null`: none). */
  #body: ReadableStream<Uint8Array> | null | undefined = undefined;
  /** The body stream's controller. */
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Decoded chunks that came before a reader, and their size. */
  #held: Uint8Array[] | undefined;
  #heldSize = 0;
  /** The decoded body is complete, or failed with `#error`. */
  #complete = false;
  #error: unknown = undefined;
  /** The encoded body, for the decoders. */
  #encoded: Readable | undefined;
  /** Resumes the decoders once the reader wants more. */
  #drained: (() => void) | undefined;
  /** Bytes received (before decoding). */
  #received = 0;
  /** The Content-Length, or NaN. */
  #length = NaN;
  #paused = false;
  #ended = false;
  #failed = false;
  /** The reader gave up the body: what comes is discarded. */
  #cancelled = false;
  /** The phases undici's channels told, once its head is sent; when the request was sent. */
  timings: TransportPhases | undefined = undefined;
  #sendingAt = NaN;
  #sentAt = NaN;

  /** undici is sending the head at `now`, on a new connection set up in `connectMs`, or a kept one. */
  sending(now: number, connectMs: number | undefined): void {
    this.#sendingAt = now;
    this.timings = connectMs === undefined ? { reused: true } : { connectMs, reused: false };
  }

  /** undici sent the whole request at `now`. */
  sent(now: number): void {
    this.#sentAt = now;
    if (this.timings !== undefined) this.timings.sendMs = now - this.#sendingAt;
  }

  constructor(method: string, abort: Abort) {
    this.#method = method;
    this.#abort = abort;
    this.head = new Promise((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
    abort.onAbort(this.#onAbort);
  }

  readonly #onAbort = (): void => {
    const reason = new errors.RequestAbortedError();
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.onResponseError(undefined, reason);
  };

  /** undici's: the request is on its way; aborts it when the step already has. */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abort.aborted || this.#failed) controller.abort(new errors.RequestAbortedError());
  }

  /** undici's: the response head (a 1xx is informational: the response is still to come). */
  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return;
    if (this.timings !== undefined && !Number.isNaN(this.#sentAt)) {
      this.timings.waitMs = performance.now() - this.#sentAt;
    }
    this.status = statusCode;
    this.headers = joinHeaders(headers);
    this.location = this.headers["location"] ?? null;
    this.#started = true;
    this.#length = Number(this.headers["content-length"]);
    const method = this.#method;
    if (!hasNoBody(method, statusCode)) {
      this.#hasBody = true;
      this.#encoded = startDecoding(method, statusCode, this.headers["content-encoding"], {
        resume: () => this.#resume(),
        deliver: this.#deliver,
        finish: this.#finish,
        fail: this.#decodeFailed,
      });
    }
    this.#resolveHead(this);
  }

  /** undici's: a chunk of the body. */
  onResponseData(controller: Dispatcher.DispatchController, chunk: Uint8Array): void {
    this.#received += chunk.byteLength;
    if (this.#cancelled) {
      if (this.#received > DISCARD_LIMIT) controller.abort(new errors.RequestAbortedError());
    } else if (this.#encoded !== undefined) {
      if (!this.#encoded.push(chunk)) this.#pause();
    } else if (this.#deliver(chunk) !== undefined) {
      this.#pause();
    }
  }

  /** undici's: the body is complete. */
  onResponseEnd(): void {
    this.#ended = true;
    if (this.#encoded !== undefined) this.#encoded.push(null);
    else this.#finish();
  }

  /** undici's: the exchange failed, before the head or during the body. */
  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: unknown): void {
    if (this.#failed || this.#ended) return;
    this.#failed = true;
    this.#abort.offAbort(this.#onAbort);
    if (!this.#started) this.#rejectHead(headOverflow(error) ?? error);
    else if (this.#encoded !== undefined) this.#encoded.destroy(error as Error);
    else this.#fail(error);
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) {
      this.#body = this.#hasBody
        ? new ReadableStream<Uint8Array>({
          start: this.#open,
          pull: this.#pull,
          cancel: this.#cancel,
        }, { highWaterMark: HIGH_WATER, size: (chunk) => chunk.byteLength })
        : null;
    }
    return this.#body;
  }

  /** The stream starts with the chunks held, and the end or failure when they came. */
  readonly #open = (stream: ReadableStreamDefaultController<Uint8Array>): void => {
    this.#stream = stream;
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) { for (const chunk of held) stream.enqueue(plain(chunk)); }
    if (!this.#complete) return;
    if (this.#error === undefined) stream.close();
    else stream.error(this.#error);
  };

  /**
   * Hands a decoded `chunk` to the reader, or holds it until one comes. A
   * promise, which resolves when the reader wants more, when it is full.
   */
  readonly #deliver = (chunk: Uint8Array): Promise<void> | undefined => {
    if (this.#cancelled) return undefined;
    if (this.#stream === undefined) {
      (this.#held ??= []).push(chunk);
      this.#heldSize += chunk.byteLength;
      if (this.#heldSize < HIGH_WATER) return undefined;
    } else {
      this.#stream.enqueue(plain(chunk));
      if ((this.#stream.desiredSize ?? 0) > 0) return undefined;
    }
    return new Promise((resolve) => this.#drained = resolve);
  };

  /** The reader wants more. */
  readonly #pull = (): void => {
    const drained = this.#drained;
    this.#drained = undefined;
    drained?.();
    if (this.#encoded === undefined) this.#resume();
  };

  /** Cancelled with no reason, the body is discarded: up to {@linkcode DISCARD_LIMIT} bytes are read to keep the connection. */
  readonly #cancel = (reason: unknown): void => {
    this.#cancelled = true;
    this.#held = undefined;
    this.#encoded?.destroy();
    this.#pull();
    this.#resume();
    if (this.#ended || this.#failed) return;
    if (reason !== undefined || this.#received > DISCARD_LIMIT) {
      this.#controller?.abort(new errors.RequestAbortedError());
    }
  };

  /**
   * Pauses undici, except after the last byte of a body of known length:
   * paused there, a server's close (without `Connection: close`) would end
   * the socket before undici has seen the message complete.
   */
  #pause(): void {
    if (this.#paused || this.#received >= this.#length) return;
    this.#paused = true;
    this.#controller?.pause();
  }

  #resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#controller?.resume();
  }

  /** The decoded body is complete. */
  readonly #finish = (): void => {
    if (this.#complete || this.#cancelled) return;
    this.#complete = true;
    this.#stream?.close();
  };

  /** The decoded body failed with `error`. */
  #fail(error: unknown): void {
    if (this.#complete || this.#cancelled) return;
    this.#complete = true;
    this.#error = error;
    this.#held = undefined;
    this.#stream?.error(error);
  }

  /**
   * The decoders failed: when the exchange itself did not (a cut connection
   * fails it first), they rejected the bytes, and the rest of the body is not
   * worth reading.
   */
  readonly #decodeFailed = (error: unknown): void => {
    if (this.#cancelled) return;
    if (!this.#failed) {
      this.#controller?.abort(new errors.RequestAbortedError());
      error = decodeFailure(this.headers["content-encoding"]?.trim() ?? "", error);
    }
    this.#fail(error);
  };
}

// The decoders of the npm build's transport (`UndiciExchange`): Node's
// zlib for each Content-Encoding, as fetch decodes them.

/**
 * Pipes `encoded` through `decoders` into `deliver`, which returns a promise
 * while the reader of the decoded bytes wants no more. Rejects with the
 * first stream's error.
 */
async function pipeDecoded(
  encoded: Readable,
  decoders: Transform[],
  deliver: (chunk: Uint8Array) => Promise<void> | undefined,
): Promise<void> {
  await chain(encoded, ...decoders, async (decoded: AsyncIterable<Uint8Array>) => {
    for await (const chunk of decoded) {
      const full = deliver(chunk);
      if (full !== undefined) await full;
    }
  });
}

/** What {@linkcode startDecoding} calls back. */
interface DecodingCallbacks {
  /** The decoders want more encoded bytes. */
  resume(): void;
  /** A decoded chunk; a promise while the reader wants no more. */
  deliver(chunk: Uint8Array): Promise<void> | undefined;
  /** The whole body was decoded. */
  finish(): void;
  /** The decoders, or the encoded stream, failed. */
  fail(error: unknown): void;
}

/**
 * Starts decoding a body of `encoding`: the `Readable` to push its encoded
 * chunks into, or `undefined` when it needs no decoding (see
 * {@linkcode decodersFor}).
 */
function startDecoding(
  method: string,
  status: number,
  encoding: string | undefined,
  callbacks: DecodingCallbacks,
): Readable | undefined {
  const decoders = decodersFor(method, status, encoding);
  if (decoders.length === 0) return undefined;
  const encoded = new Readable({ read: () => callbacks.resume() });
  pipeDecoded(encoded, decoders, callbacks.deliver).then(callbacks.finish, callbacks.fail);
  return encoded;
}

// Node's typings have no overload for a spread of transforms before a sink.
const chain = pipeline as (...stages: unknown[]) => Promise<void>;

/**
 * The decoders for a Content-Encoding, applied in reverse order of the
 * codings, as fetch does: none for HEAD, 204, 205 and 304, none at all when
 * one coding is unknown (the body is then returned as received).
 */
function decodersFor(
  method: string,
  status: number,
  encoding: string | undefined,
): Transform[] {
  if (encoding === undefined || method === "HEAD") return [];
  if (status === 204 || status === 205 || status === 304) return [];
  const decoders: Transform[] = [];
  for (const coding of encoding.toLowerCase().split(",").reverse()) {
    const decoder = decoderFor(coding.trim());
    if (decoder === undefined) return [];
    decoders.push(decoder);
  }
  return decoders;
}

// Lenient about a missing end of stream, as fetch is.
const ZLIB_OPTIONS = {
  flush: zlib.constants.Z_SYNC_FLUSH,
  finishFlush: zlib.constants.Z_SYNC_FLUSH,
};
const BROTLI_OPTIONS = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

function decoderFor(coding: string): Transform | undefined {
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(ZLIB_OPTIONS);
    case "deflate":
      return new DeflateDecoder();
    case "br":
      return zlib.createBrotliDecompress(BROTLI_OPTIONS);
    default:
      return undefined;
  }
}

/**
 * Inflates "deflate", zlib-wrapped or raw as some servers send it: the first
 * byte tells ({@linkcode isZlibWrapped}).
 */
class DeflateDecoder extends Transform {
  #inflate: zlib.Inflate | zlib.InflateRaw | undefined;

  override _transform(chunk: Uint8Array, _: BufferEncoding, done: TransformCallback): void {
    if (this.#inflate === undefined) {
      if (chunk.byteLength === 0) return done();
      const inflate = isZlibWrapped(chunk[0] as number)
        ? zlib.createInflate(ZLIB_OPTIONS)
        : zlib.createInflateRaw(ZLIB_OPTIONS);
      inflate.on("data", (data: Uint8Array) => this.push(data));
      inflate.on("error", (error: Error) => this.destroy(error));
      this.#inflate = inflate;
    }
    this.#inflate.write(chunk, done);
  }

  override _flush(done: TransformCallback): void {
    if (this.#inflate === undefined) return done();
    this.#inflate.once("end", () => done());
    this.#inflate.end();
  }
}
