// The Node counterpart of `runtime.ts`: the npm build compiles this file in
// its place, so the npm package pools connections in an undici `Agent` and
// sends with undici's `dispatch()` (several times the throughput of fetch on
// Node), reads files with node:fs, and never branches on the runtime again.
// Like `runtime.ts`, it exports one `Runtime` as `runtime`.

import { readFile as readNodeFile } from "node:fs/promises";
import { Readable } from "node:stream";
import type { Transform } from "node:stream";
import { Agent, errors, FormData as UndiciFormData } from "undici";
import type { Dispatcher } from "undici";
import { BodyDecodeError, declaresMoreThan, headOverflow } from "./fetch_transport.ts";
import { BodyBuffer, BodyTooLarge } from "./body_buffer.ts";
import { decodersFor, readDecoded } from "./node_decoders.ts";
import type { Pool, PoolOptions, Runtime, WireRequest, WireResponse } from "./types.ts";
import type { Abort } from "../client/deadline/abort.ts";

/** An undici `Agent` per pool, and node:fs. */
export const runtime: Runtime = { createPool, readFile };

/**
 * Creates a pool: an undici `Agent`. Deno's option names map to undici's
 * (`poolIdleTimeout` → `keepAliveTimeout`, `http2` → `allowH2`); other
 * options pass through to the Agent. undici's own headers and body timeouts
 * are off: the client's timeout covers the whole exchange.
 */
function createPool(options: PoolOptions = {}): Pool {
  const { poolIdleTimeout, poolMaxIdlePerHost: _, http1: __, http2, ...rest } = options;
  const agentOptions: Agent.Options = { headersTimeout: 0, bodyTimeout: 0, ...rest };
  if (typeof poolIdleTimeout === "number") agentOptions.keepAliveTimeout = poolIdleTimeout;
  if (poolIdleTimeout === false) agentOptions.keepAliveMaxTimeout = 2 ** 31 - 1;
  if (http2 !== undefined) agentOptions.allowH2 = http2;
  const agent = new Agent(agentOptions);
  return {
    transport: (wire, abort) => send(agent, wire, abort),
    close: () => void agent.destroy().catch(() => {}),
  };
}

/** Reads a whole file from disk. */
async function readFile(path: string): Promise<Uint8Array> {
  return await readNodeFile(path);
}

// The headers Node's fetch adds when a request has none of its own.
const FETCH_DEFAULTS: readonly (readonly [string, string])[] = [
  ["accept", "*/*"],
  ["accept-encoding", "gzip, deflate, br"],
  ["user-agent", "node"],
];

/**
 * Sends one request with undici's `dispatch()`, the layer under `request()`:
 * the response body is collected by the handler ({@linkcode Exchange})
 * instead of through a `Readable` per response, which took about a third of
 * undici's own CPU time per request.
 */
function send(agent: Agent, wire: WireRequest, abort: Abort): Promise<WireResponse> {
  const exchange = new Exchange(wire.method, abort);
  try {
    const url = new URL(wire.url);
    agent.dispatch({
      origin: url.origin,
      path: url.pathname + url.search,
      method: wire.method as Dispatcher.HttpMethod,
      headers: withFetchDefaults(wire.headers),
      body: typeof wire.body === "object" ? toUndiciForm(wire.body) : wire.body ?? null,
    }, exchange);
  } catch (error) {
    return Promise.reject(error);
  }
  return exchange.head;
}

/** How much of a discarded body is read before the connection is dropped instead (as undici's `dump()`). */
const DISCARD_LIMIT = 128 * 1024;

/**
 * One exchange as undici's dispatch handler, and its response once the head
 * has arrived ({@linkcode Exchange.head}). The body is collected as it comes:
 * into a {@linkcode BodyBuffer} once `bytes()` has set the limit (the chunks
 * before that are held as they came) when it is not encoded, else through a
 * `Readable` into the decoders. Aborting the step aborts the exchange, even while it waits for
 * a connection.
 */
class Exchange implements Dispatcher.DispatchHandler, WireResponse {
  status = 0;
  headers: Record<string, string> = {};
  location: string | null = null;
  /** Resolves with this once the response head has arrived. */
  readonly head: Promise<WireResponse>;
  readonly #method: string;
  readonly #abort: Abort;
  #resolveHead!: (response: WireResponse) => void;
  #rejectHead!: (error: unknown) => void;
  #started = false;
  #controller: Dispatcher.DispatchController | undefined;
  /** The chunks that came before `bytes()`. */
  #pending: Uint8Array[] = [];
  #size = 0;
  #body: BodyBuffer | undefined;
  #ended = false;
  #failed = false;
  #error: unknown;
  #discarding = false;
  #waiter: { resolve(bytes: Uint8Array): void; reject(error: unknown): void } | undefined;
  /** The encoded body, for the decoders. */
  #encoded: Readable | undefined;
  #decoders: Transform[] = [];

