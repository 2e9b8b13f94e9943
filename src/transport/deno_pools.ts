// Deno's pools that route (loaded by runtime.ts with such a pool's first
// request or check, so a client without a proxy or a network policy loads
// none of it): `withProxy()`'s, the environment's proxies', and the pinned
// pool of the network policy and `withProxy(null)`, with its relay.
//
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

import { BlockedFailure, Failure } from "./failures.ts";
import { inIpRange, parseIp } from "./addresses.ts";
import { ownProxyAuthorization, proxyFailure, proxyFor, shownProxy } from "./proxy.ts";
import type { EnvProxies } from "./proxy_env.ts";
import { type DenoNet, Relay, resolveDns, targetKey } from "./deno_relay.ts";
import { destinationCheck, urlRefusal } from "./network_policy.ts";
import type {
  Abort,
  NetworkPolicy,
  Pool,
  PoolOptions,
  ProxySetting,
  Transport,
  WireResponse,
} from "./types.ts";

/** A `Deno.HttpClient` made with the options, and the transport that sends through it (runtime.ts's). */
export type Connect = (options: PoolOptions) => [Transport, { close(): void }];

/** The environment's proxies, and its NO_PROXY as Deno reads it (`NO_PROXY`, else `no_proxy`, as written). */
export interface DenoEnvProxies extends EnvProxies {
  readonly denoNoProxy: string;
}

/**
 * A pool for `withProxy(setting)` (`null`: no proxy): a `Deno.HttpClient`
 * through the proxy and one for the hosts reached directly, each made when
 * first needed. `env` is the environment's proxies, which runtime.ts read
 * when the pool was made (`--allow-env` for its proxy variables).
 */
export function proxyPool(
  connect: Connect,
  options: PoolOptions,
  setting: ProxySetting | null,
  env: DenoEnvProxies,
): Pool {
  const sends = new Map<ProxySetting | undefined, [Transport, { close(): void }]>();
  const sendFor = (proxy: ProxySetting | undefined): Transport => {
    let entry = sends.get(proxy);
    if (entry === undefined) {
      entry = connect(
        proxy === undefined
          ? options
          : { ...options, proxy: { url: proxy.url, ...basicAuth(proxy) } },
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
 * The pool without `withProxy()` where the environment names proxies
 * (runtime.ts read it, `--allow-env` for its proxy variables; never asked
 * for with a prompt): one `Deno.HttpClient`, which sends through them
 * itself, and a call it sends through one of them fails as a `withProxy()`
 * call does, naming the proxy, rather than as the target's failure.
 */
export function envProxyPool(connect: Connect, options: PoolOptions, env: DenoEnvProxies): Pool {
  let made: [Transport, { close(): void }] | undefined;
  const send: Transport = (wire, abort) => (made ??= connect(options))[0](wire, abort);
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
    close: () => made?.[1].close(),
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
 * the policy reads NO_PROXY for it (`noProxy`: runtime.ts read it, with
 * `--allow-env=NO_PROXY,no_proxy`).
 */
export function pinnedPool(
  deno: DenoNet,
  connect: Connect,
  options: PoolOptions,
  policy: NetworkPolicy | undefined,
  noProxy: string,
): Pool {
  let relay: Relay | undefined;
  const clients: Partial<Record<"http" | "https" | "direct", [Transport, { close(): void }]>> = {};
  const flights = new Flights();
  const client = (kind: "http" | "https" | "direct", through?: Relay) =>
    (clients[kind] ??= connect({
      ...options,
      ...(kind === "http" ? { poolMaxIdlePerHost: 0 } : {}),
      ...(through === undefined
        ? {}
        : { proxy: { url: `http://127.0.0.1:${through.port}`, basicAuth: through.credentials } }),
    }))[0];
  return {
    transport(wire, abort) {
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
      const through = relay ??= new Relay(deno, policy);
      const secure = url.protocol === "https:";
      const key = targetKey(url.hostname, url.port || (secure ? 443 : 80));
      const mark = through.sequence;
      const alone = flights.start(key);
      return client(secure ? "https" : "http", through)(wire, abort).then((response) => {
        // The relay's phases are this request's only when no other went to the target meanwhile.
        if (flights.end(key, alone)) response.timings = through.openedSince(key, mark);
        return response;
      }, (error) => {
        flights.end(key, alone);
        throw abort.aborted ? error : through.failureSince(key, mark) ?? error;
      });
    },
    close() {
      for (const entry of Object.values(clients)) entry[1].close();
      relay?.close();
    },
    // The relay's resolver: the addresses checked are those it would connect to.
    checkDestination: policy === undefined
      ? undefined
      : destinationCheck(policy, (name, signal) => resolveDns(deno, name, signal)),
  };
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

/**
 * The requests in flight to each target: which ones had the target to
 * themselves from start to head, so that a connection the relay opened to
 * it meanwhile was theirs (its phases their timings).
 */
class Flights {
  readonly #targets = new Map<string, { inFlight: number; started: number }>();

  /** A request to `key` starts: a token for {@linkcode Flights.end}, `undefined` when not alone. */
  start(key: string): number | undefined {
    const target = this.#targets.get(key) ?? { inFlight: 0, started: 0 };
    this.#targets.set(key, target);
    target.inFlight++;
    target.started++;
    return target.inFlight === 1 ? target.started : undefined;
  }

  /** It ended (at its head): true when no other request to `key` ran meanwhile. */
  end(key: string, alone: number | undefined): boolean {
    const target = this.#targets.get(key)!;
    if (--target.inFlight === 0) this.#targets.delete(key);
    return alone !== undefined && target.started === alone;
  }
}
