/**
 * The Deno clients the throughput benchmark compares, each a small adapter
 * `{ name, setup(), get(url), post(url, body), close() }` whose calls return
 * the parsed JSON body. Each library is imported in `setup()`, so a
 * measurement process loads only the client it measures.
 *
 * @module
 */

import * as fetchlineModule from "../mod.ts";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
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

function fetchline(configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder) {
  return (): BenchClient => {
    let client: HttpClient | undefined;
    return {
      setup() {
        client = new HttpClient(configure(new HttpClientConfigBuilder()).build());
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

/** Raw fetch over its own pool; `timeout` adds a per-request `AbortSignal.timeout(30 s)`. */
function rawFetch(timeout: boolean): BenchClient {
  let client: Deno.HttpClient | undefined;
  const send = async (url: string, init: DenoRequestInit) => {
    if (timeout) init.signal = AbortSignal.timeout(30_000);
    return await (await fetch(url, init)).json();
  };
  return {
    setup() {
      client = Deno.createHttpClient({});
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
    close() {
      client!.close();
      return Promise.resolve();
    },
  };
}

function kyClient(): BenchClient {
  let ky: typeof import("ky").default | undefined;
  return {
    async setup() {
      ky = (await import("ky")).default.create({});
    },
    get: (url) => ky!.get(url).json(),
    post: (url, body) => ky!.post(url, { json: body }).json(),
    close: () => Promise.resolve(),
  };
}

function ofetchClient(): BenchClient {
  let ofetch: typeof import("ofetch").ofetch | undefined;
  return {
    async setup() {
      ofetch = (await import("ofetch")).ofetch.create({});
    },
    get: (url) => ofetch!(url),
    post: (url, body) => ofetch!(url, { method: "POST", body: body as Record<string, unknown> }),
    close: () => Promise.resolve(),
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
    create: () => rawFetch(false),
  },
  {
    name: "fetch+timeout",
    description:
      "raw `fetch` as above with `signal: AbortSignal.timeout(30_000)` per request: the price of a timeout alone (fetchline and ky have one by default)",
    permissions: [],
    create: () => rawFetch(true),
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
    create: kyClient,
  },
  {
    name: "ofetch",
    description: "ofetch (npm), `ofetch.create({})` defaults, global fetch",
    permissions: [],
    create: ofetchClient,
  },
  {
    name: "axios",
    description: "axios (npm), `axios.create()` defaults: its Node http adapter on node:http",
    // follow-redirects' `debug` dependency reads the whole environment on load.
    permissions: ["--allow-env"],
    create: axiosClient,
  },
];
