// Request timeouts. A timer per request costs more than it seems (on Deno,
// setTimeout goes through the Node-compatible timers: about 2 µs to set and
// clear, a tenth of fetch's own cost, and their first use loads Node's timers
// modules: tick_timer.ts avoids that), and nearly every timer is cleared
// unfired. So timeouts of a second or more share one ticking timer that
// checks the deadlines of the steps in flight (in_flight.ts) every TICK_MS,
// and fire at most TICK_MS late; shorter ones keep a timer of their own. The
// tick is not cleared when the last timeout ends (a client sending one
// request after another would set and clear it for each): it is unref'd, so
// it no longer holds the process open, and stops at its next check when no
// timeout is left.

import { forEachInFlight } from "./in_flight.ts";
import type { InFlight } from "./in_flight.ts";
import { holdTick, startTick } from "./tick_timer.ts";
import type { Ref } from "./tick_timer.ts";

/** Timeouts from this length on share the tick. */
export const SHARED_FROM_MS = 1000;
/** How often the shared tick checks the deadlines: also how late a shared timeout may fire. */
const TICK_MS = 100;

/**
 * Something with a timeout: {@linkcode startTimeout} calls `expire()` when
 * it passes. It must be in the list of in_flight.ts while its timeout runs.
 */
export interface Deadline extends InFlight {
  /** When it expires, on the `performance.now()` clock (`Infinity`: no shared timeout). */
  at: number;
  /** Its own timer, for a timeout shorter than a second. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Called once when the timeout passes. */
  expire(): void;
}

/** How many deadlines wait for the shared tick. */
let shared = 0;
let tick: Ref | undefined;

function check(): void {
  tick = undefined;
  if (shared === 0) return;
  const now = performance.now();
  forEachInFlight((entry) => {
    const deadline = entry as Deadline;
    if (deadline.at <= now) {
      deadline.at = Infinity;
      shared--;
      deadline.expire();
    }
  });
  if (shared > 0) tick ??= startTick(check, TICK_MS);
}

/**
 * Calls `deadline.expire()` after `ms` milliseconds from `now`, unless
 * {@linkcode cancelTimeout} is called first.
 */
export function startTimeout(deadline: Deadline, ms: number, now = performance.now()): void {
  if (ms < SHARED_FROM_MS) {
    deadline.timer = setTimeout(() => deadline.expire(), ms);
    return;
  }
  deadline.at = now + ms;
  if (++shared === 1 && tick !== undefined) tick = holdTick(tick, check, TICK_MS);
  tick ??= startTick(check, TICK_MS);
}

/** Stops `deadline`'s timeout; it will not expire. Calling it again does nothing. */
export function cancelTimeout(deadline: Deadline): void {
  if (deadline.timer !== undefined) {
    clearTimeout(deadline.timer);
    deadline.timer = undefined;
  } else if (deadline.at !== Infinity) {
    deadline.at = Infinity;
    if (--shared === 0 && tick !== undefined) tick.unref?.();
  }
}
