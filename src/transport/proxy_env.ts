// The environment's proxies (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY),
// read as Deno's own HTTP client reads them, when a pool is made: both
// runtimes with a pool read them (runtime.ts, runtime_node.ts), and a bad
// value fails there, before any request.

import { redactUrl } from "../masking/views.ts";
import { parseProxyUrl } from "../http/url.ts";
import type { ProxySetting } from "./types.ts";

/** The environment's proxies, read once when a pool is made. */
export interface EnvProxies {
  readonly http?: ProxySetting;
  readonly https?: ProxySetting;
  readonly noProxy: readonly string[];
}

/**
 * Every variable the environment's proxies are read from, each spelling.
 * Deno's own HTTP client reads them too, with or without `--allow-env`.
 */
export const PROXY_ENV_NAMES: readonly string[] = [
  "HTTP_PROXY",
  "http_proxy",
  "HTTPS_PROXY",
  "https_proxy",
  "ALL_PROXY",
  "all_proxy",
  "NO_PROXY",
  "no_proxy",
];

/**
 * Reads the environment's proxies as Deno's own HTTP client does, so both
 * runtimes agree: where both spellings of a name are set the upper-case one
 * wins; `ALL_PROXY` serves both schemes and wins over the others; a
 * scheme-less value means `http://`; a `socks5://` or `socks5h://` one is a
 * SOCKS5 proxy. `HTTP_PROXY` is ignored when
 * `REQUEST_METHOD` is set: under CGI a request's `Proxy:` header arrives as
 * `HTTP_PROXY` ("httpoxy"). A value that is not a proxy URL is a
 * `TypeError` naming the variable, the URL masked.
 */
export function readProxyEnv(get: (name: string) => string | undefined): EnvProxies {
  const either = (name: string) =>
    given(name, get(name)) ?? given(name.toLowerCase(), get(name.toLowerCase()));
  const all = either("ALL_PROXY");
  const cgi = get("REQUEST_METHOD") !== undefined;
  const http = all ?? (cgi ? undefined : either("HTTP_PROXY"));
  const https = all ?? either("HTTPS_PROXY");
  const noProxy = (either("NO_PROXY")?.value ?? "").split(",").map((entry) =>
    entry.trim().toLowerCase()
  )
    .filter((entry) => entry !== "");
  return {
    ...(http === undefined ? {} : { http: envSetting(http.name, http.value) }),
    ...(https === undefined ? {} : { https: envSetting(https.name, https.value) }),
    noProxy,
  };
}

function given(
  name: string,
  value: string | undefined,
): { name: string; value: string } | undefined {
  return value === undefined || value.trim() === "" ? undefined : { name, value: value.trim() };
}

function envSetting(name: string, value: string): ProxySetting {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  const proxy = parseProxyUrl(text);
  if (proxy === null) {
    throw new TypeError(
      `Invalid ${name}: expected an http:, https:, socks5: or socks5h: URL, got ${
        JSON.stringify(redactUrl(text))
      }`,
    );
  }
  const { parsed } = proxy;
  const setting: ProxySetting = { url: proxy.origin, noProxy: [] };
  if (parsed.username === "" && parsed.password === "") return setting;
  return {
    ...setting,
    credentials: {
      username: safeDecode(parsed.username),
      password: safeDecode(parsed.password),
    },
  };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
