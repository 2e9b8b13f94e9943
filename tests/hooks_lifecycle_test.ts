import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  type HttpRequest,
  HttpResponse,
  type RequestContext,
} from "../mod.ts";
import type {
  ErrorHookInterface,
  RequestHookInterface,
  ResponseHookInterface,
} from "../interfaces.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { recordedWaits, rejectsWith } from "./helpers.ts";

function tagRequest(tag: string, seen: string[], async = false): RequestHookInterface {
  return {
    beforeRequest(request) {
      seen.push(`request ${tag} saw ${request.headers?.["X-Trail"] ?? "-"}`);
      const next = request.withHeaders({
        "X-Trail": `${request.headers?.["X-Trail"] ?? ""}${tag}`,
      });
      return async ? new Promise((resolve) => setTimeout(() => resolve(next), 5)) : next;
    },
  };
}

function tagResponse(tag: string, seen: string[], async = false): ResponseHookInterface {
  return {
    async afterResponse(response) {
      seen.push(`response ${tag} saw ${response.header("x-trail") ?? "-"}`);
      if (async) await new Promise((resolve) => setTimeout(resolve, 5));
      const trail = `${response.header("x-trail") ?? ""}${tag}`;
      return new HttpResponse({ ...response, headers: { ...response.headers, "x-trail": trail } });
    },
  };
}

