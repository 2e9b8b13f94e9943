// The network settings of a client: the options of the proxy (`withProxy`),
// TLS (`withTls`) and the network policy (`withNetworkPolicy`), whose checks
// are network_settings.ts's; the pool's options (`withPool`), checked once at
// the builder and kept frozen; TLS's masked view; and what `build()` refuses
// because this client could not apply it. The runtime's pool (runtime.ts,
// runtime_node.ts) turns the settings into its own options.

import { describeType, isPlainRecord, keysOf } from "../models/_validate.ts";
import { runtime } from "../transport/runtime.ts";
import { type RuntimeGlobals, runtimeName } from "../errors.ts";
import type { PoolOptions, TlsSettings } from "../transport/types.ts";

/**
 * Options of `HttpClientConfigBuilder.withProxy()`.
 *
 * @example Send through a proxy, except to some hosts
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const config = new HttpClientConfigBuilder()
 *   .withProxy("http://ada:s3cret@127.0.0.1:3128", { noProxy: "localhost, .internal" })
 *   .build();
 * assert.equal(JSON.parse(JSON.stringify(config)).proxy.url, "http://ada:***@127.0.0.1:3128");
 * assert.deepEqual(config.proxy?.noProxy, ["localhost", ".internal"]);
 * ```
 */
export interface ProxyOptions {
  /**
   * Hosts reached without the proxy, as curl's and undici's `NO_PROXY`: a
   * comma-separated string or a list of entries, each a host name (it and
   * its subdomains), `.domain` (the same), a host with a port
   * (`example.com:8080`), an IP address (`127.0.0.1`, `[::1]`), a range of
   * them (`10.0.0.0/8`, `fd00::/8`), or `*` (every host). An IP address is
   * named only by an address or a range, never as a name's suffix.
   */
  noProxy?: string | readonly string[];
}

/**
 * Options of `HttpClientConfigBuilder.withTls()`.
 *
 * @example Trust a private CA
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
 * const config = new HttpClientConfigBuilder().withTls({ caCerts: [pem] }).build();
 * assert.deepEqual(config.tls?.caCerts, [pem]);
 * ```
 */
export interface TlsOptions {
  /**
   * Extra CA certificates (PEM) trusted beside the system's roots, for
   * servers whose certificates a private CA signed.
   */
  caCerts?: readonly string[] | undefined;
  /** The client certificate chain (PEM), sent when a server asks for one; needs `key`. */
  cert?: string | undefined;
  /** The client certificate's private key (PEM); needs `cert`. A secret: masked in every view. */
  key?: string | undefined;
}

/**
 * Options of `HttpClientConfigBuilder.withNetworkPolicy()`.
 *
 * @example Refuse private addresses, but for one internal range
 * ```ts
 * import { HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const config = new HttpClientConfigBuilder()
 *   .withNetworkPolicy({ allow: ["10.20.0.0/16", "status.internal.invalid"] })
 *   .build();
 * assert.deepEqual(config.networkPolicy?.deny, ["private"]);
 * ```
 */
export interface NetworkPolicyOptions {
  /**
   * What is refused: `"private"` (the default) for every address IANA's
   * special-purpose registries mark not globally reachable (loopback,
   * private, carrier-grade NAT, link-local with 169.254.169.254, unique-local,
   * unspecified, broadcast, documentation, benchmarking, reserved), multicast,
   * and the IPv6 forms embedding such an IPv4 address; or a list of
   * `"private"` and address ranges (`"203.0.113.0/24"`, `"2001:db8::/32"`).
   */
  deny?: "private" | readonly string[];
  /**
   * What is allowed even so: host names (`status.example.com`; `.example.com`
   * for it and its subdomains), reached without a check of their addresses,
   * and address ranges (`10.20.0.0/16`, an address alone), allowed whatever
   * name resolves to them.
   */
  allow?: readonly string[];
  /**
   * Resolves a host name to its IP addresses in place of the system's
   * resolver (tests, DNS over HTTPS), for every host name the policy's
   * connections go to, an allowed one too. Its answers are checked like the
   * system's (an allowed host's are not), and the connection goes to one it
   * allowed.
   */
  resolve?: (hostname: string) => Promise<readonly string[]>;
}

