// Where an exchange's time went: the phases a response's `timings` tell,
// and the clock the send path keeps for each exchange (a start, the head,
// the body's end, and what the transport and the traffic controls told).
// A phase nobody measured stays `undefined`: never 0, never NaN.

/**
 * Where an exchange's time went, in milliseconds: the phases the runtime
 * tells (README "Timings" has the table), each `undefined` where it cannot
 * tell it. Frozen; a streamed response's `downloadMs` and `totalMs` are
 * those of its body once it ended (until then `totalMs` is the time to the
 * head).
 *
 * @example Print a call's phases
 * ```ts
 * import type { ResponseTimings } from "@fetchline/fetchline";
 *
 * function waterfall(timings: ResponseTimings): string {
 *   const phases = ["queueMs", "dnsMs", "connectMs", "tlsMs", "sendMs", "waitMs", "downloadMs"] as const;
 *   return phases
 *     .filter((phase) => timings[phase] !== undefined)
 *     .map((phase) => `${phase} ${timings[phase]!.toFixed(1)}`)
 *     .join(", ");
 * }
 * console.log(waterfall({ waitMs: 12.5, downloadMs: 0.4, totalMs: 13 }));
 * ```
 */
export interface ResponseTimings {
  /** Waiting in the traffic controls (the concurrency queue, a rate-limit or pacing wait). */
  readonly queueMs?: number | undefined;
  /** Resolving the host name. */
  readonly dnsMs?: number | undefined;
  /** Opening the connection (the TLS handshake included where `tlsMs` is unknown). */
  readonly connectMs?: number | undefined;
  /** The TLS handshake. */
  readonly tlsMs?: number | undefined;
  /** Sending the request's head and body. */
  readonly sendMs?: number | undefined;
  /**
   * Waiting for the response's head: from the request sent, or, where the
   * runtime does not tell the phases before it, from the exchange handed to
   * the transport (connecting and sending included).
   */
  readonly waitMs: number;
  /** Reading the body, from the head to its last byte. */
  readonly downloadMs?: number | undefined;
  /** The whole exchange, from its start (the middleware included) to the body's end. */
  readonly totalMs: number;
  /** True when the exchange went over a connection kept from an earlier one. */
  readonly reused?: boolean | undefined;
}

/** The phases a transport measured of one exchange (a `WireResponse`'s `timings`). */
export interface TransportPhases {
  dnsMs?: number | undefined;
  connectMs?: number | undefined;
  tlsMs?: number | undefined;
  sendMs?: number | undefined;
  /** From the request sent to the head. */
  waitMs?: number | undefined;
  reused?: boolean | undefined;
}

/**
 * One exchange's clock, kept by the send path: its start, the moment it was
 * handed to the transport, the head, the body's end, the time the traffic
 * controls held it, and the transport's phases. {@linkcode ExchangeClock.view}
 * is the frozen `timings`, made when first read and again after the body ended.
 */
export class ExchangeClock implements ResponseTimings {
  /** Milliseconds in the traffic controls' waits. */
  #queueMs: number | undefined = undefined;
  /** When the wait going on began. */
  #waitFrom = NaN;
  /** When the exchange was handed to the transport. */
  sentAt = NaN;
  #headAt = NaN;
  #endAt = NaN;
  #phases: TransportPhases | undefined = undefined;
  #view: ResponseTimings | undefined = undefined;

  /** @param start When the exchange started (`performance.now()`). */
  constructor(readonly start: number) {}

