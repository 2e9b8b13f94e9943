// The exchange-level middleware seam (withMiddleware): where it sits in a
// call, what passes through it, and what it may do, against a real server.

import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  BaseAuthHook,
  clientCredentialsStep,
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  type HttpRequest,
  HttpResponse,
  TimeoutException,
  TokenData,
  TokenManager,
} from "../mod.ts";
import type { Middleware, MiddlewareFunction } from "../interfaces.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, settles, throwsAtOnce } from "./helpers.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A client on `url` with `middleware`, and whatever else `configure` sets. */
function clientWith(
  url: string,
  middleware: Middleware[],
  configure: (builder: HttpClientConfigBuilder) => HttpClientConfigBuilder = (b) => b,
): HttpClient {
  const builder = new HttpClientConfigBuilder().withBaseUrl(url).withRetry({ maxRetries: 0 })
    .withMiddleware(...middleware);
  return new HttpClient(configure(builder).build());
}

Deno.test("middleware runs in registration order, the first outermost, and may change the request and the response", async () => {
  await using server = startFixtureServer();
  const order: string[] = [];
  const outer: MiddlewareFunction = async (request, next) => {
    order.push("outer in");
    const response = await next(request.withHeaders({ "X-Outer": "1" }));
    order.push("outer out");
    return response;
  };
  const inner: MiddlewareFunction = async (request, next) => {
    order.push(`inner in ${request.headers?.["X-Outer"]}`);
    const response = await next(request.withHeaders({ "X-Inner": "2" }));
    order.push("inner out");
    return new HttpResponse({
      statusCode: response.statusCode,
      headers: { ...response.headers, "x-seen": "inner" },
      content: response.content,
      elapsedMs: response.elapsedMs,
      url: response.url,
      request: response.request,
    });
  };
  await using client = clientWith(server.url, [outer, inner]);
  const response = await client.get("/echo");
  assert.deepEqual(order, ["outer in", "inner in 1", "inner out", "outer out"]);
  assert.equal(server.last().headers["x-outer"], "1");
  assert.equal(server.last().headers["x-inner"], "2");
  assert.equal(response.headers["x-seen"], "inner");
});

Deno.test("every attempt, every redirect hop and every resend after a 401 passes through the chain once", async () => {
  await using server = startFixtureServer();
  const seen: string[] = [];
  const record: MiddlewareFunction = (request, next) => {
    seen.push(new URL(request.url).pathname);
    return next(request);
  };
  // A redirect: two hops, two exchanges.
  await using client = clientWith(server.url, [record]);
  await client.get("/redirect/302", { params: { to: "/landed" } });
  assert.deepEqual(seen, ["/redirect/302", "/landed"]);
  // A retried 503: two attempts.
  seen.length = 0;
  let failures = 1;
  server.route("/flaky", () => new Response(null, { status: failures-- > 0 ? 503 : 200 }));
  await using retrying = clientWith(
    server.url,
    [record],
    (builder) => builder.withRetry({ maxRetries: 1, backoff: 0.001 }),
  );
  assert.equal((await retrying.get("/flaky")).statusCode, 200);
  assert.deepEqual(seen, ["/flaky", "/flaky"]);
  // A 401 refreshed and resent.
  seen.length = 0;
  server.route(
    "/key",
    (request) => new Response(null, { status: request.headers.get("x-key") === "k2" ? 200 : 401 }),
  );
  await using authed = clientWith(
    server.url,
    [record],
    (builder) => builder.withAuthHook(new VersionedKeyHook()),
  );
  assert.equal((await authed.get("/key")).statusCode, 200);
  assert.deepEqual(seen, ["/key", "/key"]);
  assert.deepEqual(server.requests.slice(-2).map((r) => r.headers["x-key"]), ["k1", "k2"]);
});

/** Sends `X-Key: k<version>`; a refresh moves to the next version. */
class VersionedKeyHook extends BaseAuthHook {
  version = 1;
  override beforeRequest(request: HttpRequest): HttpRequest {
    return request.withHeaders({ "X-Key": `k${this.version}` });
  }
  override getToken(): Promise<TokenData> {
    return Promise.resolve(new TokenData({ accessToken: `k${this.version}` }));
  }
  override refreshAuth(): Promise<boolean> {
    this.version++;
    return Promise.resolve(true);
  }
}

Deno.test("middleware sees the request after the request hooks, the auth hook and the cookie jar", async () => {
  await using server = startFixtureServer();
  server.route(
    "/login",
    () => new Response(null, { headers: { "set-cookie": "session=s1; Path=/" } }),
  );
  let seen: Record<string, string> | undefined;
  const look: MiddlewareFunction = (request, next) => {
    seen = { ...request.headers };
    return next(request);
  };
  await using client = clientWith(server.url, [look], (builder) =>
    builder
      .withRequestHook({ beforeRequest: (request) => request.withHeaders({ "X-Hooked": "h" }) })
      .withAuthHook(new ApiKeyAuthHook("the-key"))
      .withCookies());
  await client.get("/login");
  await client.get("/echo");
  assert.equal(seen?.["X-Hooked"], "h");
  assert.equal(seen?.["X-API-Key"], "the-key");
  assert.equal(seen?.["cookie"], "session=s1");
  assert.equal(server.last().headers["cookie"], "session=s1");
});

