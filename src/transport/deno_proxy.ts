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
  bypasses,
  PROXY_ENV_NAMES,
  ProxyFailure,
  proxyFailure,
  proxyFor,
  readProxyEnv,
  shownProxy,
  splitHostPort,
} from "./proxy_route.ts";
import type { EnvProxies } from "./proxy_route.ts";
import type { Pool, PoolOptions, ProxySetting, Transport } from "./types.ts";

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
      const conflict = denoConflict(url, proxy, env);
      if (conflict !== undefined) return Promise.reject(conflict);
      const sent = sendFor(proxy)(wire, abort);
      if (proxy === undefined) return sent;
      return sent.catch((error) => {
        throw abort.aborted ? error : proxyFailure(proxy, error) ?? error;
      });
    },
    close: () => sends.forEach(([, client]) => client.close()),
  };
}

function basicAuth(proxy: ProxySetting): { basicAuth?: { username: string; password: string } } {
  const { credentials } = proxy;
  return credentials === undefined ? {} : { basicAuth: { ...credentials } };
}

function readDenoEnv(deno: DenoEnv): EnvProxies {
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
  return readProxyEnv((name) => deno.env.get(name));
}

/**
 * The failure for a request Deno's client would route otherwise than
 * `proxy` (`undefined`: direct) says, or `undefined`. Deno's NO_PROXY has
 * no ports: an entry with one names no host there.
 */
function denoConflict(
  url: URL,
  proxy: ProxySetting | undefined,
  env: EnvProxies,
): ProxyFailure | undefined {
  const denoNoProxy = env.noProxy.filter((entry) => splitHostPort(entry)[1] === undefined);
  if (bypasses(denoNoProxy, url)) {
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
