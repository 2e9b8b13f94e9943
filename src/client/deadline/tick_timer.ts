// The timer of the shared timeout tick (timeouts.ts). On Deno, setTimeout
// goes through the Node-compatible timers, and their first use loads Node's
// timers, errors and async-hooks modules: about 5 ms and 4 MB, a quarter of
// what a script sending one request costs. AbortSignal.timeout() runs on
// Deno's own web timers and holds the process open exactly while it has an
// "abort" listener: the same ref and unref, without that load. A replaced
// setTimeout (a fake clock, instrumentation) is honoured: the tick then runs
// on it, as everywhere but Deno. Even reading Deno's global setTimeout loads
// those modules (it is a lazy getter until replaced, then a plain value), so
// its property descriptor is what tells the two apart.

/** A timer as Node and Deno return it; a browser's is a number, without these. */
export interface Ref {
  ref?(): void;
  unref?(): void;
}

const onDeno = "Deno" in globalThis;

/** True while Deno's setTimeout is its own, not yet loaded or replaced. */
function denoOwnTimers(): boolean {
  return onDeno && Object.getOwnPropertyDescriptor(globalThis, "setTimeout")?.get !== undefined;
}

/**
 * Calls `run` once after `ms` milliseconds, holding the process open until
 * then unless unref'd. Unlike Node's, a timer unref'd when its time comes
 * does not run: referenced again later, it runs `ms` after that.
 */
export function startTick(run: () => void, ms: number): Ref {
  return denoOwnTimers() ? new SignalTimer(run, ms) : setTimeout(run, ms) as Ref;
}

/**
 * Holds `tick` (made by {@linkcode startTick} for `run` and `ms`) open again,
 * or a new tick in its place when it runs on Deno's own timers and either
 * its time passed while it was let go (it never ran, so it is still there)
 * or setTimeout has been replaced since: a fake clock installed between two
 * calls must drive the next timeout, as it does where setTimeout serves.
 */
export function holdTick(tick: Ref, run: () => void, ms: number): Ref {
  if (tick instanceof SignalTimer && (tick.lapsed || !denoOwnTimers())) return startTick(run, ms);
  tick.ref?.();
  return tick;
}

class SignalTimer implements Ref {
  readonly #run: () => void;
  readonly #ms: number;
  #signal: AbortSignal;
  #held = true;

  constructor(run: () => void, ms: number) {
    this.#run = run;
    this.#ms = ms;
    this.#signal = AbortSignal.timeout(ms);
    this.#signal.addEventListener("abort", run, { once: true });
  }

  /** True when its time passed while it was let go: it did not run. */
  get lapsed(): boolean {
    return !this.#held && this.#signal.aborted;
  }

  ref(): void {
    if (this.#held) return;
    this.#held = true;
    // Its time passed while it was let go, and it did not run: start again.
    if (this.#signal.aborted) this.#signal = AbortSignal.timeout(this.#ms);
    this.#signal.addEventListener("abort", this.#run, { once: true });
  }

  unref(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#signal.removeEventListener("abort", this.#run);
  }
}
