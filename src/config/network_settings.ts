// The checks of the network settings only a runtime with a pool applies:
// the proxy (`withProxy`), TLS (`withTls`), the network policy
// (`withNetworkPolicy`) and the Unix socket (`withUnixSocket`), each checked
// once at the builder and kept frozen, credentials out of every view. The
// npm package's browser build compiles network_settings_browser.ts in its
// place: there `build()` refuses each of them (network.ts), so none of these
// checks, nor the address ranges they parse, is in a browser's bundle.

import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { redactUrl, withView } from "../masking/views.ts";
import { parseProxyUrl } from "../http/url.ts";
import { parseRange } from "../transport/addresses.ts";
import type { NetworkPolicy, ProxySetting, TlsSettings } from "../transport/types.ts";
import { checkObject, TLS_KEYS, tlsView } from "./network.ts";
import type { NetworkPolicyOptions, ProxyOptions, TlsOptions } from "./network.ts";

const POLICY_KEYS = keysOf<NetworkPolicyOptions>({ deny: true, allow: true, resolve: true });

/**
 * Checks `options` and returns the policy, frozen. Every failure is a
 * `TypeError` naming the field and the entry.
 */
export function checkNetworkPolicy(options: NetworkPolicyOptions = {}): NetworkPolicy {
  checkObject("networkPolicy", options);
  checkKnownKeys("networkPolicy", options, POLICY_KEYS);
  const { deny = "private", allow = [], resolve } = options;
  const denyList = typeof deny === "string" ? [deny] : deny;
  checkList(
    "networkPolicy.deny",
    denyList,
    (entry) => entry === "private" || parseRange(entry) !== undefined,
    '"private" or an address range',
  );
  checkList(
    "networkPolicy.allow",
    allow,
    (entry) => parseRange(entry) !== undefined || HOST.test(entry),
    "a host name or an address range",
  );
  if (resolve !== undefined && typeof resolve !== "function") {
    throw new TypeError(
      `Invalid networkPolicy.resolve: expected a function, got ${describeType(resolve)}`,
    );
  }
  return Object.freeze({
    deny: Object.freeze(denyList.map((entry) => entry.toLowerCase())),
    allow: Object.freeze(allow.map((entry) => entry.toLowerCase().replace(/\.$/, ""))),
    ...(resolve === undefined ? {} : { resolve: resolve as NetworkPolicy["resolve"] }),
  });
}

// A host name as the URL parser writes one, `.` or `*.` before it for its subdomains.
const HOST = /^(?:\*?\.)?[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$/i;

function checkList(
  field: string,
  list: unknown,
  valid: (entry: string) => boolean,
  expected: string,
): asserts list is readonly string[] {
  if (!Array.isArray(list)) {
    throw new TypeError(`Invalid ${field}: expected a list, got ${describeType(list)}`);
  }
  list.forEach((entry: unknown, index) => {
    if (typeof entry !== "string" || !valid(entry.toLowerCase())) {
      throw new TypeError(
        `Invalid ${field}[${index}]: expected ${expected}, got ${
          typeof entry === "string" ? JSON.stringify(entry) : describeType(entry)
        }`,
      );
    }
  });
}

/** A Unix domain socket's path: a non-empty string without a NUL. */
export function checkUnixSocket(path: unknown): string {
  if (typeof path !== "string" || path === "" || path.includes("\0")) {
    throw new TypeError(
      `Invalid unixSocket: expected the socket's file path, got ${
        typeof path === "string" ? JSON.stringify(path) : describeType(path)
      }`,
    );
  }
  return path;
}

/**
 * The proxy setting for `url`: an absolute `http:`, `https:`, `socks5:` or
 * `socks5h:` URL with no path, query or fragment; its user-info,
 * percent-decoded, becomes the credentials (`Proxy-Authorization`, or
 * SOCKS5's user name and password). A `TypeError` names `proxy` and shows
 * the URL masked.
 */
export function checkProxy(url: unknown, options: ProxyOptions = {}): ProxySetting {
  if (typeof url !== "string" && !(url instanceof URL)) {
    throw new TypeError(
      `Invalid proxy: expected a URL string, URL or null, got ${describeType(url)}`,
    );
  }
  const text = String(url);
  const proxy = parseProxyUrl(text);
  const shown = JSON.stringify(redactUrl(text));
  if (proxy === null) {
    throw new TypeError(
      `Invalid proxy: expected an absolute http:, https:, socks5: or socks5h: URL, got ${shown}${
        /^socks4?a?:/i.test(text)
          ? " (socks: and SOCKS4 are not supported; use socks5: or socks5h:)"
          : ""
      }`,
    );
  }
  const { parsed, origin } = proxy;
  if (
    !/^\/?$/.test(parsed.pathname) || parsed.search !== "" || parsed.hash !== "" ||
    /[?#]/.test(text)
  ) {
    throw new TypeError(`Invalid proxy: expected no path, query or fragment, got ${shown}`);
  }
  const setting = { url: origin, noProxy: checkNoProxy(options) };
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

/**
 * Refuses, at `build()`, settings that exclude each other, once
 * `checkNetwork()` (network.ts) let each through: a network policy with a
 * proxy, and a Unix socket with either.
 */
export function checkSettingsTogether(
  config: {
    readonly proxy?: unknown;
    readonly networkPolicy?: unknown;
    readonly unixSocket?: unknown;
  },
): void {
  // The proxy resolves the target and connects to it: the address connected to is
  // the proxy's to choose, out of the policy's sight.
  if (config.networkPolicy !== undefined && config.proxy) {
    throw new TypeError(
      "Invalid networkPolicy: a proxy resolves and connects to the target itself, so the " +
        "policy cannot check the address; call withProxy(null) (the policy's connections are " +
        "direct) or enforce the rules at the proxy",
    );
  }
  if (config.unixSocket !== undefined && (config.proxy || config.networkPolicy !== undefined)) {
    throw new TypeError(
      `Invalid unixSocket: every request goes over the socket, so ${
        config.proxy ? "a proxy" : "a network policy"
      } would never apply`,
    );
  }
}