Deno.test("a middleware's own response is the exchange's: no request is sent, hooks see it, a redirect it returns is followed", async () => {
  await using server = startFixtureServer();
  const canned: MiddlewareFunction = (request, next) => {
    if (new URL(request.url).pathname !== "/cached") return next(request);
    return Promise.resolve(
      new HttpResponse({
        statusCode: 301,
        headers: { location: "/landed" },
        content: new Uint8Array(),
        elapsedMs: 0,
        url: request.url,
        request,
      }),
    );
  };
  const statuses: number[] = [];
  await using client = clientWith(server.url, [canned], (builder) =>
    builder.withResponseHook({
      afterResponse: (response) => (statuses.push(response.statusCode), response),
    }));
  const response = await client.get("/cached");
  assert.equal(response.statusCode, 200);
  assert.equal(response.url, `${server.url}/landed`);
  assert.deepEqual(server.requests.map((r) => r.path), ["/landed"]);
  assert.deepEqual(statuses, [200]);
});

Deno.test("a middleware may call next more than once", async () => {
  await using server = startFixtureServer();
  const twice: MiddlewareFunction = async (request, next) => {
    await next(request.withHeaders({ "X-Try": "1" }));
    return next(request.withHeaders({ "X-Try": "2" }));
  };
  await using client = clientWith(server.url, [twice]);
  const response = await client.get("/echo");
  assert.deepEqual(server.requests.map((r) => r.headers["x-try"]), ["1", "2"]);
  assert.equal(response.json<{ headers: Record<string, string> }>().headers["x-try"], "2");
});

Deno.test("an object's handle() is called as its method", async () => {
  await using server = startFixtureServer();
  const counter = {
    count: 0,
    handle(request: HttpRequest, next: (request: HttpRequest) => Promise<HttpResponse>) {
      this.count++;
      return next(request);
    },
  };
  await using client = clientWith(server.url, [counter]);
  await client.get("/echo");
  await client.get("/echo");
  assert.equal(counter.count, 2);
});

Deno.test("a middleware's error takes a transport failure's path: error hooks, and retried only when the library's own", async () => {
  await using server = startFixtureServer();
  const errors: unknown[] = [];
  let calls = 0;
  const failing = (error: Error): MiddlewareFunction => () => {
    calls++;
    return Promise.reject(error);
  };
  const configure = (builder: HttpClientConfigBuilder) =>
    builder.withRetry({ maxRetries: 2, backoff: 0.001 })
      .withErrorHook({ onError: (error) => void errors.push(error) });
  const own = new TypeError("broken middleware");
  await using broken = clientWith(server.url, [failing(own)], configure);
  await assert.rejects(broken.get("/echo"), (error) => error === own);
  assert.equal(calls, 1, "not retried");
  assert.deepEqual(errors, [own]);
  calls = 0;
  const transient = new ConnectionException("Connection failed (from a middleware)");
  await using flaky = clientWith(server.url, [failing(transient)], configure);
  await assert.rejects(flaky.get("/echo"), (error) => error === transient);
  assert.equal(calls, 3, "retried as the library's own");
  assert.equal(server.requests.length, 0);
});

Deno.test("a streamed call's next resolves at the head with the body unread", async () => {
  await using server = startFixtureServer();
  let streamed: boolean | undefined;
  const look: MiddlewareFunction = async (request, next) => {
    const response = await next(request);
    streamed = response.isStreamed;
    return response;
  };
  await using client = clientWith(server.url, [look]);
  await using response = await client.stream("GET", "/echo");
  assert.equal(streamed, true);
  const body = JSON.parse(text((await response.read()).content));
  assert.equal(body.path, "/echo");
});

Deno.test("the call's timeout, signal and close() end a middleware's wait", async () => {
  await using server = startFixtureServer();
  const stuck: MiddlewareFunction = () => new Promise<never>(() => {});
  // Closed, not disposed, at the end: disposal would wait for a call that never ends.
  const timed = clientWith(server.url, [stuck], (builder) => builder.withTimeout(0.2));
  const client = clientWith(server.url, [stuck]);
  try {
    await rejectsWith(settles(timed.get("/echo")), TimeoutException, /timed out after 0\.2 s/);
    const controller = new AbortController();
    const aborted = client.get("/echo", { signal: controller.signal });
    controller.abort();
    await rejectsWith(settles(aborted), HttpClientException, /Request was aborted/);
    const closing = client.get("/echo");
    client.close();
    await rejectsWith(settles(closing), HttpClientException, /Client was closed/);
  } finally {
    timed.close();
    client.close();
  }
});

