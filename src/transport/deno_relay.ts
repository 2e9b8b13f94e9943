// A relay in the process, on a loopback port of its own, that Deno's HTTP
// client connects through so that the library picks the address each
// connection goes to: the network policy's checked address, or the target
// itself when the connection must be direct whatever the environment's
// proxies say (`withProxy(null)`). Deno's client takes a proxy of its own
// over the environment's HTTP_PROXY, and Deno 2.9.6 pins a client to one
// address only with its `tcp` transport, which speaks plain HTTP even to an
// https URL. So https goes through the relay as through an HTTP proxy, a
// CONNECT tunnel (TLS end to end: the certificate is checked for the URL's
// host), and http through the `tcp` transport, whose absolute-form request
// line the relay writes back in origin form; the http client keeps no idle
// connection (`poolMaxIdlePerHost: 0`), so each connection carries one
// request and only its head needs rewriting. Every connection to the relay
// is one lookup, one check, one connection. The relay serves its own pool
// only: every other process on the machine can reach a loopback port, so
// each relay has a random secret its pool presents as the proxy's
// credentials, and a connection without it is answered 407 and closed,
// before any lookup or connection. Only deno_pools.ts (Deno) imports this file.

import { basicAuthorization } from "../http/headers.ts";
import { checkedAddresses, urlRefusal } from "./network_policy.ts";
import { BlockedFailure } from "./failures.ts";
import type { NetworkPolicy } from "./types.ts";
import type { TransportPhases } from "../models/timings.ts";

/** A TCP connection, as the relay uses Deno's. */
interface Conn {
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  close(): void;
}

/** What the relay needs of Deno. */
export interface DenoNet {
  listen(options: { hostname: string; port: number }): AsyncIterable<Conn> & {
    readonly addr: unknown;
    close(): void;
  };
  connect(options: { hostname: string; port: number; signal?: AbortSignal }): Promise<Conn>;
  resolveDns(
    query: string,
    type: "A" | "AAAA",
    options?: { signal?: AbortSignal },
  ): Promise<string[]>;
}

/** The longest request head the relay reads before giving up on a connection. */
const MAX_HEAD = 64 * 1024;
const END_OF_HEAD = "\r\n\r\n";
/**
 * The longest the relay waits for its lookup and connection to a target, as
 * undici's connect timeout on Node (10 s); the call's own deadlines and
 * signal end it sooner, by closing the connection to the relay.
 */
const CONNECT_LIMIT_MS = 10_000;

/** `host:port` as the relay and the transport both name a target. */
export function targetKey(hostname: string, port: string | number): string {
  return `${hostname.toLowerCase()}:${port}`;
}

/**
 * The relay: a listener on 127.0.0.1 at an ephemeral port, the connections
 * it relays, and the failures of the targets it could not connect to, kept
 * for the transport to throw in place of Deno's client's own words. Its pool
 * sends {@linkcode Relay.credentials} as the proxy's.
 */
export class Relay {
  readonly port: number;
  readonly #deno: DenoNet;
  readonly #policy: NetworkPolicy | undefined;
  readonly #listener: ReturnType<DenoNet["listen"]>;
  readonly #conns = new Set<Conn>();
  readonly #failures = new Map<string, { sequence: number; error: unknown }>();
  /** The last connection opened to each target: its mark, the one before it, its phases. */
  readonly #opened = new Map<
    string,
    { sequence: number; previous: number; phases: TransportPhases }
  >();
  readonly #connectLimitMs: number;
  readonly #secret = randomSecret();
  readonly #expected: Uint8Array;
  #sequence = 0;
  #closed = false;

  /** @param connectLimitMs The longest wait for a target's lookup and connection. */
  constructor(
    deno: DenoNet,
    policy: NetworkPolicy | undefined,
    connectLimitMs = CONNECT_LIMIT_MS,
  ) {
    this.#deno = deno;
    this.#policy = policy;
    this.#connectLimitMs = connectLimitMs;
    this.#expected = latin1Bytes(basicAuthorization(RELAY_USER, this.#secret));
    this.#listener = deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.port = (this.#listener.addr as { port: number }).port;
    void this.#accept();
  }

