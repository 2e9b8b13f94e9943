// Options and init objects are checked whole: a key the library does not know
// (a JavaScript caller's typo) and a raw body of another type or beside
// another body are a TypeError naming them, before anything is sent.

import assert from "node:assert/strict";
import {
  ApiKeyAuthHook,
  AuthorizationHook,
  BaseAuthHook,
  type BaseAuthHookOptions,
  BasicAuthHook,
  clientCredentialsStep,
  CompositeAuthHook,
  CorrelationIdHook,
  FetchContext,
  HttpClientConfigBuilder,
  HttpRequest,
  type HttpRequestInit,
  HttpResponse,
  LoggingErrorHook,
  LoggingRequestHook,
  LoggingResponseHook,
  RequestContext,
  type RequestOptions,
  SimpleAuthRetryStrategy,
  TokenAuthHook,
  TokenData,
  TokenManager,
} from "../mod.ts";
import { MockTransport } from "../testing.ts";
import { eventSource } from "../sse.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { countingClient, rejectsWith, throwsAtOnce } from "./helpers.ts";

const INIT_KEYS = "headers, params, data, jsonData, files, body, timeout, auth";

Deno.test("new HttpRequest() refuses an init key it does not know, naming it", () => {
  for (const key of ["bdy", "json", "signal", "Body", "query"]) {
    throwsAtOnce(
      () => new HttpRequest("POST", "/x", { [key]: "v" } as HttpRequestInit),
      TypeError,
      `Invalid init: unknown key "${key}" (known: ${INIT_KEYS}, method, url)`,
    );
  }
  throwsAtOnce(
    () => new HttpRequest("POST", "/x", null as unknown as HttpRequestInit),
    TypeError,
    "Invalid init: expected an object, got null",
  );
  // Another request's toObject() is an init: its method and URL give way to the arguments.
  const other = new HttpRequest("PUT", "/a", { body: "x", timeout: 2 });
  const copy = new HttpRequest("POST", "/b", other.toObject());
  assert.deepEqual([copy.method, copy.url, copy.body, copy.timeout], ["POST", "/b", "x", 2]);
});

Deno.test("HttpRequest.with() refuses a change it does not know, naming it", () => {
  const request = new HttpRequest("POST", "/x");
  throwsAtOnce(
    () => request.with({ bdy: "x" } as HttpRequestInit),
    TypeError,
    /^Invalid changes: unknown key "bdy" \(known: /,
  );
});

Deno.test("HttpClient refuses a call option it does not know, naming it, and sends nothing", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  await using _ = client;
  const known =
    `${INIT_KEYS}, signal, readTimeout, totalTimeout, stream, onUploadProgress, onDownloadProgress`;
  for (const key of ["bdy", "json", "method", "redirect"]) {
    await rejectsWith(
      client.post("/x", { [key]: "v" } as RequestOptions),
      TypeError,
      new RegExp(`^Invalid options: unknown key "${key}" \\(known: ${known}\\)$`),
    );
  }
  const request = new HttpRequest("POST", "/x", { body: "x" });
  await rejectsWith(
    client.request(request, { sigal: AbortSignal.timeout(1000) } as never),
    TypeError,
    /^Invalid options: unknown key "sigal" \(known: signal, readTimeout, totalTimeout, stream, onUploadProgress, onDownloadProgress\)$/,
  );
  await rejectsWith(
    client.request(request, { body: "y" } as never),
    TypeError,
    /^Invalid options: unknown key "body"/,
  );
  assert.deepEqual([attempts, server.requests.length], [[], 0]);
  // The known ones pass: a signal goes to the call, the rest to the request.
  const controller = new AbortController();
  const response = await client.post("/echo", { body: "ok", signal: controller.signal });
  assert.equal(response.json<{ body: string }>().body, "ok");
});

