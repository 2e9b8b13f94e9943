// The checks and the shape of `withProxy()`: a proxy URL becomes a frozen
// setting whose credentials are out of every view (console.log(),
// JSON.stringify(), errors), and a `noProxy` list becomes lower-case entries.

import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { redactUrl } from "../masking/views.ts";
import type { ProxySetting } from "../transport/types.ts";

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
  const parsed = URL.parse(text);
  const shown = JSON.stringify(redactUrl(text));
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
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
  return Object.freeze(withMaskedView(setting, redactUrl(parsed.href).replace(/\/$/, "")));
}

const PROXY_OPTION_KEYS = keysOf<ProxyOptions>({ noProxy: true });

/** The `noProxy` option as trimmed, lower-case entries, empty ones dropped. */
function checkNoProxy(options: ProxyOptions): readonly string[] {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`Invalid proxy options: expected an object, got ${describeType(options)}`);
  }
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

/** Gives the setting a view with the URL's password masked, for console.log() and JSON.stringify(). */
function withMaskedView<T extends object>(setting: T, maskedUrl: string): T {
  const view = () => ({ ...setting, url: maskedUrl });
  type Inspect = (value: unknown, options?: unknown) => string;
  return Object.defineProperties(setting, {
    toJSON: { value: view },
    [Symbol.for("Deno.customInspect")]: {
      value: (inspect: Inspect, options: unknown) => inspect(view(), options),
    },
    [Symbol.for("nodejs.util.inspect.custom")]: {
      value: (_depth: number, options: unknown, inspect: Inspect) => inspect(view(), options),
    },
  });
}
