// The read timeout of a streamed body: each wait for the next chunk may last
// at most the timeout. A timeout of a second or more is a deadline on the
// shared timeout tick while a read waits (nothing per chunk but a clock
// reading); a shorter one has one timer per body, moved on to the deadline of
// the read waiting when it fires early, as a timer per chunk costs more than
// the chunk on a fast connection.

import { link, unlink } from "./deadline/in_flight.ts";
import type { InFlight } from "./deadline/in_flight.ts";
import { cancelTimeout, type Deadline, SHARED_FROM_MS, startTimeout } from "./deadline/timeouts.ts";

/** The read timeout of one body; `expire` is called when a read waited the whole of it. */
export class ReadTimeout implements Deadline {
  at = Infinity;
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  prevInFlight: InFlight | undefined = undefined;
  nextInFlight: InFlight | undefined = undefined;
  #linked = false;
  /** A short timeout's: when the read now waiting began; -1 when none waits. */
  #waitingSince = -1;
  /** A short timeout's one timer, while armed. */
  #own: ReturnType<typeof setTimeout> | undefined = undefined;
  #stopped = false;

  /**
   * @param ms The timeout, in milliseconds.
   * @param expire Called once a read has waited `ms`.
   */
  constructor(readonly ms: number, readonly expire: () => void) {}

  /** A read now waits for the next chunk (a read already waiting keeps its deadline). */
  wait(): void {
    if (this.#stopped) return;
    if (this.ms >= SHARED_FROM_MS) {
      if (this.at !== Infinity) return;
      if (!this.#linked) {
        this.#linked = true;
        link(this);
      }
      startTimeout(this, this.ms);
      return;
    }
    if (this.#waitingSince >= 0) return;
    this.#waitingSince = performance.now();
    this.#own ??= setTimeout(this.#onTimer, this.ms);
  }

  /** The read waiting got its chunk, the end or a failure. */
  waited(): void {
    if (this.at !== Infinity) cancelTimeout(this);
    this.#waitingSince = -1;
  }

  /** The body is done: no read waits any more. */
  stop(): void {
    this.#stopped = true;
    this.waited();
    clearTimeout(this.#own);
    this.#own = undefined;
    if (this.#linked) unlink(this);
    this.#linked = false;
  }

  /**
   * A short timeout's timer fired: a read waiting for less than the timeout
   * moves it on to that read's own deadline, one waiting for the whole
   * timeout expires, and with no read waiting the next read arms it.
   */
  readonly #onTimer = (): void => {
    this.#own = undefined;
    if (this.#waitingSince < 0 || this.#stopped) return;
    const left = this.#waitingSince + this.ms - performance.now();
    if (left > 0) this.#own = setTimeout(this.#onTimer, left);
    else this.expire();
  };
}