  constructor(method: string, abort: Abort) {
    this.#method = method;
    this.#abort = abort;
    this.head = new Promise((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
    abort.onAbort(this.#onAbort);
  }

  readonly #onAbort = (): void => {
    const reason = new errors.RequestAbortedError();
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.onResponseError(undefined, reason);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abort.aborted || this.#failed) controller.abort(new errors.RequestAbortedError());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 1xx: informational, the response is still to come.
    this.status = statusCode;
    this.headers = joinHeaders(headers);
    this.location = this.headers["location"] ?? null;
    this.#decoders = decodersFor(this.#method, statusCode, this.headers["content-encoding"]);
    if (this.#decoders.length > 0) this.#encoded = new Readable({ read() {} });
    this.#started = true;
    this.#resolveHead(this);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Uint8Array): void {
    if (this.#encoded !== undefined) {
      this.#encoded.push(chunk);
      return;
    }
    if (this.#body !== undefined) {
      try {
        this.#body.append(chunk);
      } catch (error) {
        controller.abort(error as Error);
      }
      return;
    }
    this.#size += chunk.byteLength;
    if (!this.#discarding) this.#pending.push(chunk);
    else if (this.#size > DISCARD_LIMIT) controller.abort(new errors.RequestAbortedError());
  }

  onResponseEnd(): void {
    this.#ended = true;
    if (this.#encoded !== undefined) this.#encoded.push(null);
    else if (this.#body !== undefined) this.#waiter?.resolve(this.#body.bytes());
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: unknown): void {
    if (this.#failed || this.#ended) return;
    this.#failed = true;
    this.#error = error;
    this.#abort.offAbort(this.#onAbort);
    if (!this.#started) this.#rejectHead(headOverflow(error) ?? error);
    else if (this.#encoded !== undefined) this.#encoded.destroy(error as Error);
    else this.#waiter?.reject(error);
  }

  bytes(maxBytes: number): Promise<Uint8Array> {
    if (this.#encoded !== undefined) {
      return readDecoded(this.#encoded, this.#decoders, maxBytes).catch(this.#decodeFailed);
    }
    const bodiless = this.#method === "HEAD" || this.status === 204 || this.status === 304;
    const declared = bodiless ? undefined : this.headers["content-length"];
    if (this.#size > maxBytes || declaresMoreThan(declared, maxBytes)) {
      this.#controller?.abort(new errors.RequestAbortedError());
      return Promise.reject(new BodyTooLarge(maxBytes));
    }
    if (this.#failed) return Promise.reject(this.#error);
    const length = Number(declared);
    const body = new BodyBuffer(maxBytes, Number.isSafeInteger(length) ? length : undefined);
    for (const chunk of this.#pending) body.append(chunk);
    this.#pending = [];
    if (this.#ended) return Promise.resolve(body.bytes());
    this.#body = body;
    return new Promise((resolve, reject) => this.#waiter = { resolve, reject });
  }

  /**
   * A decoded read failed: when the exchange itself did not (a cut
   * connection fails it first), a decoder rejected the bytes, and the rest
   * of the body is not worth reading.
   */
  readonly #decodeFailed = (error: unknown): never => {
    if (this.#failed) throw error;
    this.#controller?.abort(new errors.RequestAbortedError());
    if (error instanceof BodyTooLarge) throw error;
    throw new BodyDecodeError(this.headers["content-encoding"]?.trim() ?? "", error);
  };

  discard(): Promise<void> {
    this.#pending = [];
    this.#body = undefined;
    if (this.#encoded !== undefined) this.#encoded.destroy();
    else if (!this.#ended && !this.#failed) this.#discarding = true;
    return Promise.resolve();
  }
}

/**
 * undici's `dispatch()` (and `request()`) encodes multipart bodies only from its own FormData
 * class (it checks the brand, and Node's global FormData is another copy).
 */
function toUndiciForm(form: FormData): UndiciFormData {
  const copy = new UndiciFormData();
  for (const [name, value] of form) {
    if (typeof value === "string") copy.append(name, value);
    else copy.append(name, value, value.name);
  }
  return copy;
}

/** The headers as undici's flat `[name, value, ...]` list, fetch's defaults added. */
function withFetchDefaults(headers: Readonly<Record<string, string>>): string[] {
  const flat: string[] = [];
  let given = 0;
  for (const name in headers) {
    flat.push(name, headers[name] as string);
    const lower = name.toLowerCase();
    for (let i = 0; i < FETCH_DEFAULTS.length; i++) {
      if ((FETCH_DEFAULTS[i] as readonly [string, string])[0] === lower) given |= 1 << i;
    }
  }
  FETCH_DEFAULTS.forEach(([name, value], i) => {
    if ((given & (1 << i)) === 0) flat.push(name, value);
  });
  return flat;
}

/** undici's headers with repeated ones joined by ", ", as `Headers.get` does. */
function joinHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const record: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) record[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return record;
}
