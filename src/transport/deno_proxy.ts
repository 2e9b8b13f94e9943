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

import { HttpClientException } from "../errors.ts";
import { fetchTransport } from "./fetch_transport.ts";
import {
  ownProxyAuthorization,
  PROXY_ENV_NAMES,
  proxyFailure,
  proxyFor,
  readProxyEnv,
  shownProxy,
} from "./proxy_route.ts";
import type { EnvProxies } from "./proxy_route.ts";
import { ProxyFailure } from "./proxy_failure.ts";
import { inIpRange, parseIp } from "./ip_range.ts";
import type { Pool, PoolOptions, ProxySetting, Transport, WireResponse } from "./types.ts";
import type { Abort } from "../client/deadline/abort.ts";

/** What of Deno the proxy pool uses besides `createHttpClient`. */
export interface DenoEnv {
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
export function denoProxyTransport(
  deno: DenoClients,
  options: PoolOptions,
  setting: ProxySetting | null,
): Pool {
  const env = readDenoEnv(deno);
  const sends = new Map<ProxySetting | undefined, [Transport, { close(): void }]>();
  const sendFor = (proxy: ProxySetting | undefined): Transport => {
    let entry = sends.get(proxy);
    if (entry === undefined) {
      const client = deno.createHttpClient(
        proxy === undefined ? options : {
          ...options,
          proxy: { url: proxy.url, ...basicAuth(proxy) },
        },
      );
      // Deno's fetch decodes gzip and br but leaves a deflate body encoded.
      const send = fetchTransport(fetch, { init: { client } as RequestInit, inflate: true });
      sends.set(proxy, entry = [send, client]);
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
export function denoEnvProxyTransport(deno: DenoClients, options: PoolOptions): Pool {
  const client = deno.createHttpClient(options);
  // Deno's fetch decodes gzip and br but leaves a deflate body encoded.
  const send = fetchTransport(fetch, { init: { client } as RequestInit, inflate: true });
  const close = () => client.close();
  const env = envGranted(deno) ? envOrUndefined(deno) : undefined;
  if (env === undefined || (env.http === undefined && env.https === undefined)) {
    return { transport: send, close };
  }
  return {
    transport(wire, abort) {
      const url = new URL(wire.url);
      const proxy = denoBypasses(env.denoNoProxy, url)
        ? undefined
        : url.protocol === "https:"
        ? env.https
        : env.http;
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
 * `sent`, a request to `url` through `proxy`, with the proxy's failures
 * as {@linkcode ProxyFailure}s: its refused connection or tunnel, and its
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
  throw new ProxyFailure(
    `Proxy ${shownProxy(proxy)} refused the credentials (407 Proxy Authentication Required)`,
    undefined,
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
 * URL: Deno's client then ignores it (an `ftp:` one) or takes a kind this
 * library does not (`socks5:`), and its errors are left as they are.
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
): ProxyFailure | undefined {
  if (denoBypasses(env.denoNoProxy, url)) {
    if (proxy === undefined) return undefined;
    return new ProxyFailure(
      `Proxy ${shownProxy(proxy)} cannot be used for ${url.host} on Deno: the environment's ` +
        "NO_PROXY names it, and Deno's HTTP client then connects directly",
      undefined,
      false,
    );
  }
  const envProxy = url.protocol === "https:" ? env.https : env.http;
  if (proxy !== undefined || envProxy === undefined) return undefined;
  return new ProxyFailure(
    `Cannot connect to ${url.host} without a proxy on Deno: Deno's HTTP client sends it ` +
      `through the environment's proxy ${shownProxy(envProxy)} (add the host to NO_PROXY)`,
    undefined,
    false,
  );
}

/**
 * True when Deno's client reaches `url` directly for the NO_PROXY value
 * `noProxy`, by its own rules, which differ from curl's and from
 * `bypasses()` of proxy_route.ts: an IP host is named only by an address or a range
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
