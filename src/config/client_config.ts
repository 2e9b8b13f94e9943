import {
  describeType,
  isPlainRecord,
  validateHeaders,
  validateTimeout,
} from "../models/_validate.ts";
import { mergeHeaders } from "../models/request.ts";
import { redactUrl } from "../models/_redact.ts";

/**
 * A `fetch`-compatible function: the one transport seam, for tests and for
 * runtimes the library does not know.
 */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/**
 * Options of the connection pool, passed to `Deno.createHttpClient` (and to
 * the undici `Agent` on Node). Known Deno fields are typed; others pass through.
 */
export interface PoolOptions {
  /** Idle connections kept per host. */
  poolMaxIdlePerHost?: number;
  /** How long an idle connection is kept, in milliseconds, or `false` for ever. */
  poolIdleTimeout?: number | false;
  /** Allow HTTP/1.1. */
  http1?: boolean;
  /** Allow HTTP/2. */
  http2?: boolean;
  /** Further runtime-specific options. */
  [option: string]: unknown;
}

/** The frozen configuration of an {@linkcode HttpClient}, made by {@linkcode HttpClientConfigBuilder}. */
export interface HttpClientConfig {
  /** The base URL relative request URLs are resolved against. */
  readonly baseUrl?: string;
  /** The default timeout in seconds. */
  readonly timeout: number;
  /** Headers sent with every request (a request's own headers win). */
  readonly headers: Readonly<Record<string, string>>;
  /** How many redirects one call follows; 0 returns the 3xx response. */
  readonly maxRedirects: number;
  /** Options of the connection pool. */
  readonly pool?: Readonly<PoolOptions>;
  /** A custom transport used instead of the pooled `fetch`. */
  readonly fetch?: FetchLike;
}

/** The defaults: timeout 30 s, 20 redirects, no base URL, no default headers. */
export const DEFAULT_CONFIG: HttpClientConfig = Object.freeze({
  timeout: 30,
  headers: Object.freeze({}),
  maxRedirects: 20,
});

/**
 * Builds an {@linkcode HttpClientConfig}. Every `with*` call checks its input
 * (a `TypeError` or `RangeError` naming the field) and returns the builder.
 *
 * @example Configure a client
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl("http://127.0.0.1:8080/api")
 *   .withTimeout(5)
 *   .withHeaders({ Accept: "application/json" })
 *   .withMaxRedirects(5)
 *   .build();
 * assert.ok(Object.isFrozen(config));
 * using client = new HttpClient(config);
 * assert.equal(client.config.timeout, 5);
 * ```
 */
export class HttpClientConfigBuilder {
  #config: { -readonly [K in keyof HttpClientConfig]: HttpClientConfig[K] } = { ...DEFAULT_CONFIG };

  /**
   * Sets the base URL: an absolute `http:` or `https:` URL.
   *
   * @param baseUrl The base URL.
   * @returns This builder.
   */
  withBaseUrl(baseUrl: string | URL): this {
    this.#config.baseUrl = checkBaseUrl(baseUrl);
    return this;
  }

  /**
   * Sets the default timeout, in seconds (a finite number above 0).
   *
   * @param seconds The timeout.
   * @returns This builder.
   */
  withTimeout(seconds: number): this {
    this.#config.timeout = validateTimeout("timeout", seconds);
    return this;
  }

  /**
   * Adds headers sent with every request; later calls merge, without regard
   * to case.
   *
   * @param headers The default headers.
   * @returns This builder.
   */
  withHeaders(headers: Readonly<Record<string, string>>): this {
    validateHeaders("headers", headers);
    this.#config.headers = Object.freeze(mergeHeaders(this.#config.headers, headers));
    return this;
  }

  /**
   * Sets how many redirects one call follows (default 20; 0 returns the
   * 3xx response as it is).
   *
   * @param count A whole number, 0 or more.
   * @returns This builder.
   */
  withMaxRedirects(count: number): this {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(
        `Invalid maxRedirects: expected a whole number of 0 or more, got ${count}`,
      );
    }
    this.#config.maxRedirects = count;
    return this;
  }

  /**
   * Sets the options of the connection pool.
   *
   * @param options Passed to `Deno.createHttpClient` (or the undici Agent).
   * @returns This builder.
   */
  withPool(options: PoolOptions): this {
    if (!isPlainRecord(options)) {
      throw new TypeError(`Invalid pool: expected an object, got ${describeType(options)}`);
    }
    this.#config.pool = Object.freeze({ ...options });
    return this;
  }

  /**
   * Sets a custom transport used instead of the pooled `fetch`.
   *
   * @param fetchLike A function with `fetch`'s signature.
   * @returns This builder.
   */
  withFetch(fetchLike: FetchLike): this {
    if (typeof fetchLike !== "function") {
      throw new TypeError(`Invalid fetch: expected a function, got ${describeType(fetchLike)}`);
    }
    this.#config.fetch = fetchLike;
    return this;
  }

  /**
   * Returns the frozen configuration.
   *
   * @returns The configuration.
   */
  build(): HttpClientConfig {
    return Object.freeze({ ...this.#config });
  }
}

function checkBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== "string" && !(baseUrl instanceof URL)) {
    throw new TypeError(`Invalid baseUrl: expected a string or URL, got ${describeType(baseUrl)}`);
  }
  const parsed = URL.parse(String(baseUrl));
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new TypeError(
      `Invalid baseUrl: expected an absolute http: or https: URL, got ${
        JSON.stringify(redactUrl(String(baseUrl)))
      }`,
    );
  }
  return String(baseUrl);
}
