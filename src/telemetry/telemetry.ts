// telemetry() (API.md "Timings and telemetry"): OpenTelemetry spans and
// metrics of a client's calls, as a middleware. One INTERNAL span a logical
// call (held by the call's context), one CLIENT span an exchange under it,
// with the HTTP semantic conventions; the duration and active-requests
// metrics; W3C trace context sent unless the runtime's fetch sends its own.
// The call's end is told by the `fetchline:request` tracing channel (its
// start's store names the call inside it); where the runtime has no
// `node:diagnostics_channel`, a call's span ends with its last exchange.

import {
  type Attributes,
  type Context,
  context as otelContext,
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
  type TracerProvider,
  type UpDownCounter,
} from "@opentelemetry/api";
import type { Exchange, MiddlewareFunction } from "../hooks/hook_interfaces.ts";
import type { RequestContext } from "../models/context.ts";
import type { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import type { ResponseTimings } from "../models/timings.ts";
import { checkKnownKeys, describeType, keysOf } from "../models/_validate.ts";
import { isCredentialField } from "../masking/credentials.ts";

/** Options of {@linkcode telemetry}. */
export interface TelemetryOptions {
  /**
   * Where the spans go: an OpenTelemetry `TracerProvider` (`@opentelemetry/api`'s type; written
   * here by its one method so the entry point's types need none of that package's). Default: the
   * global one (`trace.getTracerProvider()`).
   */
  tracerProvider?: { getTracer(name: string, version?: string): unknown } | undefined;
  /**
   * Where the metrics go: an OpenTelemetry `MeterProvider`, likewise. Default: the global one
   * (`metrics.getMeterProvider()`).
   */
  meterProvider?: { getMeter(name: string, version?: string): unknown } | undefined;
  /**
   * Send `traceparent` (and `tracestate`) of each exchange's span. Default
   * `true`; never when the runtime's fetch sends its own (Deno with
   * `OTEL_DENO=true`) or the request carries one.
   */
  propagate?: boolean | undefined;
}

const OPTION_KEYS = keysOf<TelemetryOptions>({
  tracerProvider: true,
  meterProvider: true,
  propagate: true,
});

const NAME = "@fetchline/fetchline";
/** The buckets the HTTP semantic conventions advise for `http.client.request.duration`, in seconds. */
const DURATION_BUCKETS = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.075,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
];

/** One logical call's span and what ends it. */
interface CallSpan {
  readonly span: Span;
  readonly context: Context;
  /** Exchanges whose CLIENT span is still open. */
  open: number;
  /** The call has returned or failed (the `fetchline:request` channel told). */
  settled: boolean;
  /** No channel tells the call's end: it ends with its last exchange. */
  readonly untold: boolean;
  ended: boolean;
  /** The call's final status, or what it failed with, once settled. */
  status?: number | undefined;
  error?: unknown;
}

/** The part of `node:diagnostics_channel` and `node:async_hooks` used. */
interface Runtime {
  readonly store: { getStore(): object | undefined } | undefined;
  readonly calls: WeakMap<object, CallSpan>;
}

/**
 * OpenTelemetry for a client's calls, as a middleware
 * (`withMiddleware(telemetry())`, ideally first, so that it sees cache hits
 * and the traffic controls' waits): one span of kind INTERNAL per logical
 * call, named after its method, whose children are one CLIENT span per
 * exchange (each attempt, redirect hop, resend after a 401, hedge, resume)
 * with the HTTP semantic conventions: `http.request.method`, `url.full`
 * (user-info removed, credential query values `REDACTED`), `server.address`,
 * `server.port`, `http.response.status_code`, `http.request.resend_count`
 * (from the second exchange), `error.type`, and `response.timings` as
 * events; `fetchline.exchange.reason` (`retry`, `redirect`, `auth`,
 * `hedge`, `resume`), `fetchline.cache.hit` and `fetchline.queue.duration_ms`
 * (a rate-limit or concurrency wait). The metrics
 * `http.client.request.duration` (seconds, the conventions' buckets) and
 * `http.client.active_requests`. Each request carries the W3C `traceparent`
 * of its exchange's span, unless the runtime's own fetch sends one (Deno with
 * `OTEL_DENO=true`: its fetch spans then nest under the exchange's) or the
 * request has one. No header value, cookie or body is ever an attribute.
 *
 * @param options The providers (default: the global ones) and `propagate`.
 * @returns The middleware.
 * @throws {TypeError} For an unknown option or a provider without `getTracer`/`getMeter`.
 *
 * @example Spans and metrics of a client's calls
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import { telemetry } from "@fetchline/fetchline/telemetry";
 *
 * // With no SDK registered the global providers are OpenTelemetry's no-op ones.
 * await using client = new HttpClient(
 *   new HttpClientConfigBuilder().withMiddleware(telemetry()).build(),
 * );
 * ```
 */
