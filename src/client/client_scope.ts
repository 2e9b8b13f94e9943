// What a client shares with the clients derived from it (`extend()`), and
// who closes what. A derived client sends through its parent's pool when it
// kept the parent's pool settings (the same `withPool`, `withProxy`,
// `withTls` and `withFetch` objects); with any of them changed it has a
// pool of its own. A client's close reaches every client derived from it,
// as a scope does: their calls fail as its own do, and the pools they own
// are released. A derived client's close never closes the pool it shares.
//
// The parent holds no strong reference to a derived client (a client
// derived for one call, sharing the pool, and never closed costs nothing
// once dropped; one with a pool of its own keeps that pool open until it or
// the parent closes, as any unclosed client keeps its pool): the
// derived client's `closed` signal follows the parent's through
// `AbortSignal.any()`, a step knows its client's scope and its parents, and
// only a pool, once made, listens for its owner's close.

import type { HttpClientConfig } from "../config/config.ts";
import { runtime } from "../transport/runtime.ts";
import { fetchTransport } from "../transport/fetch.ts";
import type { Pool, Transport } from "../transport/types.ts";
import { abortSteps } from "./deadline/abort.ts";
import type { CallCounter } from "./lifecycle.ts";
import { CallsInFlight } from "./lifecycle.ts";

/** The pool settings a client sends with; a derived client shares the pool only when all are the same objects. */
type PoolSettings = Pick<HttpClientConfig, "pool" | "proxy" | "tls" | "fetch">;

/** The lifetime of one client, and its place among the clients derived from one another. */
export class ClientScope {
  /** The scope of the client this one's was derived from; its close ends this one too. */
  readonly parent: ClientScope | undefined;
  /** Aborted when this client, or one it was derived from, is closed. */
  readonly signal: AbortSignal;
  /** This client's calls in flight, counted for its parents too (their `await using` waits for them). */
  readonly calls: CallsInFlight;
  readonly #closer = new AbortController();
  readonly #pool: SharedPool;

  /** A client's scope: a new pool, or its parent's when `parent` is given and the settings match. */
  constructor(settings: PoolSettings, parent?: ClientScope) {
    this.parent = parent;
    if (parent === undefined) {
      this.signal = this.#closer.signal;
      this.calls = new CallsInFlight();
    } else {
      this.signal = AbortSignal.any([this.#closer.signal, parent.signal]);
      this.calls = new NestedCalls(parent.calls);
    }
    this.#pool = parent !== undefined && parent.#pool.fits(settings)
      ? parent.#pool
      : new SharedPool(settings, this.signal);
  }

  /** True once this client, or one it was derived from, is closed. */
  get closed(): boolean {
    return this.signal.aborted;
  }

  /** True when this scope sends through its parent's pool. */
  get sharesPool(): boolean {
    return this.parent !== undefined && this.parent.#pool === this.#pool;
  }

  /** The transport of this client's pool, made on first use. */
  transport(): Transport {
    return this.#pool.transport();
  }

  /**
   * Closes this client and every client derived from it: their steps in
   * flight are aborted, and the pools they own released (a pool listens for
   * its owner's `signal`). A shared pool stays open for its owner.
   */
  close(): void {
    if (this.#closer.signal.aborted) return;
    this.#closer.abort(new DOMException("Client is closed", "AbortError"));
    abortSteps(this);
  }
}

/** A derived client's count of calls in flight, which its parent's count includes. */
class NestedCalls extends CallsInFlight {
  readonly #parent: CallCounter;

  constructor(parent: CallCounter) {
    super();
    this.#parent = parent;
  }

  override started(): void {
    super.started();
    this.#parent.started();
  }

  override ended(): void {
    super.ended();
    this.#parent.ended();
  }
}

/**
 * A pool and the settings it was made with, made on the first request of
 * any client that sends through it, and released when its owner's `closed`
 * signal aborts (the owner's close, or the close of a client the owner was
 * derived from). A custom fetch (`withFetch`) has no pool to release.
 */
class SharedPool {
  readonly #settings: PoolSettings;
  readonly #closed: AbortSignal;
  #transport: Transport | undefined;

  constructor(settings: PoolSettings, closed: AbortSignal) {
    this.#settings = settings;
    this.#closed = closed;
  }

  /** True when a client with these settings may send through this pool: the same objects, or none of each. */
  fits(settings: PoolSettings): boolean {
    const own = this.#settings;
    return settings.pool === own.pool && settings.proxy === own.proxy &&
      settings.tls === own.tls && settings.fetch === own.fetch;
  }

  transport(): Transport {
    return this.#transport ??= this.#create();
  }

  #create(): Transport {
    const { fetch, pool: options, proxy, tls } = this.#settings;
    if (fetch !== undefined) return fetchTransport(fetch);
    const pool: Pool = runtime.createPool(options, proxy === undefined ? { tls } : { proxy, tls });
    this.#closed.addEventListener("abort", () => pool.close(), { once: true });
    return pool.transport;
  }
}
