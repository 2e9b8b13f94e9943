// How requests and responses are built: a copy reuses what it keeps, a plain
// init is always checked and copied, and only a received response defers its
// header record.

import assert from "node:assert/strict";
import { HttpRequest, HttpResponse } from "../models.ts";
import type { HttpRequestInit, HttpResponseInit } from "../models.ts";
import { receivedResponse } from "../src/models/response.ts";

/** The bodies a request can have: at most one of body, data and jsonData; files go with data. */
const BODIES: HttpRequestInit[] = [
  { data: { note: "n" }, files: { up: new Uint8Array([1]) } },
  { jsonData: { name: "Ada" } },
  { body: new Uint8Array([1, 2, 3]) },
];

function fullRequest(body: HttpRequestInit = BODIES[0]!): HttpRequest {
  return new HttpRequest("POST", "http://127.0.0.1/x", {
    headers: { Accept: "text/plain" },
    params: { page: 2, tag: ["a", "b"] },
    ...body,
    timeout: 5,
    auth: ["user", "pass"],
  });
}

function responseInit(headers: Headers): HttpResponseInit {
  return {
    statusCode: 200,
    headers,
    content: new Uint8Array(),
    elapsedMs: 1,
    url: "http://127.0.0.1/x",
    request: new HttpRequest("GET", "http://127.0.0.1/x"),
  };
}

Deno.test("HttpRequest.with() keeps the fields it does not change as the same frozen objects", () => {
  for (const body of BODIES) {
    const request = fullRequest(body);
    const copy = request.with({ url: "http://127.0.0.1/y" });
    assert.equal(copy.url, "http://127.0.0.1/y");
    assert.equal(copy.headers, request.headers);
    assert.equal(copy.params, request.params);
    assert.equal(copy.data, request.data);
    assert.equal(copy.files, request.files);
    assert.equal(copy.auth, request.auth);
    assert.equal(copy.jsonData, request.jsonData);
    assert.equal(copy.body, request.body);
    assert.equal(copy.withHeaders({ "X-A": "1" }).body, request.body);
  }
});

Deno.test("HttpRequest.with() and withHeaders() send the JSON bytes serialized at construction", () => {
  const body = { name: "Ada" };
  const request = new HttpRequest("POST", "/x", { jsonData: body });
  body.name = "Grace";
  assert.equal(request.with({ timeout: 1 }).jsonText, '{"name": "Ada"}');
  assert.equal(request.withHeaders({ "X-A": "1" }).jsonText, '{"name": "Ada"}');
  // Another jsonData object is serialized anew.
  assert.equal(request.with({ jsonData: { ...body } }).jsonText, '{"name": "Grace"}');
});

Deno.test("HttpRequest.with() checks and copies the fields it changes", () => {
  const request = fullRequest();
  const params = { page: 3 };
  const copy = request.with({ params });
  assert.notEqual(copy.params, params);
  assert.ok(Object.isFrozen(copy.params));
  assert.throws(
    () => request.with({ params: { bad: {} as never } }),
    /^TypeError: Invalid params\.bad/,
  );
  assert.throws(() => request.with({ url: "/a\nb" }), /^TypeError: Invalid url/);
  assert.throws(() => request.with({ method: "GET" }), /^TypeError: Invalid body/);
});

/** Changes whose keys, read a second time, are `second`'s: what a Proxy can do. */
function keysChangingOnSecondRead(first: object, second: object): Record<string, unknown> {
  let reads = 0;
  const current = () => (reads <= 1 ? first : second);
  return new Proxy({}, {
    ownKeys: () => (reads++, Reflect.ownKeys(current())),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(current(), key),
    get: (_, key) => Reflect.get(current(), key),
  });
}

Deno.test("HttpRequest.with() checks every field it copies from changes whose keys change between reads", () => {
  const request = new HttpRequest("GET", "http://127.0.0.1/x");
  const bad = { "X-Bad": "a\r\nInjected: 1" };
  const withHeaders = keysChangingOnSecondRead({ headers: bad }, {
    headers: bad,
    checkedHeaders: bad,
  });
  assert.throws(() => request.with(withHeaders), /^TypeError: Invalid value for header "X-Bad"/);
  const url = "http://127.0.0.1/a\nb";
  const withUrl = keysChangingOnSecondRead({ url }, { url, from: { url, method: "GET" } });
  assert.throws(() => request.with(withUrl), /^TypeError: Invalid url/);
});

Deno.test("new HttpRequest() checks the header values it keeps, read once", () => {
  let reads = 0;
  const headers = {
    get "X-Flip"() {
      return reads++ === 0 ? "ok" : "a\r\nInjected: 1";
    },
  };
  const request = new HttpRequest("GET", "http://127.0.0.1/x", { headers });
  // The value kept is the one checked: the getter's first.
  assert.deepEqual(request.headers, { "X-Flip": "ok" });
  assert.equal(reads, 1);
});

Deno.test("new HttpRequest() checks and copies an init that holds another request's fields", () => {
  const request = fullRequest();
  const init: HttpRequestInit = request.toObject();
  // A further argument is no way around the checks.
  const Construct = HttpRequest as unknown as new (...args: unknown[]) => HttpRequest;
  for (
    const other of [
      new HttpRequest("POST", request.url, init),
      new Construct("POST", request.url, init, request),
    ]
  ) {
    assert.notEqual(other.headers, request.headers);
    assert.notEqual(other.params, request.params);
    assert.notEqual(other.files, request.files);
    assert.notEqual(other.auth, request.auth);
    assert.deepEqual(other.toObject(), request.toObject());
  }
  assert.throws(
    () => new HttpRequest("POST", "/x", { ...init, headers: { "Bad Name": "1" } }),
    /^TypeError: Invalid header name in headers/,
  );
});

Deno.test("new HttpResponse() copies the headers it is given, whatever further argument it gets", () => {
  const Construct = HttpResponse as unknown as new (...args: unknown[]) => HttpResponse;
  for (const extra of [undefined, Symbol("received"), true]) {
    const headers = new Headers({ "Content-Type": "text/plain" });
    const response = new Construct(responseInit(headers), extra);
    headers.set("content-type", "application/json");
    headers.set("x-late", "1");
    assert.equal(response.header("content-type"), "text/plain");
    assert.equal(response.header("x-late"), undefined);
    assert.deepEqual(response.headers, { "content-type": "text/plain" });
  }
});

Deno.test("receivedResponse() reads a transport's headers and builds the frozen record on demand", () => {
  const headers = new Headers([["Content-Type", "text/plain"], ["Set-Cookie", "a=1"]]);
  const response = receivedResponse(responseInit(headers));
  assert.ok(response instanceof HttpResponse);
  assert.ok(Object.isFrozen(response));
  assert.equal(response.header("CONTENT-TYPE"), "text/plain");
  assert.equal(response.headers, response.headers);
  assert.ok(Object.isFrozen(response.headers));
  assert.deepEqual(response.headers, { "content-type": "text/plain", "set-cookie": "a=1" });
  // A record from the transport is read as it is, with its lower-case names.
  const fromRecord = receivedResponse({ ...responseInit(headers), headers: { "x-a": "1" } });
  assert.equal(fromRecord.header("X-A"), "1");
  assert.deepEqual(fromRecord.headers, { "x-a": "1" });
});
