// The one module that knows which runtime it runs on: Deno's pool (and,
// below, its proxies), Bun's files, the global `fetch` elsewhere. Everything
// else asks it for a connection pool or a file's bytes and never branches
// itself. The npm build compiles `runtime_node.ts` in its place (undici and
// node:fs), its browser build `runtime_browser.ts` (no pool, no proxies);
// this file imports no `node:` module.

import { HttpClientException } from "../errors.ts";
import { fetchTransport, globalFetchPool } from "./fetch.ts";
import { inIpRange, parseIp } from "./addresses.ts";
import {
  ownProxyAuthorization,
  PROXY_ENV_NAMES,
  proxyFailure,
  proxyFor,
  readProxyEnv,
  shownProxy,
} from "./proxy.ts";
import type { EnvProxies } from "./proxy.ts";
import { uploadReader } from "./body.ts";
import { BlockedFailure, Failure, noFileSystem } from "./failures.ts";
import type { DenoNet, Relay } from "./deno_relay.ts";
import type {
  FileSource,
  NetworkOptions,
  NetworkPolicy,
  Pool,
  PoolOptions,
  ProxySetting,
  Runtime,
  Transport,
  WireRequest,
  WireResponse,
} from "./types.ts";
import type { Abort } from "./types.ts";

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
};

/**
 * Creates a pool: a `Deno.HttpClient` on Deno, the global `fetch` elsewhere
 * (where the builder has refused network settings). Deno trusts `caCerts`
 * in addition to its root store, as `withTls` promises. Without
 * `withProxy()`, Deno's client applies the environment's proxies itself,
 * and their failures are named as the proxy's where the environment can be
 * read ({@linkcode denoEnvProxyTransport}).
 */
