import { forEachInFlight, link, unlink } from "./in_flight.ts";
import type { InFlight } from "./in_flight.ts";
import { cancelTimeout } from "./timeouts.ts";
import type { Deadline } from "./timeouts.ts";

/**
 * The abort side of one step of a call (an exchange, a retry wait): the
 * timer, the client's close and the caller's signal abort it, and the
 * transport listens. It is not an `AbortController` because on Node one of
 * those costs about 3 µs to make, and with the listener undici adds to it
 * about as much CPU as a quarter of the whole request. undici also takes an
 * emitter of "abort" as a signal, which this is (`on`, `once`,
 * `removeListener`); a transport that needs an `AbortSignal` (fetch) asks
 * for one with {@linkcode Abort.signal}.
 */
export class Abort {
  #aborted = false;
  // Nearly always one listener (the transport's): kept in a field, with an
  // array only for the others, so a step allocates no array.
  #listener: (() => void) | undefined;
  #others: (() => void)[] | undefined;

  /** True once aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Aborts, calling every listener once; later calls do nothing. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listener = this.#listener;
    const others = this.#others;
    this.#listener = undefined;
    this.#others = undefined;
    listener?.();
    if (others !== undefined) { for (const other of others) other(); }
  }

  /** Calls `listener` once when aborted (at once if already aborted). */
  onAbort(listener: () => void): void {
    if (this.#aborted) listener();
    else if (this.#listener === undefined) this.#listener = listener;
    else (this.#others ??= []).push(listener);
  }

  /** Undoes {@linkcode Abort.onAbort} for `listener`. */
  offAbort(listener: () => void): void {
    if (this.#listener === listener) {
      this.#listener = this.#others?.shift();
      return;
    }
    const index = this.#others?.indexOf(listener) ?? -1;
    if (index !== -1) this.#others!.splice(index, 1);
  }

  /** As an emitter: {@linkcode Abort.onAbort} (any event name means "abort"). */
  on(_event: string, listener: () => void): this {
    this.onAbort(listener);
    return this;
  }

  /** As an emitter: {@linkcode Abort.onAbort}, which calls a listener once anyway. */
  once(_event: string, listener: () => void): this {
    this.onAbort(listener);
    return this;
  }

  /** As an emitter: {@linkcode Abort.offAbort}. */
  removeListener(_event: string, listener: () => void): this {
    this.offAbort(listener);
    return this;
  }

  /**
   * True when only the client's close can abort this: no timeout, no
   * caller's signal, not aborted yet. A transport may then do without an
   * `AbortSignal` ({@linkcode Abort.signal}) and watch {@linkcode Abort.onAbort}
   * instead.
   */
  get closeOnly(): boolean {
    return false;
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
  /** The client the step belongs to: its close aborts the client's steps ({@linkcode abortSteps}). */
  readonly owner: object;
  /** The caller's signal, if any. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * A step of a call, aborted by the client's close and the caller's signal
 * until {@linkcode Step.release}, and by its timeout when one was started
 * for it ({@linkcode startTimeout} from timeouts.ts). While in flight it is
 * in the list of in_flight.ts, which the client's close and the shared
 * timeout tick scan: cheaper than an `AbortSignal.any()` per step, and no
 * listener piles up on `closed`.
 */
export class Step extends Abort implements Deadline {
  /** Set by the timeout: when it expires (`Infinity`: no shared timeout). */
  at = Infinity;
  /** Set by the timeout: the step's own timer, for a short timeout. */
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  /** True once the step's timeout expired (and aborted it). */
  timedOut = false;
  /** Set with the timeout: its length in seconds, for the message. */
  seconds = 0;
  /** Set with the timeout: true when it is what remains of the call's `totalTimeout`. */
  total = false;
  /** The in-flight list's links. */
  prevInFlight: InFlight | undefined = undefined;
  /** The in-flight list's links. */
  nextInFlight: InFlight | undefined = undefined;
  /** The client the step belongs to. */
  readonly owner: object;
  readonly #signal: AbortSignal | undefined;
  #onCallerAbort: (() => void) | undefined;

  /** Starts a step of a call with these sources. */
  constructor(sources: AbortSources) {
    super();
    this.owner = sources.owner;
    link(this);
    const { signal } = sources;
    this.#signal = signal;
    if (signal !== undefined) {
      const onCallerAbort = () => this.abort();
      this.#onCallerAbort = onCallerAbort;
      signal.addEventListener("abort", onCallerAbort);
      if (signal.aborted) this.abort();
    }
    if (sources.closed.aborted) this.abort();
  }

  override get closeOnly(): boolean {
    return this.#signal === undefined && this.timer === undefined && this.at === Infinity &&
      !this.aborted;
  }

  /** The timeout passed: marks the step timed out and aborts it. */
  expire(): void {
    this.timedOut = true;
    this.abort();
  }

  /** Ends the step: its timeout, the client's close and the caller's signal no longer abort it. */
  release(): void {
    cancelTimeout(this);
    unlink(this);
    if (this.#onCallerAbort !== undefined) {
      this.#signal?.removeEventListener("abort", this.#onCallerAbort);
    }
  }
}

/**
 * Aborts every step in flight that belongs to `owner` (a client being
 * closed), or to an owner whose chain of `parent`s leads to it (a client
 * derived from it).
 */
export function abortSteps(owner: object): void {
  forEachInFlight((entry) => {
    if (!(entry instanceof Step)) return;
    for (let at: StepOwner | undefined = entry.owner; at !== undefined; at = at.parent) {
      if (at === owner) return entry.abort();
    }
  });
}

/** A step's owner, and the owner it was derived from, if any. */
interface StepOwner {
  readonly parent?: StepOwner | undefined;
}

/**
 * Waits for `pending` while `abort` holds: once it aborts, rejects with
 * `failure()` at once. `pending` itself runs on (a token fetch other calls
 * share is not cancelled), and what it settles to later is ignored.
 */
export function untilAborted<T>(
  pending: Promise<T>,
  abort: Abort,
  failure: () => unknown,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(failure());
    abort.onAbort(onAbort);
    Promise.resolve(pending).then(
      (value) => (abort.offAbort(onAbort), resolve(value)),
      (error) => (abort.offAbort(onAbort), reject(error)),
    );
  });
}
