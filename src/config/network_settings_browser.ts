// The browser counterpart of `network_settings.ts`: the npm package's
// browser build (`browser/`, picked by the `browser` and `worker`
// conditions) compiles this file in its place. Its runtime has no pool
// (runtime_browser.ts), so `build()` refuses a proxy, TLS options, a network
// policy and a Unix socket whatever they hold (network.ts's `checkNetwork`,
// naming the field and the runtime): each is kept unchecked, as a setting
// that is there, and a page's bundle carries none of their checks, nor the
// address ranges the policy's parse, nor the refusals of settings together.

import type { NetworkPolicy, ProxySetting, TlsSettings } from "../transport/types.ts";

/** A proxy URL, unchecked: `build()` refuses it. */
export function checkProxy(_url: unknown, _options?: unknown): ProxySetting {
  return Object.freeze({ url: "", noProxy: [] });
}

/** TLS options, unchecked: `build()` refuses them. */
export function checkTls(_options: unknown): TlsSettings {
  return Object.freeze({});
}

/** A network policy, unchecked: `build()` refuses it. */
export function checkNetworkPolicy(_options?: unknown): NetworkPolicy {
  return Object.freeze({ deny: [], allow: [] });
}

/** A Unix socket's path, unchecked: `build()` refuses it. */
export function checkUnixSocket(_path: unknown): string {
  return "";
}

/** Nothing to refuse together: `build()` refused each setting alone. */
export function checkSettingsTogether(_config: unknown): void {}