Deno.test("HttpRequest refuses a raw body of another type with a TypeError naming body", () => {
  const bad: [unknown, string][] = [
    [42, "number"],
    [null, "null"],
    [{ a: 1 }, "Object"],
    [[1, 2], "an array"],
    [new DataView(new ArrayBuffer(1)), "DataView"],
    [new Uint16Array(1), "Uint16Array"],
    [new URLSearchParams("a=1"), "URLSearchParams"],
  ];
  for (const [body, type] of bad) {
    throwsAtOnce(
      () => new HttpRequest("POST", "/x", { body: body as string }),
      TypeError,
      `Invalid body: expected a string, Uint8Array, ArrayBuffer, Blob or ReadableStream, got ${type}`,
    );
  }
});

Deno.test("HttpRequest refuses a raw body beside another body, or on GET and HEAD", () => {
  const pairs: [HttpRequestInit, string][] = [
    [{ body: "x", data: { a: 1 } }, "Invalid body: give either body or data, not both"],
    [{ body: "x", jsonData: 1 }, "Invalid body: give either body or jsonData, not both"],
    [{ body: "x", files: { f: "/p" } }, "Invalid body: files go with data only, not with body"],
    [
      { jsonData: 1, files: { f: "/p" } },
      "Invalid body: files go with data only, not with jsonData",
    ],
  ];
  for (const [init, message] of pairs) {
    throwsAtOnce(() => new HttpRequest("POST", "/x", init), TypeError, message);
  }
  for (const method of ["GET", "HEAD"]) {
    throwsAtOnce(
      () => new HttpRequest(method, "/x", { body: "" }),
      TypeError,
      `Invalid body: a ${method} request cannot have body, data, jsonData or files`,
    );
  }
  throwsAtOnce(
    () => new HttpRequest("PUT", "/x", { body: "x" }).with({ method: "GET" }),
    TypeError,
    /a GET request cannot have body/,
  );
});

/** Passes a value the types refuse, as a JavaScript caller could. */
// deno-lint-ignore no-explicit-any
const js = (value: unknown): any => value;

const manager = new TokenManager([{
  name: "t",
  fetch: () => Promise.resolve(new TokenData({ accessToken: "t" })),
}]);
const request = new HttpRequest("GET", "http://127.0.0.1/");
const responseInit = {
  statusCode: 200,
  headers: {},
  content: new Uint8Array(),
  elapsedMs: 1,
  url: request.url,
  request,
};

/**
 * Every options (or init) object the library takes, with a misspelt key: the
 * name its TypeError gives the object, and the call.
 */
const OPTION_OBJECTS: [field: string, key: string, call: () => unknown][] = [
  ["retry options", "maxRetry", () => new HttpClientConfigBuilder().withRetry(js({ maxRetry: 1 }))],
  [
    "logging options",
    "logHeader",
    () => new HttpClientConfigBuilder().withLogging(js({ logHeader: true })),
  ],
  [
    "token auth options",
    "headerName",
    () =>
      new HttpClientConfigBuilder().withTokenAuth(js({ tokenManager: manager, headerName: "X" })),
  ],
  ["tls", "ca", () => new HttpClientConfigBuilder().withTls(js({ ca: [] }))],
  [
    "proxy options",
    "no_proxy",
    () => new HttpClientConfigBuilder().withProxy("http://127.0.0.1:1", js({ no_proxy: "a" })),
  ],
  ["LoggingRequestHook options", "logHeader", () => new LoggingRequestHook(js({ logHeader: 1 }))],
  ["LoggingResponseHook options", "loger", () => new LoggingResponseHook(js({ loger: console }))],
  ["LoggingErrorHook options", "logHeaders", () => new LoggingErrorHook(js({ logHeaders: true }))],
  ["CorrelationIdHook options", "header", () => new CorrelationIdHook(js({ header: "X-Id" }))],
  ["ApiKeyAuthHook options", "header", () => new ApiKeyAuthHook("k", js({ header: "X-Key" }))],
  [
    "BasicAuthHook options",
    "excludePaths",
    () => new BasicAuthHook("u", "p", js({ excludePaths: ["/"] })),
  ],
  [
    "TokenAuthHook options",
    "headerName",
    () => new TokenAuthHook(manager, js({ headerName: "X" })),
  ],
  [
    "CompositeAuthHook options",
    "strategie",
    () => new CompositeAuthHook([new ApiKeyAuthHook("k")], js({ strategie: "all" })),
  ],
  [
    "AuthorizationHook options",
    "header",
    () => new AuthorizationHook(() => "t", js({ header: "X" })),
  ],
  [
    "SimpleAuthRetryStrategy options",
    "maxRetry",
    () => new SimpleAuthRetryStrategy(js({ maxRetry: 2 })),
  ],
  [
    "TokenManager options",
    "refreshSkew",
    () => new TokenManager([{ name: "t", fetch: () => js(0) }], js({ refreshSkew: 5 })),
  ],
  [
    "client credentials options",
    "scopes",
    () =>
      clientCredentialsStep(
        js({ tokenUrl: "http://127.0.0.1/t", clientId: "i", clientSecret: "s", scopes: "a" }),
      ),
  ],
  ["TokenData init", "expires_in", () => new TokenData(js({ accessToken: "a", expires_in: 5 }))],
  ["RequestContext options", "attempts", () => new RequestContext(request, js({ attempts: 1 }))],
  ["FetchContext options", "token", () => new FetchContext(js({ token: {} }))],
  ["HttpResponse init", "status", () => new HttpResponse(js({ ...responseInit, status: 200 }))],
  ["mock reply", "bdy", () => new MockTransport().route("GET", "/", js({ bdy: "x" }))],
  ["init", "bdy", () => new HttpRequest("POST", "/x", js({ bdy: "x" }))],
  ["changes", "bdy", () => request.with(js({ bdy: "x" }))],
];

