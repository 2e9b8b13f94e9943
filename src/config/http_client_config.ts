// The shape of a built configuration, apart from the builder that makes it.

import type {
  ErrorHookInterface,
  RequestHookInterface,
  ResponseHookInterface,
} from "../hooks/hook_interfaces.ts";
import type { RetryPolicy } from "./retry_policy.ts";
import type { Middleware } from "../hooks/hook_interfaces.ts";
import type { AuthHookInterface } from "../auth/hooks.ts";
import type { FetchLike, PoolOptions, ProxySetting } from "../transport/types.ts";
import type { CookieJarLike } from "../cookies/cookie_jar.ts";
import type { TlsOptions } from "./tls.ts";

/**
 * The frozen configuration of an {@linkcode HttpClient}, made by
 * {@linkcode HttpClientConfigBuilder}. `console.log()` and `JSON.stringify()`
 * of a built one show the base URL's user-info, credential-like default
 * headers and pool options (a proxy's `basicAuth` password, a proxy URL's
 * headers, the proxy's password and the `withTls` key masked, and a cookie
 * jar by name only.
 */
export interface HttpClientConfig {
  /** The base URL relative request URLs are resolved against. */
  readonly baseUrl?: string;
  /** The timeout of one attempt in seconds (default 30); `null`: none. */
  readonly timeout: number | null;
  /** The longest wait for the next chunk of a streamed response, in seconds (default 30); `null`: none. */
  readonly readTimeout: number | null;
  /** The timeout of a whole call in seconds, retries included (default `null`: none). */
  readonly totalTimeout: number | null;
  /** Headers sent with every request (a request's own headers win). */
  readonly headers: Readonly<Record<string, string>>;
  /** How many redirects one call follows; 0 returns the 3xx response. */
  readonly maxRedirects: number;
  /** The most decoded bytes a buffered read holds (default 256 MiB); `Infinity` for no limit. */
  readonly maxResponseBytes: number;
  /** Options of the connection pool. */
  readonly pool?: Readonly<PoolOptions>;
  /**
   * The proxy set by `withProxy()`; `null`: none, the environment's ignored;
   * not set: the environment's `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`.
   */
  readonly proxy?: ProxySetting | null;
  /** Extra CA certificates and a client certificate (`withTls`); the key is masked in views. */
  readonly tls?: Readonly<TlsOptions>;
  /** A custom transport used instead of the pooled `fetch`. */
  readonly fetch?: FetchLike;
  /** Request hooks, in registration order. */
  readonly requestHooks: readonly RequestHookInterface[];
  /** Response hooks, in registration order. */
  readonly responseHooks: readonly ResponseHookInterface[];
  /** Error hooks, in registration order. */
  readonly errorHooks: readonly ErrorHookInterface[];
  /** The exchange-level middleware, outermost first (`withMiddleware`). */
  readonly middleware: readonly Middleware[];
  /** The retry policy. */
  readonly retry: RetryPolicy;
  /** The authentication hook. */
  readonly authHook?: AuthHookInterface;
  /**
   * The origins the auth hook runs for. Not set: the base URL's origin.
   * With no base URL, the origin of each call's own request as well.
   */
  readonly authOrigins?: ReadonlySet<string>;
  /**
   * The cookie jar (default none): `true` for one of the client's own in
   * memory, else the jar given, which views and `JSON.stringify()` show as
   * `"[cookie jar]"`, never with its cookies.
   */
  readonly cookies?: CookieJarLike | true | undefined;
}