  /** The proxy credentials the pool presents (Deno's `basicAuth`); never shown. */
  get credentials(): { username: string; password: string } {
    return { username: RELAY_USER, password: this.#secret };
  }

  /** A mark to pass {@linkcode Relay.failureSince} later. */
  get sequence(): number {
    return this.#sequence;
  }

  /** The failure of a connection to `key` recorded after `sequence`, if any. */
  failureSince(key: string, sequence: number): unknown {
    const failure = this.#failures.get(key);
    return failure !== undefined && failure.sequence > sequence ? failure.error : undefined;
  }

  /**
   * The phases of the one connection to `key` opened after `sequence`: its
   * lookup (the policy's, when it resolved the host) and its connection;
   * `{ reused: true }` when none was opened (the client reused one);
   * `undefined` when more were.
   */
  openedSince(key: string, sequence: number): TransportPhases | undefined {
    const opened = this.#opened.get(key);
    if (opened === undefined || opened.sequence <= sequence) return { reused: true };
    return opened.previous <= sequence ? opened.phases : undefined;
  }

  /**
   * Stops listening and ends every connection relayed, and so every lookup
   * or connection under way for one.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listener.close();
    for (const conn of this.#conns) closeQuietly(conn);
    this.#conns.clear();
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#listener) void this.#relay(conn);
    } catch {
      // Closed.
    }
  }

  async #relay(conn: Conn): Promise<void> {
    this.#conns.add(conn);
    let upstream: Conn | undefined;
    const timer = new AbortController();
    const limit = setTimeout(() => timer.abort(), this.#connectLimitMs);
    try {
      const head = await readHead(conn);
      if (head === undefined) return;
      const { tunnel, hostname, port, first, authorization } = parseHead(head);
      if (!sameBytes(latin1Bytes(authorization), this.#expected)) {
        await conn.write(PROXY_AUTH_REQUIRED);
        return;
      }
      if (hostname === "") return;
      const key = targetKey(hostname, port);
      // What the client sends while the target is being connected to (a
      // forwarded request's body) is held; its end (the call aborted, its
      // deadline passed, the relay closed) ends the wait.
      const reader = conn.readable.getReader();
      const next = reader.read();
      const gone = new AbortController();
      next.then((read) => read.done && gone.abort(), () => gone.abort());
      const signal = AbortSignal.any([timer.signal, gone.signal]);
      const phases: TransportPhases = { reused: false };
      try {
        upstream = await this.#open(hostname, port, signal, phases);
        this.#opened.set(key, {
          sequence: ++this.#sequence,
          previous: this.#opened.get(key)?.sequence ?? 0,
          phases,
        });
      } catch (error) {
        if (gone.signal.aborted) return;
        this.#failures.set(key, {
          sequence: ++this.#sequence,
          error: timer.signal.aborted
            ? connectTimeout(hostname, port, this.#connectLimitMs)
            : error,
        });
        if (tunnel) await conn.write(encoder.encode("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
        return;
      }
      this.#conns.add(upstream);
      if (this.#closed) return;
      clearTimeout(limit);
      if (tunnel) await conn.write(encoder.encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      const to = upstream;
      await Promise.all([
        joined(first, next, reader).pipeTo(to.writable).catch(() => {}),
        to.readable.pipeTo(conn.writable).catch(() => {}),
      ]);
    } catch {
      // The client or the target went away.
    } finally {
      clearTimeout(limit);
      for (const end of [conn, upstream]) {
        if (end === undefined) continue;
        this.#conns.delete(end);
        closeQuietly(end);
      }
    }
  }

  /**
   * A connection to the target: without a policy, by name, as Deno resolves
   * it; with one, to the first address the policy allowed (an allowed
   * address as it is, an allowed host by name when the policy has no
   * `resolve` of its own). `signal` ends the wait, the lookup and the
   * connection. `phases` is told how long the policy's lookup (`dnsMs`) and
   * the connection (`connectMs`, a lookup of Deno's own included) took.
   */
  async #open(
    hostname: string,
    port: number,
    signal: AbortSignal,
    phases: TransportPhases,
  ): Promise<Conn> {
    const bare = hostname.replace(/^\[(.*)\]$/, "$1");
    const policy = this.#policy;
    const connect = async (address: string) => {
      const start = performance.now();
      const conn = await untilAborted(
        this.#deno.connect({ hostname: address, port, signal }),
        signal,
        closeQuietly,
      );
      phases.connectMs = performance.now() - start;
      return conn;
    };
    if (policy === undefined) return await connect(bare);
    const refused = urlRefusal(policy, new URL(`http://${hostname}/`));
    if (refused instanceof BlockedFailure) throw refused;
    if (refused === undefined) return await connect(bare);
    const lookup = performance.now();
    const addresses = await untilAborted(
      checkedAddresses(policy, bare, (name) => resolveDns(this.#deno, name, signal)),
      signal,
    );
    phases.dnsMs = performance.now() - lookup;
    let failure: unknown;
    for (const address of addresses) {
      try {
        return await connect(address);
      } catch (error) {
        if (signal.aborted) throw error;
        failure ??= error;
      }
    }
    throw failure;
  }
}

/** The user name the pool presents to its relay; the password is the secret. */
const RELAY_USER = "fetchline-relay";

const PROXY_AUTH_REQUIRED = new TextEncoder().encode(
  'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="relay"\r\n' +
    "Content-Length: 0\r\nConnection: close\r\n\r\n",
);

/** 32 random bytes, hex: the relay's secret. */
function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** True when `a` and `b` hold the same bytes, in a time that depends on their lengths only. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.byteLength ^ b.byteLength;
  for (let i = 0; i < b.byteLength; i++) difference |= (a[i] ?? 0) ^ (b[i] as number);
  return difference === 0;
}

/**
 * `promise`, or a rejection as soon as `signal` aborts; what it resolves to
 * after that is handed to `discard`.
 */
function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  discard: (value: T) => void = () => {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      promise.then(discard, () => {});
      reject(signal.reason);
    };
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

function connectTimeout(hostname: string, port: number, ms: number): Error {
  return Object.assign(
    new Error(`Connection to ${hostname}:${port} timed out after ${ms} ms`),
    { code: "ETIMEDOUT" },
  );
}

/**
 * The bytes the client sent after its head, then the read already asked
 * for (`next`), then the rest of `reader`: what goes to the target.
 */
function joined(
  first: Uint8Array,
  next: Promise<ReadableStreamReadResult<Uint8Array>>,
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined = next;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.byteLength > 0) controller.enqueue(first);
    },
    async pull(controller) {
      const read = await (pending ?? reader.read());
      pending = undefined;
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

const encoder = new TextEncoder();

function closeQuietly(conn: Conn | undefined): void {
  try {
    conn?.close();
  } catch {
    // Already closed.
  }
}

/**
 * The name's IPv4 and IPv6 addresses from DNS (`Deno.resolveDns`, which
 * asks the system's name servers, not /etc/hosts); a runtime permission
 * error passes as it is.
 */
export async function resolveDns(
  deno: DenoNet,
  name: string,
  signal: AbortSignal,
): Promise<string[]> {
  const answers = await Promise.allSettled([
    deno.resolveDns(name, "A", { signal }),
    deno.resolveDns(name, "AAAA", { signal }),
  ]);
  const found = answers.flatMap((answer) => answer.status === "fulfilled" ? answer.value : []);
  if (found.length > 0) return found;
  const error = answers.map((answer) => answer.status === "rejected" ? answer.reason : undefined)
    .find((reason) => reason instanceof Error && reason.name !== "NotFound");
  if (error !== undefined) throw error;
  throw Object.assign(new Error(`No address found for ${name}`), { code: "ENOTFOUND" });
}

/** The request head, and the bytes after it, read from `conn`; `undefined` when it closes first. */
async function readHead(conn: Conn): Promise<Uint8Array | undefined> {
  let received = new Uint8Array(0);
  const buffer = new Uint8Array(16 * 1024);
  while (received.byteLength < MAX_HEAD) {
    const read = await conn.read(buffer);
    if (read === null) return undefined;
    const next = new Uint8Array(received.byteLength + read);
    next.set(received);
    next.set(buffer.subarray(0, read), received.byteLength);
    received = next;
    if (latin1(received).includes(END_OF_HEAD)) return received;
  }
  return undefined;
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.byteLength; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}

/** `text`'s characters as bytes, each one byte (the head is read as latin1). */
function latin1Bytes(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

/**
 * A request head to the relay: the `Proxy-Authorization` it carries, and
 * its target: a CONNECT's authority (`tunnel`, the bytes after the head to
 * forward), or a forwarded request's absolute URL, its first line written
 * back in origin form (`GET /path HTTP/1.1`) and its `Proxy-Authorization`
 * line dropped. A target that is not a URL has an empty `hostname`.
 */
function parseHead(head: Uint8Array): {
  tunnel: boolean;
  hostname: string;
  port: number;
  first: Uint8Array;
  authorization: string;
} {
  const text = latin1(head);
  const headEnd = text.indexOf(END_OF_HEAD);
  const [requestLine = "", ...fields] = text.slice(0, headEnd).split("\r\n");
  const [method = "", target = "", version = ""] = requestLine.split(" ");
  const isAuthorization = (field: string) => /^proxy-authorization:/i.test(field);
  const authorization = fields.find(isAuthorization)?.replace(/^[^:]*:\s*/, "").trim() ?? "";
  const after = head.subarray(headEnd + END_OF_HEAD.length);
  if (method === "CONNECT") {
    const url = URL.parse(`https://${target}/`);
    return {
      tunnel: true,
      hostname: url?.hostname ?? "",
      port: Number(url?.port || 443),
      first: after,
      authorization,
    };
  }
  const url = URL.parse(target);
  if (url === null) return { tunnel: false, hostname: "", port: 0, first: after, authorization };
  const kept = fields.filter((field) => !isAuthorization(field));
  const rewritten = latin1Bytes(
    [`${method} ${url.pathname}${url.search} ${version}`, ...kept].join("\r\n") + END_OF_HEAD,
  );
  const first = new Uint8Array(rewritten.byteLength + after.byteLength);
  first.set(rewritten);
  first.set(after, rewritten.byteLength);
  return {
    tunnel: false,
    hostname: url.hostname,
    port: Number(url.port || 80),
    first,
    authorization,
  };
}
