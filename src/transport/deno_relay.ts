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
// request and only its first line needs rewriting. Every connection to the
// relay is one lookup, one check, one connection. Only runtime.ts (Deno)
// imports this file.

import { checkedAddresses, urlRefusal } from "./network_policy.ts";
import { BlockedFailure } from "./failures.ts";
import type { NetworkPolicy } from "./types.ts";

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
  connect(options: { hostname: string; port: number }): Promise<Conn>;
  resolveDns(query: string, type: "A" | "AAAA"): Promise<string[]>;
}

/** The longest request head the relay reads before giving up on a connection. */
const MAX_HEAD = 64 * 1024;
const END_OF_HEAD = "\r\n\r\n";

/** `host:port` as the relay and the transport both name a target. */
export function targetKey(hostname: string, port: string | number): string {
  return `${hostname.toLowerCase()}:${port}`;
}

/**
 * The relay: a listener on 127.0.0.1 at an ephemeral port, the connections
 * it relays, and the failures of the targets it could not connect to, kept
 * for the transport to throw in place of Deno's client's own words.
 */
export class Relay {
  readonly port: number;
  readonly #deno: DenoNet;
  readonly #policy: NetworkPolicy | undefined;
  readonly #listener: ReturnType<DenoNet["listen"]>;
  readonly #conns = new Set<Conn>();
  readonly #failures = new Map<string, { sequence: number; error: unknown }>();
  #sequence = 0;
  #closed = false;

  constructor(deno: DenoNet, policy: NetworkPolicy | undefined) {
    this.#deno = deno;
    this.#policy = policy;
    this.#listener = deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.port = (this.#listener.addr as { port: number }).port;
    void this.#accept();
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

  /** Stops listening and ends every connection relayed. */
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
    try {
      const head = await readHead(conn);
      if (head === undefined) return;
      const { tunnel, hostname, port, first } = parseHead(head);
      const key = targetKey(hostname, port);
      try {
        upstream = await this.#open(hostname, port);
      } catch (error) {
        this.#failures.set(key, { sequence: ++this.#sequence, error });
        if (tunnel) await conn.write(encoder.encode("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
        return;
      }
      this.#conns.add(upstream);
      if (this.#closed) return;
      if (tunnel) await conn.write(encoder.encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      if (first.byteLength > 0) await upstream.write(first);
      const to = upstream;
      await Promise.all([
        conn.readable.pipeTo(to.writable).catch(() => {}),
        to.readable.pipeTo(conn.writable).catch(() => {}),
      ]);
    } catch {
      // The client or the target went away.
    } finally {
      for (const end of [conn, upstream]) {
        if (end === undefined) continue;
        this.#conns.delete(end);
        closeQuietly(end);
      }
    }
  }

  /**
   * A connection to the target: without a policy, by name, as Deno resolves
   * it; with one, to the first address the policy allowed (an address or an
   * allowed host as it is).
   */
  async #open(hostname: string, port: number): Promise<Conn> {
    const bare = hostname.replace(/^\[(.*)\]$/, "$1");
    const policy = this.#policy;
    if (policy === undefined) return await this.#deno.connect({ hostname: bare, port });
    const refused = urlRefusal(policy, new URL(`http://${hostname}/`));
    if (refused instanceof BlockedFailure) throw refused;
    if (refused === undefined) return await this.#deno.connect({ hostname: bare, port });
    const addresses = await checkedAddresses(policy, bare, (name) => resolveDns(this.#deno, name));
    let failure: unknown;
    for (const address of addresses) {
      try {
        return await this.#deno.connect({ hostname: address, port });
      } catch (error) {
        failure ??= error;
      }
    }
    throw failure;
  }
}

const encoder = new TextEncoder();

function closeQuietly(conn: Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}

/**
 * The name's IPv4 and IPv6 addresses from DNS (`Deno.resolveDns`, which
 * asks the system's name servers, not /etc/hosts); a runtime permission
 * error passes as it is.
 */
async function resolveDns(deno: DenoNet, name: string): Promise<string[]> {
  const answers = await Promise.allSettled([
    deno.resolveDns(name, "A"),
    deno.resolveDns(name, "AAAA"),
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

/**
 * The target of a request head: a CONNECT's authority (`tunnel`, the bytes
 * after the head to forward), or a forwarded request's absolute URL, its
 * first line written back in origin form (`GET /path HTTP/1.1`).
 */
function parseHead(head: Uint8Array): {
  tunnel: boolean;
  hostname: string;
  port: number;
  first: Uint8Array;
} {
  const text = latin1(head);
  const lineEnd = text.indexOf("\r\n");
  const [method = "", target = "", version = ""] = text.slice(0, lineEnd).split(" ");
  if (method === "CONNECT") {
    const url = new URL(`https://${target}/`);
    const headEnd = text.indexOf(END_OF_HEAD) + END_OF_HEAD.length;
    return {
      tunnel: true,
      hostname: url.hostname,
      port: Number(url.port || 443),
      first: head.subarray(headEnd),
    };
  }
  const url = new URL(target);
  const line = `${method} ${url.pathname}${url.search} ${version}`;
  const rest = head.subarray(lineEnd);
  const first = new Uint8Array(line.length + rest.byteLength);
  first.set(encoder.encode(line));
  first.set(rest, line.length);
  return { tunnel: false, hostname: url.hostname, port: Number(url.port || 80), first };
}