  /** A wait of the traffic controls began (`true`) or ended. */
  waiting(on: boolean): void {
    const now = performance.now();
    if (on) {
      if (Number.isNaN(this.#waitFrom)) this.#waitFrom = now;
    } else if (!Number.isNaN(this.#waitFrom)) {
      this.#queueMs = (this.#queueMs ?? 0) + now - this.#waitFrom;
      this.#waitFrom = NaN;
      this.#view = undefined;
    }
  }

  /** The head arrived at `now`, with the phases the transport measured, if any. */
  head(now: number, phases: TransportPhases | undefined): void {
    this.#headAt = now;
    this.#phases = phases;
    this.#view = undefined;
  }

  /** The body ended (read to its end) at `now`. */
  end(now: number): void {
    if (!Number.isNaN(this.#endAt)) return;
    this.#endAt = now;
    this.#view = undefined;
  }

  /** True once the body ended. */
  get ended(): boolean {
    return !Number.isNaN(this.#endAt);
  }

  // As a ResponseTimings (a response's init carries the clock as its `timings`).
  get queueMs(): number | undefined {
    return this.view().queueMs;
  }
  get dnsMs(): number | undefined {
    return this.view().dnsMs;
  }
  get connectMs(): number | undefined {
    return this.view().connectMs;
  }
  get tlsMs(): number | undefined {
    return this.view().tlsMs;
  }
  get sendMs(): number | undefined {
    return this.view().sendMs;
  }
  get waitMs(): number {
    return this.view().waitMs;
  }
  get downloadMs(): number | undefined {
    return this.view().downloadMs;
  }
  get totalMs(): number {
    return this.view().totalMs;
  }
  get reused(): boolean | undefined {
    return this.view().reused;
  }

  /** The timings so far, frozen. */
  view(): ResponseTimings {
    if (this.#view !== undefined) return this.#view;
    const phases = this.#phases;
    const head = this.#headAt;
    const end = this.#endAt;
    const sent = Number.isNaN(this.sentAt) ? this.start : this.sentAt;
    const timings: { -readonly [K in keyof ResponseTimings]: ResponseTimings[K] } = {
      waitMs: Number.isNaN(head) ? 0 : phases?.waitMs ?? head - sent,
      totalMs: (Number.isNaN(end) ? Number.isNaN(head) ? performance.now() : head : end) -
        this.start,
    };
    if (this.#queueMs !== undefined) timings.queueMs = this.#queueMs;
    if (phases !== undefined) {
      if (phases.dnsMs !== undefined) timings.dnsMs = phases.dnsMs;
      if (phases.connectMs !== undefined) timings.connectMs = phases.connectMs;
      if (phases.tlsMs !== undefined) timings.tlsMs = phases.tlsMs;
      if (phases.sendMs !== undefined) timings.sendMs = phases.sendMs;
      if (phases.reused !== undefined) timings.reused = phases.reused;
    }
    if (!Number.isNaN(end) && !Number.isNaN(head)) timings.downloadMs = end - head;
    return this.#view = Object.freeze(timings);
  }
}

/** Timings as given to `new HttpResponse()`, checked and frozen; a response made without: its `elapsedMs`. */
export function givenTimings(
  timings: ResponseTimings | undefined,
  elapsedMs: number,
): ResponseTimings {
  if (timings === undefined) return Object.freeze({ waitMs: elapsedMs, totalMs: elapsedMs });
  if (timings === null || typeof timings !== "object") {
    throw new TypeError(`Invalid timings: expected an object, got ${typeof timings}`);
  }
  const copy: Record<string, number | boolean> = {};
  for (const [name, value] of Object.entries(timings)) {
    if (value === undefined) continue;
    if (name === "reused") {
      if (typeof value !== "boolean") {
        throw new TypeError(`Invalid timings.reused: expected a boolean, got ${typeof value}`);
      }
    } else if (!PHASES.has(name)) {
      throw new TypeError(`Unknown key in timings: ${JSON.stringify(name)}`);
    } else if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
      throw new RangeError(
        `Invalid timings.${name}: expected a finite number of milliseconds >= 0, got ${value}`,
      );
    }
    copy[name] = value;
  }
  copy.waitMs ??= elapsedMs;
  copy.totalMs ??= elapsedMs;
  return Object.freeze(copy) as unknown as ResponseTimings;
}

const PHASES: ReadonlySet<string> = new Set([
  "queueMs",
  "dnsMs",
  "connectMs",
  "tlsMs",
  "sendMs",
  "waitMs",
  "downloadMs",
  "totalMs",
]);
