// The transport seam: what the send path hands a runtime's transport, and
// what it gets back. Each runtime implements it once (runtime.ts,
// runtime_node.ts); nothing above this folder knows which one runs.

import type { Abort } from "../client/deadline/abort.ts";

/** One request as it goes on the wire: the final URL, headers and encoded body. */
export interface WireRequest {
  readonly method: string;
  /** The absolute URL with the params appended. */
  readonly url: string;
  /** Validated headers, values trimmed of spaces and tabs as `fetch` sends them. */
  readonly headers: Readonly<Record<string, string>>;
  /** A multipart body is a `FormData`: the transport writes its boundary. */
  readonly body?: string | FormData;
}

/** A response whose body is still unread. */
export interface WireResponse {
  readonly status: number;
  /** A `Headers`, or a record with lower-case names. */
  readonly headers: Headers | Readonly<Record<string, string>>;
  /** The `Location` header, or `null`. */
  readonly location: string | null;
  /**
   * The body's decoded bytes as they arrive, or `null` when the response has
   * none (HEAD, 204, 205, 304). The stream fails with `BodyDecodeError`
   * when the bytes cannot be decoded for their Content-Encoding, and with the
   * runtime's own error when the connection fails. Cancelling it gives the
   * connection back: with no reason (a discard) the transport may read a
   * small rest to keep the connection, with a reason it drops it. Buffering
   * is not the transport's: `readBody()` (read_body.ts) does it for all.
   */
  readonly body: ReadableStream<Uint8Array> | null;
}

/**
 * Sends one request and resolves once the response head has arrived; when
 * `abort` fires, the exchange (head or body) fails.
 */
export type Transport = (request: WireRequest, abort: Abort) => Promise<WireResponse>;

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

/** A connection pool: the transport bound to it, and the call that releases it. */
export interface Pool {
  readonly transport: Transport;
  close(): void;
}

/**
 * What a runtime gives the send path. `runtime.ts` (Deno, and the global
 * `fetch` elsewhere) and `runtime_node.ts` (the npm build's, compiled in its
 * place) each export one as `runtime`, so the type checker holds both to
 * this one shape.
 */
export interface Runtime {
  /** Creates a connection pool with the client's pool options. */
  createPool(options?: PoolOptions): Pool;
  /** Reads a whole file from disk (a `files` path). */
  readFile(path: string): Promise<Uint8Array>;
}
