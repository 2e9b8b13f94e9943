/**
 * The Deno clients the throughput benchmark compares, each a small adapter
 * `{ name, setup(), get(url), post(url, body), close() }` whose calls return
 * the parsed JSON body. Each library is imported in `setup()`, so a
 * measurement process loads only the client it measures.
 *
 * @module
 */

import * as fetchlineModule from "../mod.ts";
import type { HttpClientConfigBuilder } from "../mod.ts";
import { JSON_HEADERS, withFiveHooks as fiveHooksOf } from "./_workload.ts";

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

/** A client the benchmark can run. */
export interface ClientSpec {
  /** The name used in flags and tables. */
  readonly name: string;
  /** What it is, for RESULTS.md. */
  readonly description: string;
  /** Permissions its measurement process needs besides `--allow-net=127.0.0.1`. */
  readonly permissions: readonly string[];
  /** Creates a fresh adapter. */
  create(): BenchClient;
}

/**
 * The five hooks of "fetchline+hooks": `withLogging` (LoggingRequestHook,
 * LoggingResponseHook, LoggingErrorHook, to a no-op logger),
 * CorrelationIdHook, and TokenAuthHook over a cached token.
 */
export function withFiveHooks(builder: HttpClientConfigBuilder): HttpClientConfigBuilder {
  return fiveHooksOf(fetchlineModule, builder);
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

function axiosClient(): BenchClient {
  let axios: import("axios").AxiosInstance | undefined;
  return {
    async setup() {
      axios = (await import("axios")).default.create();
    },
    get: async (url) => (await axios!.get(url)).data,
    post: async (url, body) => (await axios!.post(url, body)).data,
    close: () => Promise.resolve(),
  };
}

/** Every Deno client, in the order each round runs them; raw fetch, the reference, first. */
export const DENO_CLIENTS: readonly ClientSpec[] = [
  {
    name: "fetch",
    description: "raw `fetch` with a `Deno.createHttpClient({})` pool (the reference)",
    permissions: [],
    create: () => rawFetch(),
  },
  {
    name: "fetch+timeout",
    description:
      "raw `fetch` as above with `signal: AbortSignal.timeout(30_000)` per request: the price of a timeout alone (fetchline and ky have one by default)",
    permissions: [],
    create: () => rawFetch({ timeout: true }),
  },
  {
    name: "fetchline",
    description: "fetchline, default config (own pool, 30 s timeout, 2 retries), no hooks",
    permissions: [],
    create: fetchline((builder) => builder),
  },
  {
    name: "fetchline-no-timeout",
    description:
      "fetchline with `withTimeout(null)`: no timer and no signal per request (the client's close still ends a call)",
    permissions: [],
    create: fetchline((builder) => builder.withTimeout(null)),
  },
  {
    name: "fetchline+hooks",
    description:
      "fetchline with 5 hooks: withLogging (request, response, error; no-op logger), CorrelationIdHook, TokenAuthHook (cached token)",
    permissions: [],
    create: fetchline(withFiveHooks),
  },
  {
    name: "ky",
    description: "ky (npm), `ky.create({})` defaults, global fetch",
    permissions: [],
    create: () => kyClient(),
  },
  {
    name: "ofetch",
    description: "ofetch (npm), `ofetch.create({})` defaults, global fetch",
    permissions: [],
    create: () => ofetchClient(),
  },
  {
    name: "axios",
    description: "axios (npm), `axios.create()` defaults: its Node http adapter on node:http",
    // follow-redirects' `debug` dependency reads the whole environment on load.
    permissions: ["--allow-env"],
    create: axiosClient,
  },
];
