// Which proxy, if any, a request goes through: the rules both runtimes share
// (deno_pools.ts, runtime_node.ts), so `withProxy()` and the environment's
// HTTP_PROXY, HTTPS_PROXY and NO_PROXY (proxy_env.ts reads them) mean the
// same on Deno and on Node; how a proxy is shown, masked, and how its
// failure is named. Only the runtimes with a pool import this file (Deno
// with its first proxied request): the browser build has none of it.

import { basicAuthorization } from "../http/headers.ts";
import { Failure } from "./failures.ts";
import { inIpRange, parseIp } from "./addresses.ts";
import type { ProxySetting } from "./types.ts";
import type { EnvProxies } from "./proxy_env.ts";

/**
 * The proxy `url` goes through, or `undefined` for a direct connection:
 * `setting` when one is given (its own `noProxy` only), none for `null`,
 * else the environment's for the URL's scheme unless its `NO_PROXY` names
 * the host.
 */
export function proxyFor(
  url: URL,
  setting: ProxySetting | null | undefined,
  env: EnvProxies | undefined,
): ProxySetting | undefined {
  if (setting === null) return undefined;
  if (setting !== undefined) return bypasses(setting.noProxy, url) ? undefined : setting;
  const proxy = url.protocol === "https:" ? env?.https : env?.http;
  return proxy === undefined || bypasses(env?.noProxy ?? [], url) ? undefined : proxy;
}

/**
 * True when a `NO_PROXY`-style list names the URL's host: `*` names every
 * host; `example.com`, `.example.com` and `*.example.com` name it and its
 * subdomains; `host:port` only that port; an IP address (`[::1]` or `::1`)
 * only itself, and a range (`10.0.0.0/8`, `fd00::/8`) the addresses in it,
 * as curl and Deno read them: an IP address is never matched as a name.
 * Entries are lower-case (the URL parser lower-cases hosts).
 */
export function bypasses(entries: readonly string[], url: URL): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const ip = parseIp(host);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  for (const entry of entries) {
    if (entry === "*") return true;
    const [name, entryPort] = splitHostPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (ip !== undefined) {
      if (inIpRange(ip, name)) return true;
      continue;
    }
    const domain = name.replace(/^\*?\./, "");
    if (host === domain || (domain !== "" && host.endsWith(`.${domain}`))) return true;
  }
  return false;
}

/** An entry's host and port: `[::1]:80`, `host:80`; a bare IPv6 address has no port. */
export function splitHostPort(entry: string): [string, string | undefined] {
  const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(entry);
  if (bracketed !== null) return [bracketed[1] as string, bracketed[2]];
  const colon = entry.indexOf(":");
  if (colon === -1 || colon !== entry.lastIndexOf(":")) return [entry, undefined];
  return [entry.slice(0, colon), entry.slice(colon + 1)];
}

/** The proxy's URL as shown: user-info masked. */
export function shownProxy(proxy: ProxySetting): string {
  const { credentials } = proxy;
  if (credentials === undefined) return proxy.url;
  // A user name without a password is often a token: masked too.
  const userInfo = credentials.password === ""
    ? "***"
    : `${encodeURIComponent(credentials.username)}:***`;
  return proxy.url.replace("://", `://${userInfo}@`);
}

/**
 * The failure for a request with a `Proxy-Authorization` header of its own
 * routed through `proxy`, or `undefined`: Deno's client would send it on
 * through a CONNECT tunnel to the target, and undici refuses it, so neither
 * runtime sends it; the proxy's credentials belong in its URL. Not
 * transient: a retry would be the same. The header's value is not shown.
 */
export function ownProxyAuthorization(
  proxy: ProxySetting,
  headers: Readonly<Record<string, string>>,
): Failure | undefined {
  if (!Object.keys(headers).some((name) => name.toLowerCase() === "proxy-authorization")) {
    return undefined;
  }
  return new Failure(
    "route",
    `Proxy ${shownProxy(proxy)} is not sent a request's own Proxy-Authorization header: ` +
      "give its credentials in withProxy()'s URL",
  );
}

/** The `Proxy-Authorization` value for the proxy's credentials. */
export function proxyAuthorization(proxy: ProxySetting): string | undefined {
  const { credentials } = proxy;
  if (credentials === undefined) return undefined;
  return basicAuthorization(credentials.username, credentials.password);
}

// What Deno's client and undici say when the proxy, not the target, failed.
const REFUSED = /ECONNREFUSED|Connection refused|tcp connect error/i;
const AUTH = /proxy authentication required|\(407\)/i;
const TUNNEL_STATUS = /Proxy response \((\d{3})\) !== 200/;
const TUNNEL = /unsuccessful tunnel|unexpected eof while tunneling/i;

/**
 * A `proxy` {@linkcode Failure} for `error` of an exchange routed through
 * `proxy` when the error is the proxy's (every connection made goes to the
 * proxy, so a refused one is the proxy's), else `undefined`.
 */
export function proxyFailure(proxy: ProxySetting, error: unknown): Failure | undefined {
  const text = errorText(error);
  const fail = (reason: string) =>
    new Failure("proxy", `Proxy ${shownProxy(proxy)} ${reason}`, error);
  if (proxy.url.startsWith("socks5")) return socksFailure(text, fail);
  const status = TUNNEL_STATUS.exec(text)?.[1];
  // tinyproxy answers a CONNECT with wrong credentials 401, others 407.
  if (status === "407" || status === "401") {
    return fail(`refused the credentials (status ${status})`);
  }
  if (AUTH.test(text)) return fail("refused the credentials (407 Proxy Authentication Required)");
  if (status !== undefined) return fail(`refused the CONNECT tunnel (status ${status})`);
  // Deno's client reads a 407 only from an HTTP/1.1 proxy, and no status otherwise.
  if (TUNNEL.test(text)) {
    return fail("refused the CONNECT tunnel (403 forbidden, or 407 from an HTTP/1.0 proxy)");
  }
  if (REFUSED.test(text)) return fail("refused the connection");
  return undefined;
}

// What Deno's client and the `socks` package (Node) say of a SOCKS5 proxy's
// answers: its refusal of the credentials, and its reply to the CONNECT (RFC
// 1928's codes, which name the target's failure, seen from the proxy).
const SOCKS_AUTH =
  /Password auth failure|No acceptable auth methods|Socks5 Authentication failed|no accepted authentication type/i;
const SOCKS_UNREACHABLE = /Proxy server unreachable|ECONNREFUSED|Proxy connection timed out/i;
const SOCKS_REPLY =
  /General SOCKS server failure|Connection not allowed by ruleset|Network unreachable|Host unreachable|Connection refused|TTL expired|Command not supported|Address type not supported|Socks5 proxy rejected connection - (\w+)/i;

/** The {@linkcode proxyFailure} of a SOCKS5 proxy. */
function socksFailure(
  text: string,
  fail: (reason: string) => Failure,
): Failure | undefined {
  if (SOCKS_AUTH.test(text)) return fail("refused the credentials (SOCKS5)");
  const reply = SOCKS_REPLY.exec(text);
  if (reply !== null) {
    const words = (reply[1] ?? reply[0]).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    return fail(`could not connect to the target (SOCKS5 reply: ${words})`);
  }
  return SOCKS_UNREACHABLE.test(text) ? fail("refused the connection") : undefined;
}

/** The messages and codes of `error` and its causes, a few levels down. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 4; depth++, e = e.cause) {
    parts.push(e.message, String((e as { code?: unknown }).code ?? ""));
  }
  return parts.join(" ");
}
