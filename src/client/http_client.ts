import { configView, DEFAULT_CONFIG } from "../config/config.ts";
import type { HttpClientConfig } from "../config/config.ts";
import { describeCall, HttpClientException } from "../errors.ts";
import { HttpRequest } from "../models/request.ts";
import type { HttpResponse } from "../models/response.ts";
import { defineRedactedInspect, jsonView } from "../masking/views.ts";
import { executeCall } from "./lifecycle.ts";
import type { LifecycleOptions } from "./lifecycle.ts";
import { clientSetup } from "./client_setup.ts";
import { ClientScope } from "./client_scope.ts";
import { deriveConfig, type ExtendConfig } from "./derive_config.ts";
import { prepareRequest } from "./prepare.ts";
import { callLifecycle, checkCallOptions, splitRequestOptions } from "./call_options.ts";
import type { CallOptions, RequestOptions } from "./call_options.ts";
import { EventStream } from "./event_stream.ts";
import type { EventStreamOptions } from "./event_stream_options.ts";

export type { CallOptions, ExtendConfig, RequestOptions };

/**
 * An HTTP client with a connection pool, created on the first request and
 * released by {@linkcode HttpClient.close} (or `using` / `await using`).
 * Every received status resolves to an {@linkcode HttpResponse}; failures
 * reject with {@linkcode HttpClientException} or a subclass.
 *
 * @example Send requests to a local server
 * ```ts
 * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
 * import assert from "node:assert/strict";
 *
 * await using server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   async (request) => Response.json({ method: request.method, body: await request.text() }),
 * );
 * const config = new HttpClientConfigBuilder()
 *   .withBaseUrl(`http://127.0.0.1:${server.addr.port}/api`)
 *   .withTimeout(5)
 *   .build();
 * await using client = new HttpClient(config);
 * const response = await client.post("/users", { jsonData: { name: "Ada" } });
 * assert.ok(response.isSuccess);
 * assert.deepEqual(response.json(), { method: "POST", body: '{"name": "Ada"}' });
 * ```
 */
export class HttpClient {
  /** The frozen configuration. */
  readonly config: HttpClientConfig;
  /** Its lifetime and pool, shared with the clients derived from it (client_scope.ts). */
  #scope: ClientScope;
  /** What every call shares; made on the first request. */
  #options: LifecycleOptions | undefined;

  /**
   * Creates a client; no connection is made until the first request.
   *
   * @param config A configuration from {@linkcode HttpClientConfigBuilder}.
   */
  constructor(config: HttpClientConfig = DEFAULT_CONFIG) {
    this.config = config;
    this.#scope = new ClientScope(config);
  }

  /** True once {@linkcode HttpClient.close} has been called, on this client or the one it was derived from. */
  get closed(): boolean {
    return this.#scope.closed;
  }

  /**
   * A new client whose configuration is this one's, changed by `configure` on a builder
   * started from it ({@linkcode HttpClientConfigBuilder.from}): headers merged, settings
   * replaced, hooks appended after this client's (the same hook, auth hook and token manager
   * objects). This client's auth hook stays with its origin unless the builder names another
   * (`withAuthOrigins`); an auth hook the builder sets goes to the origins it names, else to
   * its base URL's. The pool is shared unless `withPool`, `withProxy`, `withTls` or
   * `withFetch` changed; a jar made by `withCookies()` never is (one passed in is). Closing
   * the derived client never closes a pool it shares; closing this client closes the clients
   * derived from it, their pools, and fails their calls in flight.
   *
   * @param configure Changes the builder and returns it.
   * @returns The derived client; this client is unchanged.
   * @throws {HttpClientException} When this client is closed.
   * @throws {TypeError} When `configure` is not a function, or a `with*` call of it is given bad input.
   *
   * @example Derive a client for one tenant
   * ```ts
   * import { createClient } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * await using server = Deno.serve(
   *   { hostname: "127.0.0.1", port: 0, onListen() {} },
   *   (request) => Response.json({ tenant: request.headers.get("x-tenant") }),
   * );
   * await using api = createClient(`http://127.0.0.1:${server.addr.port}`);
   * const tenant = api.extend((builder) => builder.withHeaders({ "X-Tenant": "a" }).withTimeout(5));
   * assert.deepEqual((await tenant.get("/me")).json(), { tenant: "a" });
   * assert.deepEqual((await api.get("/me")).json(), { tenant: null });
   * assert.equal(api.config.timeout, 30);
   * ```
   */
  extend(configure: ExtendConfig): HttpClient {
    if (this.closed) throw new HttpClientException("Client is closed: cannot extend it");
    const config = deriveConfig(this.config, configure);
    const derived = new HttpClient(config);
    derived.#scope = new ClientScope(config, this.#scope);
    return derived;
  }

