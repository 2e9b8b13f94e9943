// `withProxy()` on Deno. Deno's HTTP client reads HTTP_PROXY, HTTPS_PROXY,
// ALL_PROXY and NO_PROXY itself, with or without `--allow-env`, and no
// option turns that off: its environment proxies apply to every host its
// NO_PROXY does not name, and its NO_PROXY overrides even a client's own
// proxy. So a pool with `withProxy()` reads those variables too and fails a
// request Deno would route otherwise than the setting says, rather than let
// it go through a proxy it should not use, or around the one it should.

import { HttpClientException } from "../errors.ts";
import { fetchTransport } from "./fetch_transport.ts";
import {
  ownProxyAuthorization,
  PROXY_ENV_NAMES,
  ProxyFailure,
  proxyFailure,
  proxyFor,
  readProxyEnv,
  shownProxy,
} from "./proxy_route.ts";
import type { EnvProxies } from "./proxy_route.ts";
import { inIpRange, parseIp } from "./ip_range.ts";
import type { Pool, PoolOptions, ProxySetting, Transport, WireResponse } from "./types.ts";

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
      if (proxy === undefined) return sent;
      return sent.then(
        (response) => url.protocol === "http:" ? refusedForward(proxy, response) : response,
        (error) => {
          throw abort.aborted ? error : proxyFailure(proxy, error) ?? error;
        },
      );
    },
    close: () => sends.forEach(([, client]) => client.close()),
  };
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

function readDenoEnv(deno: DenoEnv): DenoEnvProxies {
  const missing = NAMES.filter((variable) =>
    deno.permissions.querySync({ name: "env", variable }).state !== "granted"
  );
  if (missing.length > 0) {
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