Deno.test("a derived client runs its parent's middleware, then its own", async () => {
  await using server = startFixtureServer();
  const order: string[] = [];
  const named = (name: string): MiddlewareFunction => (request, next) => {
    order.push(name);
    return next(request);
  };
  await using parent = clientWith(server.url, [named("parent")]);
  const child = parent.extend((builder) => builder.withMiddleware(named("child")));
  await child.get("/echo");
  await parent.get("/echo");
  assert.deepEqual(order, ["parent", "child", "parent"]);
});

Deno.test("a client's token requests do not pass through its middleware", async () => {
  await using server = startFixtureServer();
  server.route("/token", () => Response.json({ access_token: "t1", expires_in: 3600 }));
  const seen: string[] = [];
  const record: MiddlewareFunction = (request, next) => {
    seen.push(new URL(request.url).pathname);
    return next(request);
  };
  const manager = new TokenManager([
    clientCredentialsStep({ tokenUrl: `${server.url}/token`, clientId: "id", clientSecret: "s" }),
  ]);
  await using client = clientWith(
    server.url,
    [record],
    (builder) => builder.withTokenAuth({ tokenManager: manager }),
  );
  await client.get("/echo");
  assert.deepEqual(seen, ["/echo"]);
  assert.equal(server.last().headers["authorization"], "Bearer t1");
});

Deno.test("withMiddleware() refuses what is not a middleware, naming the argument; a bad request or result is a TypeError", async () => {
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withMiddleware((r, n) => n(r), 42 as never),
    TypeError,
    "Invalid middleware (argument 2): expected a function (request, next, context) or an object with handle(), got number",
  );
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withMiddleware({ handle: "no" } as never),
    TypeError,
    /^Invalid middleware \(argument 1\)/,
  );
  await using server = startFixtureServer();
  await using wrongResult = clientWith(server.url, [() => Promise.resolve("hi" as never)]);
  await rejectsWith(
    wrongResult.get("/echo"),
    TypeError,
    /^Invalid middleware result: expected a promise of an HttpResponse, got string/,
  );
  await using wrongRequest = clientWith(server.url, [(_r, next) => next({} as never)]);
  await rejectsWith(
    wrongRequest.get("/echo"),
    TypeError,
    /^Invalid request passed to next\(\): expected an HttpRequest/,
  );
  assert.equal(server.requests.length, 0, "neither sent a request");
});

Deno.test("a wrong result is a TypeError at every link, and the first link's is told to its onEnd() as the exchange's end", async () => {
  await using server = startFixtureServer();
  const outcomes: unknown[] = [];
  const listens: MiddlewareFunction = (request, next, exchange) => {
    exchange.onEnd((outcome) => outcomes.push(outcome.error));
    return next(request);
  };
  // The first link's own result (checked where the exchange's end is told).
  await using first = clientWith(server.url, [(request, next, exchange) => {
    exchange.onEnd((outcome) => outcomes.push(outcome.error));
    return next(request).then(() => 42 as never);
  }]);
  await rejectsWith(first.get("/echo"), TypeError, /^Invalid middleware result: .* got number/);
  assert.equal(outcomes.length, 1);
  assert.ok(outcomes[0] instanceof TypeError, "onEnd() told the TypeError");
  // An inner link's: the outer one's next() rejects with it.
  outcomes.length = 0;
  let seen: unknown;
  await using inner = clientWith(server.url, [
    (request, next) => next(request).catch((error) => (seen = error, Promise.reject(error))),
    listens,
    () => Promise.resolve(null as never),
  ]);
  await rejectsWith(inner.get("/echo"), TypeError, /^Invalid middleware result: .* got null/);
  assert.ok(seen instanceof TypeError, "the outer link's next() rejected");
  assert.equal(outcomes.length, 1);
  assert.ok(outcomes[0] instanceof TypeError);
  // A background send's first link (the link after the caller's) is checked too.
  await using background = clientWith(server.url, [
    (request, _next, exchange) => exchange.background(request),
    () => Promise.resolve("no" as never),
  ]);
  await rejectsWith(
    background.get("/echo"),
    TypeError,
    /^Invalid middleware result: .* got string/,
  );
});

Deno.test("a link that waits names its wait in the timeout that ends it there, and is told the end", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("never reached"),
  );
  let ended = 0;
  const waits: MiddlewareFunction = (_request, _next, exchange) => {
    exchange.waiting("the test queue");
    return new Promise((_, reject) => {
      exchange.onEnd(() => (ended++, reject(new Error("ended"))));
    });
  };
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
      .withTimeout(0.2).withRetry({ maxRetries: 0 }).withMiddleware(waits).build(),
  );
  await assert.rejects(
    client.get("/"),
    (error: unknown) =>
      error instanceof TimeoutException &&
      /timed out after 0.2 s waiting in the test queue: GET/.test(error.message),
  );
  assert.equal(ended, 1);
});