  /**
   * Sends a request: resolves its URL against the base URL, merges the
   * default headers, follows redirects, reads the whole body.
   *
   * @param request The request.
   * @param callOptions A signal to abort the call; its `totalTimeout` and
   * `readTimeout`, overriding the client's.
   * @returns The response, for any received status.
   * @throws {HttpClientException} When the client is closed, the URL cannot
   * be resolved, or the exchange fails ({@linkcode TimeoutException},
   * {@linkcode ConnectionException}).
   */
  request(request: HttpRequest, callOptions: CallOptions = {}): Promise<HttpResponse> {
    if (!(request instanceof HttpRequest)) {
      return Promise.reject(new TypeError("Invalid request: expected an HttpRequest"));
    }
    let prepared: HttpRequest;
    let options: LifecycleOptions;
    try {
      checkCallOptions(callOptions);
      if (this.closed) {
        throw new HttpClientException(`Client is closed: ${describeCall(request)}`, { request });
      }
      prepared = prepareRequest(request, this.config);
      options = callLifecycle(this.#options ??= this.#lifecycleOptions(), callOptions);
    } catch (error) {
      return Promise.reject(error);
    }
    return executeCall(prepared, options);
  }

  /**
   * Sends a request and resolves at the response head, after redirects,
   * auth refreshes and retries, with the body unread: read it with
   * `read()`, `body`, `lines()` or `events()`, or `cancel()` it. The call's
   * `timeout` ends at the head; each wait for a chunk has `readTimeout`.
   *
   * @param method The HTTP method.
   * @param url A relative or absolute URL.
   * @param options As for {@linkcode HttpClient.get}, and a body.
   * @returns The response, its body unread (`isStreamed`).
   *
   * @example Read a response's lines as they arrive
   * ```ts
   * import { createClient } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * await using server = Deno.serve(
   *   { hostname: "127.0.0.1", port: 0, onListen() {} },
   *   () => new Response("one\ntwo\n"),
   * );
   * await using client = createClient(`http://127.0.0.1:${server.addr.port}`);
   * await using response = await client.stream("GET", "/lines");
   * assert.deepEqual(await Array.fromAsync(response.lines()), ["one", "two"]);
   * ```
   */
  stream(method: string, url: string | URL, options: RequestOptions = {}): Promise<HttpResponse> {
    return this.#call(method, url, { ...options, stream: true });
  }

  /**
   * Reads the Server-Sent Events of `url` with this client's headers, auth
   * and hooks, reconnecting as EventSource does (see {@linkcode EventStream}).
   * GET only: a POST stream (an LLM's reply) must never be sent twice.
   *
   * @param url A relative or absolute URL.
   * @param options A GET's fields and call options, and the reconnection's.
   * @returns The reader; nothing is sent until its loop starts.
   * @throws {TypeError} For an unknown option or a bad value.
   */
  events(url: string | URL, options: EventStreamOptions = {}): EventStream {
    const send = (request: HttpRequest, call: CallOptions) => this.request(request, call);
    return new EventStream(url, options, { send, closed: this.#scope.signal });
  }

  /**
   * Sends a GET request.
   *
   * @param url A relative or absolute URL.
   * @param options Params, headers, timeout, signal.
   * @returns The response.
   */
  get(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("GET", url, options);
  }

  /**
   * Sends a POST request.
   *
   * @param url A relative or absolute URL.
   * @param options A body (`jsonData`, `data`, `files`) and the other fields.
   * @returns The response.
   */
  post(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("POST", url, options);
  }

  /** Sends a PUT request; `options` as for {@linkcode HttpClient.post}. */
  put(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("PUT", url, options);
  }

  /** Sends a PATCH request; `options` as for {@linkcode HttpClient.post}. */
  patch(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("PATCH", url, options);
  }

  /** Sends a DELETE request (a body is allowed); `options` as for {@linkcode HttpClient.post}. */
  delete(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("DELETE", url, options);
  }

  /** Sends a HEAD request; the response has an empty body. `options` as for {@linkcode HttpClient.get}. */
  head(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("HEAD", url, options);
  }

  /** Sends an OPTIONS request; `options` as for {@linkcode HttpClient.get}. */
  options(url: string | URL, options?: RequestOptions): Promise<HttpResponse> {
    return this.#call("OPTIONS", url, options);
  }

  /**
   * Releases the connection pool, and closes every client derived from
   * this one ({@linkcode HttpClient.extend}); a pool this client shares with
   * the client it was derived from stays open. Requests in flight fail with
   * {@linkcode HttpClientException}; later calls fail with "Client is closed".
   * Calling it again does nothing.
   */
  close(): void {
    this.#scope.close();
  }

  /**
   * The masked view `console.log()` shows, for `JSON.stringify()`: the
   * configuration with the base URL's user-info, credential-like default
   * headers, the proxy's password and the `withTls` key masked, and whether
   * the client is closed.
   *
   * @returns The view; no credential is in it.
   *
   * @example Serialize a client with a proxy for a log
   * ```ts
   * import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";
   * import assert from "node:assert/strict";
   *
   * const config = new HttpClientConfigBuilder()
   *   .withBaseUrl("http://ada:s3cret@127.0.0.1/")
   *   .withProxy("http://ada:pr0xy@127.0.0.1:3128")
   *   .build();
   * using client = new HttpClient(config);
   * const shown = JSON.parse(JSON.stringify(client));
   * assert.equal(shown.config.baseUrl, "http://ada:***@127.0.0.1/");
   * assert.equal(shown.config.proxy.url, "http://ada:***@127.0.0.1:3128");
   * ```
   */
  toJSON(): Record<string, unknown> {
    return jsonView(this);
  }

  /** Closes the client at the end of a `using` block. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** Lets requests in flight finish (derived clients' too), then closes, at the end of an `await using` block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#scope.calls.idle();
    this.close();
  }

  #call(method: string, url: string | URL, options: RequestOptions = {}): Promise<HttpResponse> {
    try {
      const [init, call] = splitRequestOptions(options);
      return this.request(new HttpRequest(method, url, init), call);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The options every call shares, with the transport: the pool is made here, on the first request. */
  #lifecycleOptions(): LifecycleOptions {
    const { signal, calls } = this.#scope;
    return clientSetup(this.config, this.#scope, signal, calls, this.#scope.transport());
  }
}

defineRedactedInspect(HttpClient, (client) => ({
  config: configView(client.config),
  closed: client.closed,
}));