Deno.test("HttpClient runs request and response hooks in order, each on the previous one's result", async () => {
  await using server = startFixtureServer();
  const seen: string[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook(tagRequest("a", seen))
    .withRequestHook(tagRequest("b", seen, true))
    .withRequestHook(tagRequest("c", seen))
    .withResponseHook(tagResponse("x", seen, true))
    .withResponseHook(tagResponse("y", seen))
    .build();
  await using client = new HttpClient(config);
  const response = await client.get("/hooks");
  assert.equal(server.last().headers["x-trail"], "abc");
  assert.equal(response.request.headers?.["X-Trail"], "abc");
  assert.equal(response.header("x-trail"), "xy");
  assert.deepEqual(seen, [
    "request a saw -",
    "request b saw a",
    "request c saw ab",
    "response x saw -",
    "response y saw x",
  ]);
});

Deno.test("HttpClient gives every attempt of a call one shared RequestContext", async () => {
  await using server = startFixtureServer();
  let calls = 0;
  server.route("/flaky", () => new Response(null, { status: ++calls < 3 ? 503 : 200 }));
  const contexts: RequestContext[] = [];
  const attempts: number[] = [];
  const { sleep } = recordedWaits();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRetry({ maxRetries: 4, sleep })
    .withRequestHook({
      beforeRequest(request, context) {
        contexts.push(context);
        attempts.push(context.attempt);
        assert.equal(context.maxRetries, 4);
        assert.equal(context.isRetry, context.attempt > 0);
        return request;
      },
    })
    .build();
  await using client = new HttpClient(config);
  await client.get("/flaky");
  assert.deepEqual(attempts, [0, 1, 2]);
  assert.equal(new Set(contexts).size, 1);
});

Deno.test("HttpClient hands a throwing hook's error to the error hooks in order, then to the caller", async () => {
  await using server = startFixtureServer();
  const boom = new Error("hook failed");
  const seen: string[] = [];
  const errorHook = (name: string): ErrorHookInterface => ({
    onError(error, context) {
      assert.equal(error, boom);
      seen.push(`${name}:${context.attempt}`);
    },
  });
  let fail = true;
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook({
      beforeRequest(request) {
        if (fail) throw boom;
        return request;
      },
    })
    .withErrorHook(errorHook("first"))
    .withErrorHook({
      async onError() {
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push("second (async)");
      },
    })
    .withErrorHook(errorHook("third"))
    .build();
  await using client = new HttpClient(config);
  await assert.rejects(client.get("/x"), (error) => error === boom);
  assert.deepEqual(seen, ["first:0", "second (async)", "third:0"]);
  assert.equal(server.requests.length, 0);
  fail = false;
  assert.equal((await client.get("/x")).statusCode, 200, "the client stays usable");
});

Deno.test("HttpClient's error hooks see the library's exceptions, and the caller gets that same object", async () => {
  await using server = startFixtureServer();
  const seen: unknown[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.dropUrl)
    .withRetry({ maxRetries: 0 })
    .withErrorHook({ onError: (error) => void seen.push(error) })
    .build();
  await using client = new HttpClient(config);
  const error = await rejectsWith(client.get("/gone"), ConnectionException, /GET/);
  assert.deepEqual(seen, [error]);
});

Deno.test("HttpClient keeps the original exception when an error hook throws", async () => {
  const boom = new Error("original");
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("http://127.0.0.1:9")
    .withRequestHook({
      beforeRequest() {
        throw boom;
      },
    })
    .withErrorHook({
      onError() {
        throw new Error("error hook broke");
      },
    })
    .build();
  await using client = new HttpClient(config);
  await assert.rejects(client.get("/x"), (error) => error === boom);
});

Deno.test("HttpClient fails with a TypeError naming a hook that returns the wrong thing", async () => {
  await using server = startFixtureServer();
  class ForgetfulHook implements RequestHookInterface {
    beforeRequest(): HttpRequest {
      return undefined as unknown as HttpRequest;
    }
  }
  const requestConfig = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook({ beforeRequest: (request) => request })
    .withRequestHook(new ForgetfulHook())
    .build();
  await using first = new HttpClient(requestConfig);
  await rejectsWith(
    first.get("/x"),
    TypeError,
    /^Request hook #2 ForgetfulHook returned undefined, expected an HttpRequest$/,
  );
  const responseConfig = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withResponseHook({ afterResponse: () => Promise.resolve({ statusCode: 200 } as HttpResponse) })
    .build();
  await using second = new HttpClient(responseConfig);
  await rejectsWith(
    second.get("/x"),
    TypeError,
    /^Response hook #1 returned Object, expected an HttpResponse$/,
  );
});

Deno.test("HttpClient chains synchronous and asynchronous hooks in order, each on the previous one's result", async () => {
  await using server = startFixtureServer();
  const seen: string[] = [];
  const tag = (name: string) => (request: HttpRequest) => {
    seen.push(`${name}:${request.headers?.["x-trail"] ?? ""}`);
    return request.withHeaders({ "x-trail": `${request.headers?.["x-trail"] ?? ""}${name}` });
  };
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook({ beforeRequest: tag("a") })
    .withRequestHook({ beforeRequest: (request) => Promise.resolve(tag("b")(request)) })
    .withRequestHook({ beforeRequest: tag("c") })
    .withRequestHook({
      beforeRequest: (request) =>
        ({ then: (resolve: (value: HttpRequest) => void) => resolve(tag("d")(request)) }) as never,
    })
    .withResponseHook({
      afterResponse: (response) => {
        seen.push(`response:${response.request.headers?.["x-trail"]}`);
        return Promise.resolve(response);
      },
    })
    .withResponseHook({
      afterResponse: (response) => {
        seen.push("last");
        return response;
      },
    })
    .build();
  await using client = new HttpClient(config);
  await client.get("/x");
  assert.equal(server.last().headers["x-trail"], "abcd");
  assert.deepEqual(seen, ["a:", "b:a", "c:ab", "d:abc", "response:abcd", "last"]);
  const late = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook({ beforeRequest: (request) => Promise.resolve(request) })
    .withRequestHook({ beforeRequest: () => 42 as unknown as HttpRequest })
    .build();
  await using second = new HttpClient(late);
  await rejectsWith(
    second.get("/x"),
    TypeError,
    /^Request hook #2 returned number, expected an HttpRequest$/,
  );
});

Deno.test("HttpClientConfigBuilder refuses objects that are not hooks", () => {
  const builder = new HttpClientConfigBuilder();
  assert.throws(
    () => builder.withRequestHook({} as RequestHookInterface),
    /request hook.*beforeRequest/,
  );
  assert.throws(() => builder.withResponseHook(null as never), /response hook.*afterResponse/);
  assert.throws(() => builder.withErrorHook({ onErr() {} } as never), /error hook.*onError/);
});

Deno.test("HttpClient lets a request hook change what is sent", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withRequestHook({
      beforeRequest: (request: HttpRequest) => request.with({ params: { signed: "yes" } }),
    })
    .build();
  await using client = new HttpClient(config);
  const response = await client.get("/changed");
  assert.equal(server.last().query, "signed=yes");
  assert.deepEqual(response.request.params, { signed: "yes" });
});
