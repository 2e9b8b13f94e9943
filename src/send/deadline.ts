// The deadlines of a call: each step (an attempt's exchange, with its token
// fetch, redirects and body read; a retry wait) is an Abort (transport/
// types.ts) that its timeout, the client's close and the caller's signal
// end. The parts, top to bottom: the call's timeouts as its steps see them,
// the step, the shared timeout tick, its timer, and the list of steps in
// flight that the tick and the client's close scan.

import type { HttpRequest } from "../models/request.ts";
import type { RetryPolicy } from "../config/config.ts";
import {
  abortedCallError,
  type HttpClientException,
  runtimeName,
  timedOut,
  type TimeoutException,
} from "../errors.ts";
import type { Abort } from "../transport/types.ts";

// The timeouts of a call as its steps see them: each step (an attempt's
// exchange, with its token fetch, redirects and body read) runs under the
// attempt's `timeout` or what remains of the call's `totalTimeout`,
// whichever ends first; a retry wait must end within the total. A step with
// neither starts no timer at all.

/** The timeouts of a call. */
export interface CallTimeouts {
  /** The timeout of one attempt in seconds, for a request without its own (`null`: none). */
  readonly timeout: number | null;
  /** The timeout of the whole call in seconds (`null`: none). */
  readonly totalTimeout: number | null;
  /**
   * When the call's `totalTimeout` ends, on the `performance.now()` clock:
   * set once per call, when its attempts start (send/attempts.ts).
   */
  readonly endsAt?: number | undefined;
}

/** The timeout of an attempt of `request`: its own when set (`null` included), else the client's. */
export function attemptTimeout(request: HttpRequest, options: CallTimeouts): number | null {
  return request.timeout === undefined ? options.timeout : request.timeout;
}

/**
 * Starts the timeout of `step`: `seconds` (the attempt's, `null`: none), or
 * what remains of the call's total timeout when that ends first. A step
 * that starts past the call's end expires at once. Records on the step
 * which timeout it runs under, for the message.
 */
export function startStepTimeout(
  step: Step,
  seconds: number | null,
  options: CallTimeouts,
  now = performance.now(),
): void {
  const { endsAt } = options;
  if (endsAt !== undefined && (seconds === null || now + seconds * 1000 > endsAt)) {
    step.seconds = options.totalTimeout ?? 0;
    step.total = true;
    if (endsAt <= now) step.expire();
    else startTimeout(step, endsAt - now, now);
    return;
  }
  if (seconds === null) return;
  step.seconds = seconds;
  startTimeout(step, seconds * 1000, now);
}

/** True once the call's total timeout has passed: nothing more is tried. */
export function callExpired(options: CallTimeouts, now = performance.now()): boolean {
  return options.endsAt !== undefined && now >= options.endsAt;
}

/** True when a wait of `ms` starting now would end past the call's total timeout. */
function waitPassesDeadline(
  options: CallTimeouts,
  ms: number,
  now = performance.now(),
): boolean {
  return options.endsAt !== undefined && now + ms > options.endsAt;
}

/**
 * Waits `ms` before a retry of `request`, once `announce` has told the
 * hooks: a step of its own, with no timeout but what remains of the total.
 * A wait past the call's total timeout fails at once, untold. The hooks are
 * told within the call: an `onRetry` that never settles is left behind at
 * the call's total timeout, its signal or the client's close, as the wait
 * itself is.
 */
