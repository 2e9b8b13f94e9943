// The transport seam: what the send path hands a runtime's transport, and
// what it gets back. Each runtime implements it once (runtime.ts,
// runtime_node.ts); nothing above this folder knows which one runs.

import type { TransportPhases } from "../models/timings.ts";

/** One request as it goes on the wire: the final URL, headers and encoded body. */
export interface WireRequest {
  readonly method: string;
  /** The absolute URL with the params appended. */
  readonly url: string;
  /** Validated headers, values trimmed of spaces and tabs as `fetch` sends them. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The encoded body (a multipart one too: the client writes its boundary).
   * A `ReadableStream` is sent as it is read (once); the others can be sent
   * again.
   */
  readonly body?: string | Uint8Array | Blob | ReadableStream<Uint8Array>;
  /**
   * The length of a `ReadableStream` body when it is known before reading
   * (a multipart body with file paths): a transport whose runtime lets a
   * streamed body have a Content-Length sends it as one. The headers then
   * hold none.
   */
  readonly bodyLength?: number;
}

/**
 * A response whose body is still unread. It is read once, one way: through
 * `body`, or whole through `readAll()` where the transport has it
 * (`readBody()` in body.ts picks).
 */
export interface WireResponse {
  readonly status: number;
  /** A `Headers`, or a record with lower-case names. */
  readonly headers: Headers | Readonly<Record<string, string>>;
  /** The `Location` header, or `null`. */
  readonly location: string | null;
  /**
   * The body's decoded bytes as they arrive, or `null` when the response has
   * none (HEAD, 204, 205, 304). The stream fails with a `decode` `Failure` (failures.ts)
   * when the bytes cannot be decoded for their Content-Encoding, and with the
   * runtime's own error when the connection fails. Cancelling it gives the
   * connection back: with no reason (a discard) the transport may read a
   * small rest to keep the connection, with a reason it drops it. Buffering
   * is not the transport's: `readBody()` (body.ts) does it for all.
   * A transport may create the stream only when it is first asked for.
   */
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * The whole body of a response without Content-Encoding, in one native
   * read (`Response.bytes()`). It reads to the end whatever the length:
   * `readBody()` calls it only when the Content-Length is within the limit.
   */
  readAll?(): Promise<Uint8Array>;
  /**
   * The phases the transport measured of this exchange (DNS, connect, TLS,
   * send, the wait from the request sent to the head, a reused
   * connection), where the runtime tells them; read at the head (a pool
   * that routes through its own relay sets them on the response its client gave).
   */
  timings?: TransportPhases | undefined;
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

/**
 * An HTTP proxy, as `withProxy()` sets it: the proxy's origin, the hosts
 * reached without it, and (not enumerable, so out of every view) the
 * percent-decoded user-info sent as `Proxy-Authorization: Basic`.
 */
export interface ProxySetting {
  /** The proxy's origin, without user-info: `http://host:port`. */
  readonly url: string;
  /** Lower-case `NO_PROXY`-style entries: hosts reached directly. */
  readonly noProxy: readonly string[];
  /** The credentials from the URL's user-info, percent-decoded. */
  readonly credentials?: { readonly username: string; readonly password: string };
}

/**
 * The TLS settings `withTls()` sets, checked and frozen (the key masked in
 * their views): extra CA certificates trusted beside the system's roots, and
 * a client certificate with its key, all PEM.
 */
export interface TlsSettings {
  readonly caCerts?: readonly string[] | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
}

/**
 * The network policy `withNetworkPolicy()` sets, checked and frozen: the
 * ranges refused, the hosts and ranges allowed, and the resolver.
 */
export interface NetworkPolicy {
  /** `private` (IANA's special-purpose ranges, multicast…) and address ranges (`203.0.113.0/24`). */
  readonly deny: readonly string[];
  /** Host names (`api.example.com`, `.example.com` for its subdomains too) and address ranges. */
  readonly allow: readonly string[];
  /** Resolves a host name to its addresses in place of the system's resolver. */
  readonly resolve?: ((hostname: string) => Promise<readonly string[]>) | undefined;
}

/**
 * The network settings of a client that a pool applies besides its
 * {@linkcode PoolOptions}, one field per feature; a runtime whose pool
 * cannot apply one refuses it ({@linkcode Runtime.pooled}).
 */
export interface NetworkOptions {
  /**
   * The proxy: a setting, `null` for none (the environment's ignored), or
   * not given for the environment's `HTTP_PROXY`, `HTTPS_PROXY` and
   * `NO_PROXY`.
   */
  proxy?: ProxySetting | null;
  /** Extra CA certificates and a client certificate (`withTls`). */
  readonly tls?: TlsSettings | undefined;
  /** The network policy: connections only to the addresses it allows (`withNetworkPolicy`). */
  readonly policy?: NetworkPolicy | undefined;
  /** Every connection over this Unix domain socket (`withUnixSocket`). */
  readonly unixSocket?: string | undefined;
}

/** A connection pool: the transport bound to it, and the call that releases it. */
export interface Pool {
  readonly transport: Transport;
  close(): void;
  /**
   * The pool's network policy's check of `url`, as its connection to it
   * would be checked, for an answer that makes no connection (a cache's
   * hit): `undefined` when it passes at once, else a promise that rejects
   * with a `BlockedFailure` when the policy refuses it; `abort` ends a
   * lookup. Absent when the pool has no policy.
   */
  readonly checkDestination?:
    | ((url: string, abort: Abort) => Promise<void> | undefined)
    | undefined;
}

/**
 * What a runtime gives the send path. `runtime.ts` (Deno, and the global
 * `fetch` elsewhere) and `runtime_node.ts` (the npm build's, compiled in its
 * place) each export one as `runtime`, so the type checker holds both to
 * this one shape.
 */
export interface Runtime {
  /**
   * False where the runtime has no pool API and sends with the global
   * `fetch`, which cannot apply {@linkcode NetworkOptions}: the builder
   * refuses them there.
   */
  readonly pooled: boolean;
  /** False where the runtime has no file system: a `files` path is refused there, naming the runtime. */
  readonly files: boolean;
  /** Creates a connection pool with the client's pool options and network settings. */
  createPool(options?: PoolOptions, network?: NetworkOptions): Pool;
  /**
   * Opens a `files` path as a source of known size whose bytes are read
   * only as it is streamed (each stream reads the file anew). Fails, as
   * reading it would, when the file is missing or cannot be read.
   */
  openFile(path: string): Promise<FileSource>;
  /**
   * `node:diagnostics_channel`, for the tracing channels (send/channels.ts),
   * where the runtime has it: at once, or a promise of it where getting it
   * at once costs (Deno); `undefined` where there is none.
   */
  diagnosticsChannel():
    | DiagnosticsChannel
    | undefined
    | Promise<DiagnosticsChannel | undefined>;
}

/** What the tracing channels use of `node:diagnostics_channel`. */
export interface DiagnosticsChannel {
  tracingChannel(name: string): unknown;
}

/** A file on disk as a body part: its size when opened, its bytes read as streamed. A `Blob` is one. */
export interface FileSource {
  readonly size: number;
  stream(): ReadableStream<Uint8Array>;
}

/**
 * The abort side of one step of a call (an exchange, a retry wait), as a
 * transport sees it: the timer, the client's close and the caller's signal
 * abort it, and the transport listens. The send path's `Step`
 * (send/deadline.ts) is one. It is not an `AbortSignal` because on Node an
 * `AbortController` costs about 3 µs to make, and with the listener undici
 * adds to it about as much CPU as a quarter of the whole request; a
 * transport that needs a signal (fetch) asks for one with
 * {@linkcode Abort.signal}.
 */
export interface Abort {
  /** True once aborted. */
  readonly aborted: boolean;
  /** Calls `listener` once when aborted (at once if already aborted). */
  onAbort(listener: () => void): void;
  /** Undoes {@linkcode Abort.onAbort} for `listener`. */
  offAbort(listener: () => void): void;
  /** An `AbortSignal` that aborts with this. */
  signal(): AbortSignal;
}