Deno.test("Every options and init object refuses a key it does not know with a TypeError naming it", () => {
  const failed: string[] = [];
  for (const [field, key, call] of OPTION_OBJECTS) {
    try {
      throwsAtOnce(
        call,
        TypeError,
        new RegExp(`^Invalid ${field}: unknown key "${key}" \\(known: [\\w, ]+\\)$`),
      );
    } catch (error) {
      failed.push(`${field}: ${(error as Error).message.split("\n")[0]}`);
    }
  }
  assert.deepEqual(failed, []);
});

Deno.test("A call's stream and events options refuse a key they do not know", async () => {
  await using server = startFixtureServer();
  const { client } = countingClient(server);
  await using _ = client;
  await rejectsWith(
    client.stream("GET", "/x", js({ readTimout: 1 })),
    TypeError,
    /^Invalid options: unknown key "readTimout" \(known: /,
  );
  throwsAtOnce(
    () => eventSource(client, "/x", js({ lastEventID: "1" })),
    TypeError,
    /^Invalid options: unknown key "lastEventID" \(known: /,
  );
  assert.equal(server.requests.length, 0);
});

Deno.test("The known keys pass, and a subclass of BaseAuthHook takes options of its own", () => {
  new HttpClientConfigBuilder()
    .withRetry({ maxRetries: 1, methods: ["GET"], statusCodes: [503], backoff: 0.1 })
    .withLogging({ logHeaders: true, logBody: false, sensitiveKeys: ["x"], logger: console })
    .withTokenAuth({ tokenManager: manager, authHeaderName: "X-Token", excludedPaths: ["/"] })
    .withProxy("http://127.0.0.1:1", { noProxy: "a" })
    .build();
  new LoggingErrorHook({ sensitiveKeys: ["x"], logger: console });
  new RequestContext(request, { attempt: 1, maxRetries: 2, metadata: {} });
  // The base class's options are its subclasses' too: it cannot know their keys.
  class TenantHook extends BaseAuthHook {
    readonly tenant: string;
    constructor(options: BaseAuthHookOptions & { tenant: string }) {
      super(options);
      this.tenant = options.tenant;
    }
    beforeRequest(request: HttpRequest) {
      return request.withHeaders({ "X-Tenant": this.tenant });
    }
    getToken() {
      return Promise.resolve(new TokenData({ accessToken: this.tenant }));
    }
  }
  assert.equal(new TenantHook({ tenant: "a", excludedPaths: ["/"] }).tenant, "a");
  // A token response is the server's: its other fields are read past.
  const token = TokenData.fromOAuth2({ access_token: "a", token_type: "Bearer", id_token: "x" });
  assert.equal(token.accessToken, "a");
});