export async function retryWait(
  ms: number,
  request: HttpRequest,
  options: CallTimeouts & AbortSources & { readonly retry: Pick<RetryPolicy, "sleep"> },
  announce: () => Promise<void>,
): Promise<void> {
  if (waitPassesDeadline(options, ms)) throw retryPastDeadlineError(request, ms, options);
  const step = new Step(options);
  try {
    startStepTimeout(step, null, options);
    await withinStep(announce(), step, request, options);
    // The hooks took some of the time the wait had.
    if (waitPassesDeadline(options, ms)) throw retryPastDeadlineError(request, ms, options);
    await options.retry.sleep(ms, step.signal());
  } catch (error) {
    throw stepEndedError(request, step, options, error) ?? error;
  } finally {
    step.release();
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
 * for it ({@linkcode startTimeout}, below). While in flight it is
 * in the in-flight list below, which the client's close and the shared
 * timeout tick scan: cheaper than an `AbortSignal.any()` per step, and no
 * listener piles up on `closed`.
 */
export class Step implements Abort, Deadline {
  #aborted = false;
  // Nearly always one listener (the transport's): kept in a field, with an
  // array only for the others, so a step allocates no array.
  #listener: (() => void) | undefined = undefined;
  #others: (() => void)[] | undefined = undefined;
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
  /** What a middleware link waits in now (a queue, a rate limit), for the timeout's message. */
  waitingOn: string | undefined = undefined;
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

  /** Undoes {@linkcode Step.onAbort} for `listener`. */
  offAbort(listener: () => void): void {
    if (this.#listener === listener) {
      this.#listener = this.#others?.shift();
      return;
    }
    const index = this.#others?.indexOf(listener) ?? -1;
    if (index !== -1) this.#others!.splice(index, 1);
  }

  /** An `AbortSignal` that aborts with this. */
  signal(): AbortSignal {
    const controller = new AbortController();
    this.onAbort(() => controller.abort());
    return controller.signal;
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
 * Waits for `pending` while `step` holds: once the step has ended, rejects
 * at once with what ended it ({@linkcode stepEnded}). `pending` itself runs
 * on (a token fetch other calls share is not cancelled), and what it
 * settles to later is ignored.
 */
export function withinStep<T>(
  pending: Promise<T>,
  step: Step,
  request: HttpRequest,
  options: Pick<AbortSources, "closed" | "signal">,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(stepEnded(request, step, options));
    step.onAbort(onAbort);
    Promise.resolve(pending).then(
      (value) => (step.offAbort(onAbort), resolve(value)),
      (error) => (step.offAbort(onAbort), reject(error)),
    );
  });
}

// Request timeouts. A timer per request costs more than it seems, and
// nearly every timer is cleared unfired. The platform's own,
// `AbortSignal.timeout()` per attempt, is what raw fetch + timeout pays in
// the in-process A/B (`deno task bench:ab`, Deno 2.9.6, one run): 7.9, 4.4,
// 10.5 and 5.1 µs a call more than raw fetch (GET and POST at c=1 and
// c=64), 6-8% of a call's CPU, past the 2% that would let it replace this.
// So timeouts of a second or more share one ticking timer that checks the
// deadlines of the steps in flight (the in-flight list, below) every
// TICK_MS, and fire at most TICK_MS late; shorter ones keep a timer of
// their own. The tick is not cleared when the last timeout ends (a client
// sending one request after another would set and clear it for each): it
// is unref'd, so it no longer holds the process open, and stops at its
// next check when no timeout is left.

/**
 * Timeouts from this length on share the tick; none does in workerd, where a
 * timer belongs to the request that set it: a tick set in one request ends
 * with it, and would leave the next requests' timeouts without one.
 */
export const SHARED_FROM_MS = runtimeName() === "workerd" ? Infinity : 1000;
/** How often the shared tick checks the deadlines: also how late a shared timeout may fire. */
const TICK_MS = 100;

/**
 * Something with a timeout: {@linkcode startTimeout} calls `expire()` when
 * it passes. It must be in the in-flight list while its timeout runs.
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

// The timer of the shared timeout tick (`startTimeout`, above). On Deno, setTimeout
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

// The steps of calls in flight, in this realm: an intrusive doubly-linked
// list, so joining and leaving it allocates nothing and leaves nothing
// behind. (A Set or Map of the objects in flight, added to and deleted from
// once per request, made V8's young-generation collections several times
// slower: the objects reachable from them were kept, then promoted.)
// The shared timeout tick scans it for deadlines; a client's close scans it
// for its own steps.

/** An entry of the list; its links belong to the list. */
export interface InFlight {
  /** The entry before this one, while in the list. */
  prevInFlight: InFlight | undefined;
  /** The entry after this one, while in the list. */
  nextInFlight: InFlight | undefined;
}

let first: InFlight | undefined;

/** Adds `entry` to the list. */
export function link(entry: InFlight): void {
  entry.prevInFlight = undefined;
  entry.nextInFlight = first;
  if (first !== undefined) first.prevInFlight = entry;
  first = entry;
}

/** Removes `entry` from the list; an entry not in it is left alone. */
export function unlink(entry: InFlight): void {
  const { prevInFlight: prev, nextInFlight: next } = entry;
  if (prev !== undefined) prev.nextInFlight = next;
  else if (first === entry) first = next;
  else return;
  if (next !== undefined) next.prevInFlight = prev;
  entry.prevInFlight = undefined;
  entry.nextInFlight = undefined;
}

/** Calls `visit` with every entry; `visit` may unlink the entry it is given. */
export function forEachInFlight(visit: (entry: InFlight) => void): void {
  let entry = first;
  while (entry !== undefined) {
    const next = entry.nextInFlight;
    visit(entry);
    entry = next;
  }
}

// The exceptions of a step that its timeout, the client's close or the
// caller's signal ended: built here, where the deadline is, and nowhere else.

/**
 * The exception for a `step` of `request` that its timeout (a
 * {@linkcode TimeoutException}), the client's close or the caller's signal
 * ended, or `undefined` when none did.
 */
export function stepEndedError(
  request: HttpRequest,
  step: Step,
  options: Pick<AbortSources, "closed" | "signal">,
  cause?: unknown,
): HttpClientException | undefined {
  if (step.timedOut) {
    // The attempt's timeout keeps the message it always had; the others are named.
    const which = step.total ? " (totalTimeout)" : "";
    const where = step.waitingOn === undefined ? "" : ` waiting in ${step.waitingOn}`;
    const error = timedOut(
      request,
      `Request timed out after ${step.seconds} s${which}${where}`,
      cause,
    );
    if (step.total) callTimeouts.add(error);
    return error;
  }
  return abortedCallError(request, options, cause);
}

/**
 * What a wait in the ended `step` of `request` fails with: its exception
 * ({@linkcode stepEndedError}), or a plain abort for a step ended otherwise.
 */
export function stepEnded(
  request: HttpRequest,
  step: Step,
  options: Pick<AbortSources, "closed" | "signal">,
): unknown {
  return stepEndedError(request, step, options) ?? new Error("Step aborted");
}

/** The exceptions of steps that the call's total timeout ended. */
const callTimeouts = new WeakSet<object>();

/**
 * True for the exception of a step the call's `totalTimeout` ended: the
 * call is over, whatever the clock says (a timer may fire a little early).
 */
export function endedByTotalTimeout(error: unknown): boolean {
  return typeof error === "object" && error !== null && callTimeouts.has(error);
}

/**
 * The exception for a call whose retry wait of `ms` would end past its
 * total timeout: it fails at once rather than wait for a try it cannot make.
 */
function retryPastDeadlineError(
  request: HttpRequest,
  ms: number,
  options: CallTimeouts,
): TimeoutException {
  const wait = Math.round(ms) / 1000;
  return timedOut(
    request,
    `Retry wait of ${wait} s would pass the totalTimeout of ${options.totalTimeout} s`,
  );
}
