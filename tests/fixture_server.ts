// The one fixture server of the tests: a Deno.serve on 127.0.0.1, port 0,
// that records every request it receives and answers as the path asks,
// including the faults a real server shows (delays, redirects, a truncated
// body), plus a raw TCP listener that drops the connection unanswered, and
// on demand the raw listeners of raw_server.ts for the faults below HTTP.

import { type RawFault, type RawServer, startRawServer } from "./raw_server.ts";

/** One request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  /** Headers with lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body bytes. */
  readonly body: Uint8Array;
  /** The client's port: the same port means the same (pooled) connection. */
  readonly remotePort: number;
}

/** A handler for a path registered by a test. */
export type Route = (request: Request, recorded: RecordedRequest) => Response | Promise<Response>;

/** The running fixture. */
export interface FixtureServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** A URL whose server reads the request and closes the connection unanswered. */
  readonly dropUrl: string;
  /** The URL of a raw listener that answers every request with `fault` (started on first use). */
  faultUrl(fault: RawFault): Promise<string>;
  /**
   * Resolves true once no raw listener holds an open connection, false if
   * some still do after `timeoutMs`: a client that gave up must hang up.
   */
  rawConnectionsClosed(timeoutMs?: number): Promise<boolean>;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** The last request received. */
  last(): RecordedRequest;
  /** Answers `path` (exact pathname) with `route` from now on. */
  route(path: string, route: Route): void;
  /** Shuts both listeners down and waits for them. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The JSON echo of a recorded request, as `/echo` answers it. */
export function echoOf(recorded: RecordedRequest): Record<string, unknown> {
  const { method, path, query, headers } = recorded;
  return { method, path, query, headers, body: decoder.decode(recorded.body) };
}

/** Parses a recorded multipart body into its parts. */
export async function formDataOf(recorded: RecordedRequest): Promise<FormData> {
  const body = recorded.body as Uint8Array<ArrayBuffer>;
  const contentType = recorded.headers["content-type"] ?? "";
  return await new Response(body, { headers: { "content-type": contentType } }).formData();
}

/** Options of {@linkcode startFixtureServer}. */
export interface FixtureOptions {
  /** Keep every request in `requests` (default); a load test turns it off to measure the client. */
  record?: boolean;
}

/** Starts the fixture. Close it with `await using` or `close()`. */
export function startFixtureServer(options: FixtureOptions = {}): FixtureServer {
  const requests: RecordedRequest[] = [];
  const keep = options.record ?? true;
  const routes = new Map<string, Route>();
  const controller = new AbortController();
  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      signal: controller.signal,
      onListen() {},
      onError: () => new Response("fixture error", { status: 500 }),
    },
    async (request, info) => {
      const url = new URL(request.url);
      const recorded: RecordedRequest = {
        method: request.method,
        path: url.pathname,
        query: url.search.slice(1),
        headers: Object.fromEntries(request.headers),
        body: new Uint8Array(await request.arrayBuffer()),
        remotePort: info.remoteAddr.port,
      };
      if (keep) requests.push(recorded);
      const route = routes.get(url.pathname);
      if (route !== undefined) return await route(replayable(request, recorded), recorded);
      return await answer(request, url, recorded);
    },
  );
  const dropper = startDropper(requests);
  const raw = new Map<RawFault, Promise<RawServer>>();
  const url = `http://127.0.0.1:${server.addr.port}`;
  const close = async () => {
    for (const wake of [...sleepers]) wake();
    controller.abort();
    const listeners = await Promise.all(raw.values());
    await Promise.all([server.finished, dropper.close(), ...listeners.map((r) => r.close())]);
  };
  return {
    url,
    dropUrl: `http://127.0.0.1:${dropper.port}`,
    async faultUrl(fault) {
      let listener = raw.get(fault);
      if (listener === undefined) raw.set(fault, listener = startRawServer(fault, requests));
      return (await listener).url;
    },
    async rawConnectionsClosed(timeoutMs = 5000) {
      const listeners = await Promise.all(raw.values());
      const open = () => listeners.some((r) => r.openConnections > 0);
      for (const deadline = Date.now() + timeoutMs; open() && Date.now() < deadline;) {
        await sleep(10);
      }
      return !open();
    },
    requests,
    last() {
      const recorded = requests.at(-1);
      if (recorded === undefined) throw new Error("The fixture has received no request");
      return recorded;
    },
    route(path, route) {
      routes.set(path, route);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A copy of `request` whose body (already read for the record) can be read again. */
function replayable(request: Request, recorded: RecordedRequest): Request {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? recorded.body as Uint8Array<ArrayBuffer> : null,
  });
}

async function answer(request: Request, url: URL, recorded: RecordedRequest): Promise<Response> {
  const [, kind = "", arg = ""] = url.pathname.split("/");
  switch (kind) {
    case "status": {
      const status = Number(arg);
      const empty = status === 204 || status === 304 || request.method === "HEAD";
      return new Response(empty ? null : JSON.stringify({ status }), {
        status,
        headers: { "content-type": "application/json" },
      });
    }
    case "delay":
      await sleep(Number(arg));
      return Response.json(echoOf(recorded));
    case "redirect":
      return redirect(Number(arg), url.searchParams.get("to") ?? "/echo");
    case "redirect-chain": {
      const left = Number(arg);
      return left > 0
        ? redirect(302, `/redirect-chain/${left - 1}`)
        : Response.json(echoOf(recorded));
    }
    case "redirect-loop":
      return redirect(302, url.pathname);
    case "truncate":
      return truncated();
    default:
      return Response.json(echoOf(recorded));
  }
}

function redirect(status: number, location: string): Response {
  return new Response(null, { status, headers: { location } });
}

/** Declares 100 bytes, sends 10, then fails the stream: the client sees a cut body. */
function truncated(): Response {
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(stream) {
      if (sent) {
        await sleep(10);
        stream.error(new Error("fixture: body truncated on purpose"));
        return;
      }
      sent = true;
      stream.enqueue(encoder.encode("0123456789"));
    },
  });
  return new Response(body, { headers: { "content-length": "100" } });
}

/** Wakers of the sleeps in progress: close() ends them all, so no timer outlives a test. */
const sleepers = new Set<() => void>();

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const id = setTimeout(done, ms);
    sleepers.add(done);
    function done() {
      clearTimeout(id);
      sleepers.delete(done);
      resolve();
    }
  });
}

/** A raw TCP listener: reads a request head, records it, closes the connection. */
function startDropper(requests: RecordedRequest[]): { port: number; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const conn of listener) {
      try {
        const head = new Uint8Array(16 * 1024);
        const n = await conn.read(head);
        const [method = "", target = ""] = decoder.decode(head.subarray(0, n ?? 0)).split(" ");
        const [path = "", query = ""] = target.split("?");
        const remotePort = (conn.remoteAddr as Deno.NetAddr).port;
        requests.push({ method, path, query, headers: {}, body: new Uint8Array(), remotePort });
      } catch {
        // The client went away first: nothing to record.
      } finally {
        conn.close();
      }
    }
  })();
  return {
    port: listener.addr.port,
    async close() {
      listener.close();
      await accepting.catch(() => {});
    },
  };
}