/** The keys of {@linkcode TlsOptions}. */
export const TLS_KEYS = keysOf<TlsOptions>({ caCerts: true, cert: true, key: true });

/** The view of TLS settings: the key masked. */
export function tlsView(settings: TlsSettings): Record<string, unknown> {
  return { ...settings, ...(settings.key === undefined ? {} : { key: "***" }) };
}

/**
 * A frozen copy of the pool options, which must be a plain object. A proxy
 * and TLS options are refused there: they would apply on Deno only, or be
 * spelt and applied differently per runtime (Node's `ca` replaces the
 * default roots); `withProxy()` and `withTls()` set them alike everywhere.
 */
export function checkPool(options: PoolOptions): Readonly<PoolOptions> {
  checkObject("pool", options);
  if ("proxy" in options) {
    throw new TypeError("Invalid pool: proxy is not a pool option; set it with withProxy()");
  }
  for (const name of TLS_KEYS) {
    if (name in options) {
      throw new TypeError(`Invalid pool: ${name} is a TLS option, set it with withTls()`);
    }
  }
  return Object.freeze({ ...options });
}

/** Refuses a `value` of `field` that is not a plain object, naming its type. */
export function checkObject(
  field: string,
  value: unknown,
): asserts value is Record<string, unknown> {
  if (!isPlainRecord(value)) {
    throw new TypeError(`Invalid ${field}: expected an object, got ${describeType(value)}`);
  }
}

/**
 * Refuses, at `build()`, network settings the client could not apply: with
 * a custom `withFetch` transport (which has no pool to give them to), or on
 * a runtime without a pool API (a browser, say), rather than ignore them.
 * Where they pass, network_settings.ts's `checkSettingsTogether()` refuses
 * those that exclude each other.
 */
export function checkNetwork(
  config: {
    readonly tls?: unknown;
    readonly fetch?: unknown;
    readonly proxy?: unknown;
    readonly cookies?: unknown;
    readonly networkPolicy?: unknown;
    readonly unixSocket?: unknown;
  },
  scope?: RuntimeGlobals,
): void {
  // A browser's fetch (a page's or a web worker's) never shows a response's
  // Set-Cookie and drops a Cookie header it is given: a jar there would keep
  // nothing and send nothing, in silence. Cookies are the browser's own, so a
  // jar is refused; a custom `withFetch` may be another fetch, and keeps it.
  const name = config.cookies === undefined || config.fetch !== undefined
    ? undefined
    : runtimeName(scope);
  if (name === "a browser" || name === "a web worker") {
    throw new TypeError(
      `Invalid cookies: ${name} keeps cookies itself (its fetch hides Set-Cookie and ` +
        "drops a Cookie header); leave them to it and do not call withCookies()",
    );
  }
  const refuse = (field: string, withFetch: string, withoutPool: string) => {
    if (config.fetch !== undefined) throw new TypeError(`Invalid ${field}: ${withFetch}`);
    if (!runtime.pooled) throw new TypeError(`Invalid ${field}: ${runtimeName()} ${withoutPool}`);
  };
  if (config.proxy) {
    refuse(
      "proxy",
      "a custom fetch (withFetch()) sends without the pool's proxy",
      "has no connection pool to send through it",
    );
  }
  if (config.tls !== undefined) {
    refuse(
      "tls",
      "a custom fetch (withFetch) cannot apply withTls(); configure TLS in that fetch",
      "has no connection pool API to apply withTls()",
    );
  }
  if (config.networkPolicy !== undefined) {
    refuse(
      "networkPolicy",
      "a custom fetch (withFetch()) connects where it will: the policy cannot check the address",
      "cannot check the address a connection is made to (its fetch resolves and connects " +
        "itself); the network policy needs Deno or Node",
    );
  }
  if (config.unixSocket !== undefined) {
    refuse(
      "unixSocket",
      "a custom fetch (withFetch()) cannot send over a Unix socket",
      "cannot send over a Unix socket; it needs Deno or Node",
    );
  }
}
