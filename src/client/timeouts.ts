// Request timeouts. A timer per request costs more than it seems (on Deno,
// setTimeout goes through the Node-compatible timers: several µs per
// request, a tenth of fetch's own cost), and nearly every timer is cleared
// unfired. So timeouts of a second or more share one ticking timer that
// checks their deadlines every TICK_MS, and fire at most TICK_MS late; shorter
// ones keep a timer of their own. The tick runs only while a timeout waits.

/** Timeouts from this length on share the tick. */
const SHARED_FROM_MS = 1000;
/** How often the shared tick checks the deadlines: also how late a shared timeout may fire. */
const TICK_MS = 100;

interface Deadline {
  readonly at: number;
  readonly fire: () => void;
}

const waiting = new Set<Deadline>();
let tick: ReturnType<typeof setTimeout> | undefined;

function check(): void {
  tick = undefined;
  const now = performance.now();
  for (const deadline of waiting) {
    if (deadline.at <= now) {
      waiting.delete(deadline);
      deadline.fire();
    }
  }
  if (waiting.size > 0) tick = setTimeout(check, TICK_MS);
}

/**
 * Calls `fire` after `ms` milliseconds unless the returned function is
 * called first.
 */
export function startTimeout(ms: number, fire: () => void): () => void {
  if (ms < SHARED_FROM_MS) {
    const id = setTimeout(fire, ms);
    return () => clearTimeout(id);
  }
  const deadline: Deadline = { at: performance.now() + ms, fire };
  waiting.add(deadline);
  tick ??= setTimeout(check, TICK_MS);
  return () => {
    waiting.delete(deadline);
    if (waiting.size === 0 && tick !== undefined) {
      clearTimeout(tick);
      tick = undefined;
    }
  };
}
