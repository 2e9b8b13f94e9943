// The network settings of a client: the proxy (`withProxy`), TLS (`withTls`)
// and the pool's options (`withPool`), each checked once at the builder and
// kept frozen, credentials out of every view; and what `build()` refuses
// because this client could not apply it. The runtime's pool (runtime.ts,
// runtime_node.ts) turns the settings into its own options.

import { checkKnownKeys, describeType, isPlainRecord, keysOf } from "../models/_validate.ts";
import { redactUrl, withView } from "../masking/views.ts";
import { parseHttpUrl } from "../http/url.ts";
import { runtime } from "../transport/runtime.ts";
import { runtimeName } from "../transport/failures.ts";
import type { RuntimeGlobals } from "../transport/failures.ts";
import type { PoolOptions, ProxySetting, TlsSettings } from "../transport/types.ts";

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
 * The proxy setting for `url`: an absolute `http:` or `https:` URL with no
 * path, query or fragment; its user-info, percent-decoded, becomes the
 * credentials of `Proxy-Authorization`. A `TypeError` names `proxy` and
 * shows the URL masked.
 */
export function checkProxy(url: unknown, options: ProxyOptions = {}): ProxySetting {
  if (typeof url !== "string" && !(url instanceof URL)) {
    throw new TypeError(
      `Invalid proxy: expected a URL string, URL or null, got ${describeType(url)}`,
    );
  }
  const text = String(url);
  const parsed = parseHttpUrl(text);
  const shown = JSON.stringify(redactUrl(text));
  if (parsed === null) {
    throw new TypeError(`Invalid proxy: expected an absolute http: or https: URL, got ${shown}`);
  }
  if (parsed.pathname !== "/" || parsed.search !== "" || parsed.hash !== "" || /[?#]/.test(text)) {
    throw new TypeError(`Invalid proxy: expected no path, query or fragment, got ${shown}`);
  }
  const setting = { url: parsed.origin, noProxy: checkNoProxy(options) };
  if (parsed.username !== "" || parsed.password !== "") {
    const credentials = Object.freeze({
      username: decodeUserInfo(parsed.username, shown),
      password: decodeUserInfo(parsed.password, shown),
    });
    // Not enumerable: a spread, console.log() or JSON.stringify() of the setting leaves it out.
    Object.defineProperty(setting, "credentials", { value: credentials });
  }
  const maskedUrl = redactUrl(parsed.href).replace(/\/$/, "");
  return Object.freeze(withView(setting, () => ({ ...setting, url: maskedUrl })));
}

const PROXY_OPTION_KEYS = keysOf<ProxyOptions>({ noProxy: true });

/** The `noProxy` option as trimmed, lower-case entries, empty ones dropped. */
function checkNoProxy(options: ProxyOptions): readonly string[] {
  checkKnownKeys("proxy options", options, PROXY_OPTION_KEYS);
  const { noProxy = [] } = options;
  const list = typeof noProxy === "string" ? noProxy.split(",") : noProxy;
  if (!Array.isArray(list) || list.some((entry) => typeof entry !== "string")) {
    throw new TypeError(
      `Invalid noProxy: expected a string or a list of strings, got ${describeType(noProxy)}`,
    );
  }
  return Object.freeze(
    list.map((entry: string) => entry.trim().toLowerCase()).filter((entry) => entry !== ""),
  );
}

function decodeUserInfo(part: string, shown: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new TypeError(`Invalid proxy: its user-info is not valid percent-encoding: ${shown}`);
  }
}

const TLS_KEYS = keysOf<TlsOptions>({ caCerts: true, cert: true, key: true });
const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const PRIVATE_KEY = /-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----[\s\S]+?-----END \1-----/;

/**
 * Checks `options` and returns them frozen, with a masked view. Every
 * failure is a `TypeError` naming the field; the key's text is never quoted.
 */
export function checkTls(options: TlsOptions): TlsSettings {
  checkObject("tls", options);
  checkKnownKeys("tls", options, TLS_KEYS);
  const { caCerts, cert, key } = options;
  const settings: TlsOptions = {};
  if (caCerts !== undefined) settings.caCerts = Object.freeze(checkCaCerts(caCerts));
  if ((cert === undefined) !== (key === undefined)) {
    throw new TypeError(
      `Invalid tls.${
        cert === undefined ? "cert" : "key"
      }: a client certificate needs both cert and key`,
    );
  }
  if (cert !== undefined) {
    settings.cert = checkPem("tls.cert", cert, CERTIFICATE, "a PEM certificate");
    settings.key = checkPem("tls.key", key, PRIVATE_KEY, "a PEM private key");
  }
  return Object.freeze(withView(settings, () => tlsView(settings)));
}

function checkCaCerts(caCerts: unknown): string[] {
  if (!Array.isArray(caCerts)) {
    throw new TypeError(
      `Invalid tls.caCerts: expected an array of PEM certificates, got ${describeType(caCerts)}`,
    );
  }
  return caCerts.map((pem, index) =>
    checkPem(`tls.caCerts[${index}]`, pem, CERTIFICATE, "a PEM certificate")
  );
}

/** `value` when it is a string holding a PEM block of the kind `pattern` matches; never quotes it. */
function checkPem(field: string, value: unknown, pattern: RegExp, expected: string): string {
  if (typeof value !== "string") {
    throw new TypeError(`Invalid ${field}: expected ${expected}, got ${describeType(value)}`);
  }
  if (!pattern.test(value)) {
    throw new TypeError(`Invalid ${field}: expected ${expected} (a -----BEGIN …----- block)`);
  }
  return value;
}

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
function checkObject(field: string, value: unknown): asserts value is Record<string, unknown> {
  if (!isPlainRecord(value)) {
    throw new TypeError(`Invalid ${field}: expected an object, got ${describeType(value)}`);
  }
}

/**
 * Refuses, at `build()`, network settings the client could not apply: with
 * a custom `withFetch` transport (which has no pool to give them to), or on
 * a runtime without a pool API (a browser, say), rather than ignore them.
 */
export function checkNetwork(
  config: {
    readonly tls?: unknown;
    readonly fetch?: unknown;
    readonly proxy?: unknown;
    readonly cookies?: unknown;
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
}