export function telemetry(options: TelemetryOptions = {}): MiddlewareFunction {
  checkKnownKeys("telemetry options", options, OPTION_KEYS);
  const { tracerProvider, meterProvider, propagate = true } = options;
  if (tracerProvider !== undefined && typeof tracerProvider?.getTracer !== "function") {
    throw new TypeError(
      `Invalid tracerProvider: expected a TracerProvider, got ${describeType(tracerProvider)}`,
    );
  }
  if (meterProvider !== undefined && typeof meterProvider?.getMeter !== "function") {
    throw new TypeError(
      `Invalid meterProvider: expected a MeterProvider, got ${describeType(meterProvider)}`,
    );
  }
  if (typeof propagate !== "boolean") {
    throw new TypeError(`Invalid propagate: expected a boolean, got ${describeType(propagate)}`);
  }
  const provider = (tracerProvider as TracerProvider | undefined) ?? trace.getTracerProvider();
  const tracer = provider.getTracer(NAME);
  const meter = ((meterProvider as MeterProvider | undefined) ?? metrics.getMeterProvider())
    .getMeter(NAME);
  const duration = meter.createHistogram("http.client.request.duration", {
    description: "Duration of HTTP client requests.",
    unit: "s",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  // A no-op meter's instruments record nothing: none are kept, so an exchange skips them.
  const instruments: Instruments | undefined = duration instanceof NOOP_HISTOGRAM ? undefined : {
    duration,
    active: meter.createUpDownCounter("http.client.active_requests", {
      description: "Number of active HTTP requests.",
      unit: "{request}",
    }),
  };
  const idle = idleTracing(provider, tracer);
  const sendTraceparent = propagate && !runtimeSendsTraceparent();
  const calls = new WeakMap<RequestContext, CallSpan>();
  // The call channel's store is bound (which makes every call of the process run it) only once
  // the tracer is not the no-op one: with it there is no call span to find.
  let runtime = idle() ? undefined : callChannel();
  return (request, next, exchange) => {
    // A no-op tracer (no SDK registered): no span, no context, no store; the metrics only.
    // With OpenTelemetry's no-op global providers, fetchline's CPU per call ÷ fetchline+telemetry's
    // (bench/ab_network.ts --clients fetchline,fetchline+telemetry, GET c=1 and c=64) went from
    // 0.845 and 0.776 (a store bound to every call's channel, two spans and a context an
    // exchange) to 1.02 and 0.89-0.95, what an empty middleware costs (bench/RESULTS.md).
    if (idle()) {
      return instruments === undefined
        ? next(request)
        : sendMetered(instruments, request, next, exchange);
    }
    // The tracer came alive after telemetry() (an SDK registered later): the first call
    // traced so ends with its last exchange, as where no channel tells a call's end.
    runtime ??= callChannel();
    const attributes = requestAttributes(request);
    const call = callSpanOf(calls, runtime, tracer, request, attributes, exchange.context);
    return sendTraced(
      tracer,
      instruments,
      call,
      attributes,
      request,
      next,
      exchange,
      sendTraceparent,
    );
  };
}

/** The class of the no-op meter's histograms. */
const NOOP_HISTOGRAM = createNoopMeter().createHistogram("noop").constructor;
/** The provider a `ProxyTracerProvider` hands on to while none is registered, and its tracers' class. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
const NOOP_TRACER = NOOP_PROVIDER.getTracer(NAME).constructor;

/**
 * Tells whether `tracer` (of `provider`) is OpenTelemetry's no-op one now:
 * a proxy's (the global provider's) until an SDK is registered behind it,
 * or one of the no-op provider's. Anything else counts as recording.
 */
function idleTracing(provider: TracerProvider, tracer: Tracer): () => boolean {
  if (provider instanceof ProxyTracerProvider) {
    return () => provider.getDelegate() === NOOP_PROVIDER;
  }
  const noop = tracer instanceof NOOP_TRACER;
  return () => noop;
}

interface Instruments {
  readonly duration: Histogram;
  readonly active: UpDownCounter;
}

/** The span of the call of `context`, started with its first exchange. */
function callSpanOf(
  calls: WeakMap<RequestContext, CallSpan>,
  runtime: Runtime | undefined,
  tracer: Tracer,
  request: HttpRequest,
  attributes: Attributes,
  context: RequestContext,
): CallSpan {
  const known = calls.get(context);
  if (known !== undefined && !known.ended) return known;
  const parent = otelContext.active();
  const span = tracer.startSpan(request.method, { kind: SpanKind.INTERNAL, attributes }, parent);
  const message = runtime?.store?.getStore();
  const call: CallSpan = {
    span,
    context: trace.setSpan(parent, span),
    open: 0,
    settled: false,
    untold: message === undefined,
    ended: false,
  };
  if (message !== undefined) runtime!.calls.set(message, call);
  calls.set(context, call);
  return call;
}

/** One exchange in its CLIENT span, under its call's. */
async function sendTraced(
  tracer: Tracer,
  instruments: Instruments | undefined,
  call: CallSpan,
  requested: Attributes,
  request: HttpRequest,
  next: (request: HttpRequest) => Promise<HttpResponse>,
  exchange: Exchange,
  sendTraceparent: boolean,
): Promise<HttpResponse> {
  const attributes = { ...requested };
  if (exchange.attempt > 1) attributes["http.request.resend_count"] = exchange.attempt - 1;
  if (exchange.reason !== "first") attributes["fetchline.exchange.reason"] = exchange.reason;
  const span = tracer.startSpan(
    request.method,
    { kind: SpanKind.CLIENT, attributes },
    call.context,
  );
  const started = performance.now();
  const metricAttributes = metricAttributesOf(attributes);
  instruments?.active.add(1, metricAttributes);
  call.open++;
  const end = (response: HttpResponse | undefined, error: unknown) => {
    instruments?.active.add(-1, metricAttributes);
    const final: Attributes = { ...metricAttributes };
    if (response !== undefined) {
      const status = response.statusCode;
      span.setAttribute("http.response.status_code", status);
      final["http.response.status_code"] = status;
      // A span nobody records (a no-op provider's, one not sampled) needs no more.
      if (span.isRecording()) {
        addTimings(span, response.timings);
        if (/(^|,)\s*fetchline;\s*hit\b/.test(response.headers["cache-status"] ?? "")) {
          span.setAttribute("fetchline.cache.hit", true);
        }
      }
      if (status >= 400) {
        span.setAttribute("error.type", String(status));
        final["error.type"] = String(status);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    if (error !== undefined) {
      const type = errorType(error);
      span.setAttribute("error.type", type);
      final["error.type"] = type;
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
    instruments?.duration.record((performance.now() - started) / 1000, final);
    span.end();
    call.open--;
    endCallWhenOver(call, response, error);
  };
  let sent = request;
  if (sendTraceparent && !hasTraceparent(request)) {
    const headers = traceHeaders(span);
    if (headers !== undefined) sent = request.withHeaders(headers);
  }
  // Within the exchange's span: the runtime's own fetch span (Deno's) nests under it.
  return await endedOnce(
    exchange,
    () => otelContext.with(trace.setSpan(call.context, span), () => next(sent)),
    end,
  );
}

/** One exchange while the tracer is a no-op: its metrics only, as {@linkcode sendTraced} records them. */
async function sendMetered(
  instruments: Instruments,
  request: HttpRequest,
  next: (request: HttpRequest) => Promise<HttpResponse>,
  exchange: Exchange,
): Promise<HttpResponse> {
  const metricAttributes = metricAttributesOf(requestAttributes(request));
  const started = performance.now();
  instruments.active.add(1, metricAttributes);
  const end = (response: HttpResponse | undefined, error: unknown) => {
    instruments.active.add(-1, metricAttributes);
    const final: Attributes = { ...metricAttributes };
    if (response !== undefined) {
      final["http.response.status_code"] = response.statusCode;
      if (response.statusCode >= 400) final["error.type"] = String(response.statusCode);
    }
    if (error !== undefined) final["error.type"] = errorType(error);
    instruments.duration.record((performance.now() - started) / 1000, final);
  };
  return await endedOnce(exchange, () => next(request), end);
}

/**
 * `send()`'s response, with `end` told once, when the exchange is over: a
 * streamed body's end (`onEnd`), else when `send()` settles (also when the
 * exchange was already over, its step ended, before `onEnd` could be asked).
 */
async function endedOnce(
  exchange: Exchange,
  send: () => Promise<HttpResponse>,
  end: (response: HttpResponse | undefined, error: unknown) => void,
): Promise<HttpResponse> {
  let done = false;
  const once = (response: HttpResponse | undefined, error: unknown) => {
    if (done) return;
    done = true;
    end(response, error);
  };
  let watched = exchange.streamed;
  if (watched) {
    try {
      exchange.onEnd(({ response, error }) => once(response, error));
    } catch {
      watched = false;
    }
  }
  try {
    const response = await send();
    if (!watched) once(response, undefined);
    return response;
  } catch (error) {
    once(undefined, error);
    throw error;
  }
}

/** Ends the call's span once the call is over and its last exchange too. */
function endCallWhenOver(call: CallSpan, response: HttpResponse | undefined, error: unknown): void {
  if (call.untold) {
    // No channel tells the call's end: the exchange that returns is its last.
    if (response !== undefined && call.open === 0) {
      queueMicrotask(() => {
        if (call.open === 0 && !call.ended) endCall(call, response.statusCode, undefined);
      });
    } else if (error !== undefined && call.open === 0) endCall(call, undefined, error);
    return;
  }
  if (call.settled && call.open === 0) endCall(call, call.status, call.error);
}

function endCall(call: CallSpan, status: number | undefined, error: unknown): void {
  if (call.ended) return;
  call.ended = true;
  const { span } = call;
  if (status !== undefined) {
    span.setAttribute("http.response.status_code", status);
    if (status >= 400) {
      span.setAttribute("error.type", String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  if (error !== undefined) {
    const type = errorType(error);
    span.setAttribute("error.type", type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  }
  span.end();
}

/** The HTTP semantic conventions' request attributes of `request`: no header, no body. */
function requestAttributes(request: HttpRequest): Attributes {
  const url = new URL(request.url);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return {
    "http.request.method": request.method,
    "url.full": fullUrl(url),
    "server.address": url.hostname.replace(/^\[|\]$/g, ""),
    "server.port": port,
  };
}

/** The metrics' attributes: the conventions' low-cardinality ones (no URL). */
function metricAttributesOf(attributes: Attributes): Attributes {
  return {
    "http.request.method": attributes["http.request.method"],
    "server.address": attributes["server.address"],
    "server.port": attributes["server.port"],
  };
}

/**
 * `url` as the conventions' `url.full`: without user-info, each value of a
 * query parameter that carries a credential (the one definition,
 * `isCredentialField`) `REDACTED`, the fragment dropped.
 */
export function fullUrl(url: URL): string {
  let query = "";
  if (url.search.length > 1) {
    query = "?" + url.search.slice(1).split("&").map((pair) => {
      const at = pair.indexOf("=");
      const name = at === -1 ? pair : pair.slice(0, at);
      return at !== -1 && isCredentialField(name) ? `${name}=REDACTED` : pair;
    }).join("&");
  }
  return `${url.protocol}//${url.host}${url.pathname}${query}`;
}

/** The conventions' `error.type`: the exception's class name. */
function errorType(error: unknown): string {
  if (error instanceof Error) return error.name === "Error" ? error.constructor.name : error.name;
  return "_OTHER";
}

/** `timings` as the span's events: one a phase told, its duration in milliseconds. */
function addTimings(span: Span, timings: ResponseTimings): void {
  const attributes: Attributes = {};
  for (const [phase, value] of Object.entries(timings)) {
    if (value !== undefined) attributes[`fetchline.timings.${phase}`] = value;
  }
  span.addEvent("fetchline.timings", attributes);
  if (timings.queueMs !== undefined) {
    span.setAttribute("fetchline.queue.duration_ms", timings.queueMs);
  }
}

/** True when `request` carries a `traceparent` already (its sender's own). */
function hasTraceparent(request: HttpRequest): boolean {
  for (const name in request.headers) if (name.toLowerCase() === "traceparent") return true;
  return false;
}

/** The W3C trace context headers of `span`, or none for a span that is not sampled or valid. */
function traceHeaders(span: Span): Record<string, string> | undefined {
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId) || /^0+$/.test(spanId)) {
    return undefined;
  }
  const flags = (traceFlags & 0xff).toString(16).padStart(2, "0");
  const headers: Record<string, string> = { traceparent: `00-${traceId}-${spanId}-${flags}` };
  const state = traceState?.serialize();
  if (state) headers.tracestate = state;
  return headers;
}

/**
 * True when the runtime's fetch sends a `traceparent` of its own: Deno with
 * OpenTelemetry on (`OTEL_DENO=true`), whose tracer starts spans only then.
 */
function runtimeSendsTraceparent(): boolean {
  // Read by name: the npm builds for Node and browsers name no Deno API.
  const deno = Reflect.get(globalThis, "Deno") as
    | { telemetry?: { tracerProvider?: TracerProvider } }
    | undefined;
  const provider = deno?.telemetry?.tracerProvider;
  if (provider === undefined) return false;
  try {
    // Not ended, so never exported: only asks whether Deno's exporter is on.
    provider.getTracer(NAME).startSpan("fetchline.probe");
    return true;
  } catch {
    return false;
  }
}

/** The runtime's `node:diagnostics_channel` and `node:async_hooks`, where it has them. */
function builtin(name: string): unknown {
  try {
    const process = (globalThis as {
      process?: { getBuiltinModule?: (name: string) => unknown };
    }).process;
    return process?.getBuiltinModule?.(name);
  } catch {
    return undefined;
  }
}

interface DiagnosticsChannel {
  tracingChannel(name: string): {
    start: { bindStore(store: unknown, transform: (message: object) => object): void };
    asyncEnd: { subscribe(listener: (message: unknown) => void): void };
    error: { subscribe(listener: (message: unknown) => void): void };
  };
}

let shared: Runtime | undefined | null = null;

/**
 * Subscribes, once a process, to the end of each call on
 * `fetchline:request`, with a store that names the call inside it: the
 * telemetry of every client reads it.
 */
function callChannel(): Runtime | undefined {
  if (shared !== null) return shared;
  const diagnostics = builtin("node:diagnostics_channel") as DiagnosticsChannel | undefined;
  const hooks = builtin("node:async_hooks") as
    | { AsyncLocalStorage: new () => { getStore(): object | undefined } }
    | undefined;
  if (diagnostics === undefined || hooks === undefined) return shared = undefined;
  const channel = diagnostics.tracingChannel("fetchline:request");
  const store = new hooks.AsyncLocalStorage();
  const calls = new WeakMap<object, CallSpan>();
  channel.start.bindStore(store, (message) => message);
  const settled = (message: unknown, error: unknown) => {
    const call = calls.get(message as object);
    if (call === undefined) return;
    calls.delete(message as object);
    call.settled = true;
    call.status = (message as { statusCode?: number }).statusCode;
    call.error = error;
    if (call.open === 0) endCall(call, call.status, error);
  };
  channel.asyncEnd.subscribe((message) => {
    const error = (message as { error?: unknown }).error;
    if (error === undefined) settled(message, undefined);
  });
  channel.error.subscribe((message) => settled(message, (message as { error?: unknown }).error));
  return shared = { store, calls };
}
