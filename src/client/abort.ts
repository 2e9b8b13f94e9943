/**
 * The abort side of one step of a call (an exchange, a retry wait): the
 * timer, the client's close and the caller's signal abort it, and the
 * transport listens. It is not an `AbortController` because on Node one of
 * those, with the listener undici adds to it, costs about as much CPU as a
 * quarter of the whole request; a transport that needs an `AbortSignal`
 * (fetch) asks for one with {@linkcode Abort.signal}.
 */
export class Abort {
  #aborted = false;
  #listeners: (() => void)[] = [];

  /** True once aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Aborts, calling every listener once; later calls do nothing. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }

  /**
   * Calls `listener` when aborted (at once if already aborted).
   *
   * @returns The call that removes the listener.
   */
  onAbort(listener: () => void): () => void {
    if (this.#aborted) {
      listener();
      return () => {};
    }
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index !== -1) this.#listeners.splice(index, 1);
    };
  }

  /** An `AbortSignal` that aborts with this. */
  signal(): AbortSignal {
    const controller = new AbortController();
    this.onAbort(() => controller.abort());
    return controller.signal;
  }
}

/** What ties a step to its call: the client's close and the caller's signal. */
export interface AbortSources {
  /** Aborted when the client closes. */
  readonly closed: AbortSignal;
  /** The client's steps in flight, which its close aborts. */
  readonly exchanges: Set<Abort>;
  /** The caller's signal, if any. */
  readonly signal?: AbortSignal | undefined;
}

/** A step the client's close and the caller's signal abort until `release()`. */
export interface Step {
  readonly abort: Abort;
  release(): void;
}

/**
 * Starts a step: registered with the client (whose close aborts it, cheaper
 * than an `AbortSignal.any()` per step and with no listener piling up on
 * `closed`) and, when the caller gave a signal, listening to it.
 */
export function startStep(sources: AbortSources): Step {
  const abort = new Abort();
  const onCallerAbort = () => abort.abort();
  sources.exchanges.add(abort);
  sources.signal?.addEventListener("abort", onCallerAbort);
  if (sources.closed.aborted || sources.signal?.aborted) abort.abort();
  return {
    abort,
    release() {
      sources.exchanges.delete(abort);
      sources.signal?.removeEventListener("abort", onCallerAbort);
    },
  };
}