function createPool(options: PoolOptions = {}, network: NetworkOptions = {}): Pool {
  if (deno === undefined) return globalFetchPool(network);
  const pooled = { ...options, ...network.tls };
  if (network.unixSocket !== undefined) {
    const [transport, client] = denoClient(deno, {
      ...pooled,
      proxy: { transport: "unix", path: network.unixSocket },
    });
    return { transport, close: () => client.close() };
  }
  if (network.policy !== undefined) return pinnedPool(deno, pooled, network.policy);
  if (network.proxy === null && !envHasNoProxies(deno)) return pinnedPool(deno, pooled, undefined);
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

// Proxies on Deno: `withProxy()` and the environment's. Deno's HTTP client
// reads HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY itself, with or
// without `--allow-env`, and no option turns that off: its environment
// proxies apply to every host its NO_PROXY does not name, and its NO_PROXY
// overrides even a client's own proxy. So a pool with `withProxy()` reads
// those variables too and fails a request Deno would route otherwise than
// the setting says, rather than let it go through a proxy it should not use,
// or around the one it should. Without `withProxy()`, a call through the
// environment's proxy fails as one through `withProxy()` does, naming the
// proxy, where the pool may read those variables.

/** What of Deno the proxy pool uses besides `createHttpClient`. */
interface DenoEnv {
  env: { get(name: string): string | undefined };
  permissions: { querySync(descriptor: { name: "env"; variable: string }): { state: string } };
}

interface DenoClients extends DenoEnv {
  createHttpClient(options: PoolOptions): { close(): void };
}

// Every variable Deno's client reads: REQUEST_METHOD turns HTTP_PROXY off.
const NAMES = [...PROXY_ENV_NAMES, "REQUEST_METHOD"];

/**
 * A pool for `withProxy(setting)` (`null`: no proxy): a `Deno.HttpClient`
 * through the proxy and one for the hosts reached directly, each made when
 * first needed. The environment is read now, which needs `--allow-env` for
 * its proxy variables (an {@linkcode HttpClientException} naming the flag
 * otherwise; it is never asked for with a prompt).
 */
function denoProxyTransport(
  deno: DenoClients,
  options: PoolOptions,
  setting: ProxySetting | null,
): Pool {
  const env = readDenoEnv(deno);
  const sends = new Map<ProxySetting | undefined, [Transport, { close(): void }]>();
  const sendFor = (proxy: ProxySetting | undefined): Transport => {
    let entry = sends.get(proxy);
    if (entry === undefined) {
      entry = denoClient(
        deno,
        proxy === undefined ? options : {
          ...options,
          proxy: { url: proxy.url, ...basicAuth(proxy) },
        },
      );
      sends.set(proxy, entry);
    }
    return entry[0];
  };
  return {
    transport(wire, abort) {
      const url = new URL(wire.url);
      const proxy = proxyFor(url, setting, undefined);
      const conflict = denoConflict(url, proxy, env) ??
        (proxy === undefined ? undefined : ownProxyAuthorization(proxy, wire.headers));
      if (conflict !== undefined) return Promise.reject(conflict);
      const sent = sendFor(proxy)(wire, abort);
      return proxy === undefined ? sent : throughProxy(proxy, url, sent, abort);
    },
    close: () => sends.forEach(([, client]) => client.close()),
  };
}

/**
 * The pool without `withProxy()`: one `Deno.HttpClient`, which sends
 * through the environment's proxies itself. Where the environment can be
 * read (`--allow-env` for its proxy variables; never asked for with a
 * prompt), a call Deno's client sends through one of them fails as a
 * `withProxy()` call does, naming the proxy, rather than as the target's
 * failure; otherwise Deno's errors stay as they are.
 */
function denoEnvProxyTransport(deno: DenoClients, options: PoolOptions): Pool {
  const [send, client] = denoClient(deno, options);
  const close = () => client.close();
  const env = envGranted(deno) ? envOrUndefined(deno) : undefined;
  if (env === undefined || (env.http === undefined && env.https === undefined)) {
    return { transport: send, close };
  }
  return {
    transport(wire, abort) {
      const url = new URL(wire.url);
      const proxy = denoEnvProxy(env, url);
      if (proxy === undefined) return send(wire, abort);
      const refused = ownProxyAuthorization(proxy, wire.headers);
      return refused !== undefined
        ? Promise.reject(refused)
        : throughProxy(proxy, url, send(wire, abort), abort);
    },
    close,
  };
}

/**
 * A pool whose connections go where the library says, through a relay of
 * its own (deno_relay.ts): each to an address `policy` checked, or, without
 * a policy, straight to the target whatever the environment's proxies say
 * (`withProxy(null)`). The relay starts with the first request that needs
 * it and ends with the pool. A failure the relay met connecting (the
 * policy's refusal, a refused connection, an unknown host) is thrown in
 * place of Deno's client's words for it. A host the environment's NO_PROXY
 * names Deno's client reaches directly, resolving it itself: under a policy
 * that is refused for a host name (its address could not be checked, nor
 * the policy's `resolve` asked for it), and
 * the policy reads NO_PROXY for it (`--allow-env=NO_PROXY,no_proxy`).
 * The relay and the policy's checks load with the pool's first request
 * (or check): a client without either loads neither.
 */
function pinnedPool(deno: DenoApi, options: PoolOptions, policy: NetworkPolicy | undefined): Pool {
  const noProxy = policy === undefined ? "" : readNoProxy(deno);
  let relay: Relay | undefined;
  const clients: Partial<Record<"http" | "https" | "direct", [Transport, { close(): void }]>> = {};
  const client = (kind: "http" | "https" | "direct", through?: Relay) =>
    (clients[kind] ??= denoClient(deno, {
      ...options,
      ...(kind === "http" ? { poolMaxIdlePerHost: 0 } : {}),
      ...(through === undefined
        ? {}
        : { proxy: { url: `http://127.0.0.1:${through.port}`, basicAuth: through.credentials } }),
    }))[0];
  let closed = false;
  const send = (
    { Relay, targetKey, urlRefusal }: PinningParts,
    wire: WireRequest,
    abort: Abort,
  ) => {
    const url = new URL(wire.url);
    if (policy !== undefined) {
      const refused = urlRefusal(policy, url);
      if (refused instanceof BlockedFailure) return Promise.reject(refused);
      if (denoBypasses(noProxy, url)) {
        return refused === undefined
          ? client("direct")(wire, abort)
          : Promise.reject(noProxyConflict(url, policy.resolve !== undefined));
      }
    }
    // A request whose parts loaded after the close (its call is aborted too): no relay left behind.
    if (closed) return Promise.reject(new TypeError("The connection pool is closed"));
    const through = relay ??= new Relay(deno, policy);
    const secure = url.protocol === "https:";
    const key = targetKey(url.hostname, url.port || (secure ? 443 : 80));
    const mark = through.sequence;
    return client(secure ? "https" : "http", through)(wire, abort).catch((error) => {
      throw abort.aborted ? error : through.failureSince(key, mark) ?? error;
    });
  };
  return {
    transport: (wire, abort) =>
      pinningParts === undefined
        ? loadPinningParts().then((parts) => send(parts, wire, abort))
        : send(pinningParts, wire, abort),
    close() {
      closed = true;
      for (const entry of Object.values(clients)) entry[1].close();
      relay?.close();
    },
    // The relay's resolver: the addresses checked are those it would connect to.
    checkDestination: policy === undefined ? undefined : (url, abort) => {
      const check = ({ destinationCheck, resolveDns }: PinningParts) =>
        destinationCheck(policy, (name, signal) => resolveDns(deno, name, signal))(url, abort);
      return pinningParts === undefined ? loadPinningParts().then(check) : check(pinningParts);
    },
  };
}

/** What {@linkcode pinnedPool} loads with its first request: the relay and the policy's checks. */
type PinningParts =
  & Pick<typeof import("./deno_relay.ts"), "Relay" | "resolveDns" | "targetKey">
  & Pick<typeof import("./network_policy.ts"), "destinationCheck" | "urlRefusal">;

let pinningParts: PinningParts | undefined;

// Loaded when first needed: they are 416 of the lines `import` of mod.ts
// would otherwise load on Deno for every client.
async function loadPinningParts(): Promise<PinningParts> {
  const [relay, policy] = await Promise.all([
    import("./deno_relay.ts"),
    import("./network_policy.ts"),
  ]);
  return pinningParts ??= { ...relay, ...policy };
}

/** `resolving`: the policy has a `resolve`, which answers for an allowed host too. */
function noProxyConflict(url: URL, resolving: boolean): Failure {
  return new Failure(
    "route",
    `The network policy cannot check ${url.hostname} on Deno: the environment's NO_PROXY ` +
      "names it, and Deno's HTTP client then resolves and connects to it itself (remove it " +
      `from NO_PROXY${
        resolving ? ": the policy's resolve answers for every host name" : ", or allow the host"
      })`,
  );
}

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

/** The environment's proxy Deno's own client sends a request to `url` through, if any. */
function denoEnvProxy(env: DenoEnvProxies, url: URL): ProxySetting | undefined {
  if (denoBypasses(env.denoNoProxy, url)) return undefined;
  return url.protocol === "https:" ? env.https : env.http;
}

/**
 * `sent`, a request to `url` through `proxy`, with the proxy's failures
 * as `proxy` {@linkcode Failure}s: its refused connection or tunnel, and its
 * 407 to a forwarded http request.
 */
function throughProxy(
  proxy: ProxySetting,
  url: URL,
  sent: Promise<WireResponse>,
  abort: Abort,
): Promise<WireResponse> {
  return sent.then(
    (response) => url.protocol === "http:" ? refusedForward(proxy, response) : response,
    (error) => {
      throw abort.aborted ? error : proxyFailure(proxy, error) ?? error;
    },
  );
}

/**
 * `response`, unless it is the proxy's 407 to a forwarded http request:
 * Deno's client hands that on as the response, where undici (and either
 * runtime for a CONNECT) fails the exchange; it fails here too, so a proxy
 * refusing its credentials is the same error on every runtime and scheme.
 */
function refusedForward(proxy: ProxySetting, response: WireResponse): WireResponse {
  if (response.status !== 407) return response;
  void response.body?.cancel("Proxy Authentication Required").catch(() => {});
  throw new Failure(
    "proxy",
    `Proxy ${shownProxy(proxy)} refused the credentials (407 Proxy Authentication Required)`,
  );
}

function basicAuth(proxy: ProxySetting): { basicAuth?: { username: string; password: string } } {
  const { credentials } = proxy;
  return credentials === undefined ? {} : { basicAuth: { ...credentials } };
}

/** The environment's proxies, and its NO_PROXY as Deno reads it (`NO_PROXY`, else `no_proxy`, as written). */
interface DenoEnvProxies extends EnvProxies {
  readonly denoNoProxy: string;
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

/**
 * The failure for a request Deno's client would route otherwise than
 * `proxy` (`undefined`: direct) says, or `undefined`.
 */
function denoConflict(
  url: URL,
  proxy: ProxySetting | undefined,
  env: DenoEnvProxies,
): Failure | undefined {
  if (denoBypasses(env.denoNoProxy, url)) {
    if (proxy === undefined) return undefined;
    return new Failure(
      "route",
      `Proxy ${shownProxy(proxy)} cannot be used for ${url.host} on Deno: the environment's ` +
        "NO_PROXY names it, and Deno's HTTP client then connects directly",
    );
  }
  // Not bypassed (above): the scheme's proxy, as denoEnvProxy() picks it.
  const envProxy = url.protocol === "https:" ? env.https : env.http;
  if (proxy !== undefined || envProxy === undefined) return undefined;
  return new Failure(
    "route",
    `Cannot connect to ${url.host} without a proxy on Deno: Deno's HTTP client sends it ` +
      `through the environment's proxy ${shownProxy(envProxy)} (add the host to NO_PROXY)`,
  );
}

/**
 * True when Deno's client reaches `url` directly for the NO_PROXY value
 * `noProxy`, by its own rules, which differ from curl's and from
 * `bypasses()` of proxy.ts: an IP host is named only by an address or a range
 * (not by `*`); a host name by `*`, or by an entry as written (case and
 * all) that is it or a parent domain (`example.com`, `.example.com`), but
 * never by an entry with a port or a `*.` prefix.
 */
function denoBypasses(noProxy: string, url: URL): boolean {
  if (noProxy === "") return false;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const entries = noProxy.split(",").map((entry) => entry.trim());
  const ip = parseIp(host);
  if (ip !== undefined) return entries.some((entry) => inIpRange(ip, entry));
  return entries.some((entry) =>
    entry === "*" || entry === host || entry === `.${host}` ||
    (host.endsWith(entry) &&
      (entry.startsWith(".") || host[host.length - entry.length - 1] === "."))
  );
}
