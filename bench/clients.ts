/**
 * The Deno clients bench/ab_network.ts compares, each a small adapter
 * `{ setup(), get(url), post(url, body), close() }` whose calls return the
 * parsed JSON body: fetchline of a given tree, raw `fetch`, ky and ofetch.
 *
 * @module
 */

import * as fetchlineModule from "../mod.ts";
import { JSON_HEADERS } from "./_workload.mjs";

/** One client under test. */
export interface BenchClient {
  /** Creates the client (and its pool) and loads its library. */
  setup(): Promise<void>;
  /** `GET url`, the body read and parsed as JSON. */
  get(url: string): Promise<unknown>;
  /** `POST url` with `body` as JSON, the answer read and parsed as JSON. */
  post(url: string, body: unknown): Promise<unknown>;
  /** Releases the client's pool. */
  close(): Promise<void>;
}

/** What a tree's `mod.ts` exports (bench/ab_network.ts loads two trees). */
export type Library = typeof import("../mod.ts");
/** A config builder of any tree. */
export type Builder = InstanceType<Library["HttpClientConfigBuilder"]>;

/** A fetchline client of `lib` (this tree's by default), its config made by `configure`. */
export function fetchline(
  configure: (builder: Builder) => Builder,
  lib: Pick<Library, "HttpClient" | "HttpClientConfigBuilder"> = fetchlineModule,
) {
  return (): BenchClient => {
    let client: InstanceType<Library["HttpClient"]> | undefined;
    return {
      setup() {
        client = new lib.HttpClient(configure(new lib.HttpClientConfigBuilder()).build());
        return Promise.resolve();
      },
      async get(url) {
        return (await client!.get(url)).json();
      },
      async post(url, body) {
        return (await client!.post(url, { jsonData: body })).json();
      },
      async close() {
        await client![Symbol.asyncDispose]();
      },
    };
  };
}

/** Deno's `fetch` options: `client` picks the pool. */
interface DenoRequestInit extends RequestInit {
  client?: Deno.HttpClient;
}

/** Where a reference client sends: `pool` shared (the caller closes it), else a pool of its own. */
export interface PeerOptions {
  readonly pool?: Deno.HttpClient | undefined;
  /** A 30 s timeout as the library spells it; raw fetch adds `AbortSignal.timeout`. */
  readonly timeout?: boolean | undefined;
  /** Raw fetch only: the two headers the six hooks add (a correlation ID, an API key). */
  readonly hookHeaders?: boolean | undefined;
}

/** A pool for `setup()`, and the `close()` that releases it only when it is the client's own. */
function poolOf(options: PeerOptions) {
  let pool = options.pool;
  return {
    get: () => (pool ??= Deno.createHttpClient({})),
    close: () => {
      if (options.pool === undefined) pool?.close();
      return Promise.resolve();
    },
  };
}

/** Raw fetch on a `Deno.createHttpClient` pool; `timeout` adds `AbortSignal.timeout(30 s)`. */
export function rawFetch(options: PeerOptions = {}): BenchClient {
  const pool = poolOf(options);
  let client: Deno.HttpClient | undefined;
  const send = async (url: string, init: DenoRequestInit) => {
    if (options.timeout) init.signal = AbortSignal.timeout(30_000);
    if (options.hookHeaders) {
      init.headers = {
        ...init.headers as Record<string, string> | undefined,
        "X-Correlation-ID": crypto.randomUUID(),
        "X-API-Key": "bench-api-key-0123456789",
      };
    }
    return await (await fetch(url, init)).json();
  };
  return {
    setup() {
      client = pool.get();
      return Promise.resolve();
    },
    get: (url) => send(url, { client: client! }),
    post: (url, body) =>
      send(url, {
        client: client!,
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify(body),
      }),
    close: pool.close,
  };
}

/** ky; it passes the options it does not know (Deno's `client`) on to fetch. */
export function kyClient(options: PeerOptions = {}): BenchClient {
  const pool = poolOf(options);
  let ky: typeof import("ky").default | undefined;
  return {
    async setup() {
      const client = options.pool === undefined ? {} : { client: pool.get() };
      ky = (await import("ky")).default.create({
        ...client,
        ...(options.timeout ? { timeout: 30_000 } : {}),
      });
    },
    get: (url) => ky!.get(url).json(),
    post: (url, body) => ky!.post(url, { json: body }).json(),
    close: pool.close,
  };
}

/** ofetch; its options go to fetch as they are (Deno's `client` too). */
export function ofetchClient(options: PeerOptions = {}): BenchClient {
  const pool = poolOf(options);
  let ofetch: typeof import("ofetch").ofetch | undefined;
  return {
    async setup() {
      const client = options.pool === undefined ? {} : { client: pool.get() };
      ofetch = (await import("ofetch")).ofetch.create({
        ...client,
        ...(options.timeout ? { timeout: 30_000 } : {}),
      });
    },
    get: (url) => ofetch!(url),
    post: (url, body) => ofetch!(url, { method: "POST", body: body as Record<string, unknown> }),
    close: pool.close,
  };
}
