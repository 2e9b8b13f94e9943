import assert from "node:assert/strict";
import {
  EventStreamException,
  HttpClientException,
  HttpRequest,
  HttpResponse,
  HttpStatusException,
  ResponseException,
  ResponseNotReadException,
  ResponseParseException,
} from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { settles, singleAttemptClient } from "./helpers.ts";

function responseOf(statusCode: number, url = "http://127.0.0.1/items"): HttpResponse {
  const request = new HttpRequest("GET", url);
  const content = new TextEncoder().encode('{"error": "nope"}');
  return new HttpResponse({ statusCode, headers: {}, content, elapsedMs: 1, url, request });
}

Deno.test("raiseForStatus() returns the response itself for 1xx, 2xx and 3xx", () => {
  for (const status of [100, 101, 200, 201, 204, 299, 301, 304, 308, 399]) {
    const response = responseOf(status);
    assert.equal(response.raiseForStatus(), response, `status ${status}`);
  }
});

Deno.test("raiseForStatus() throws HttpStatusException for every 4xx and 5xx, carrying the response", () => {
  for (let status = 400; status <= 599; status++) {
    const response = responseOf(status);
    assert.throws(() => response.raiseForStatus(), (error: unknown) => {
      assert.ok(error instanceof HttpStatusException, `status ${status}`);
      assert.ok(error instanceof ResponseException && error instanceof HttpClientException);
      assert.equal(error.name, "HttpStatusException");
      assert.equal(error.response, response);
      assert.equal(error.request, response.request);
      const kind = status < 500 ? "Client error" : "Server error";
      assert.equal(error.message, `${kind} (status ${status}): GET http://127.0.0.1/items`);
      return true;
    });
  }
});

Deno.test("HttpStatusException names the final URL, masked, and shows no secret in any view", () => {
  const secretUrl = "http://ada:s3cret@127.0.0.1/after?token=t0ken&page=2";
  const request = new HttpRequest("DELETE", "http://127.0.0.1/before?api_key=k3y", {
    headers: { Authorization: "Bearer b3arer" },
  });
  const response = new HttpResponse({
    statusCode: 403,
    headers: { "Set-Cookie": "sid=c00kie" },
    content: new TextEncoder().encode("denied"),
    elapsedMs: 1,
    url: secretUrl,
    request,
  });
  assert.throws(() => response.raiseForStatus(), (error: unknown) => {
    assert.ok(error instanceof HttpStatusException);
    assert.equal(
      error.message,
      "Client error (status 403): DELETE http://ada:***@127.0.0.1/after?token=***&page=2",
    );
    const shown = [
      String(error),
      error.stack ?? "",
      JSON.stringify(error),
      Deno.inspect(error, { depth: 10 }),
    ];
    for (const text of shown) {
      for (const secret of ["s3cret", "t0ken", "k3y", "b3arer", "c00kie"]) {
        assert.ok(!text.includes(secret), `${secret} in ${text}`);
      }
    }
    const view = JSON.parse(JSON.stringify(error));
    assert.equal(view.name, "HttpStatusException");
    assert.equal(view.response.statusCode, 403);
    assert.equal(view.response.content, "Uint8Array(6)");
    assert.equal(view.response.request.headers.Authorization, "***");
    return true;
  });
});

Deno.test("The exceptions that carry a response share one base, and keep their own names", () => {
  const response = responseOf(500);
  const errors = [
    new HttpStatusException("status", { response }),
    new ResponseParseException("parse", { response }),
    new EventStreamException("stream", { response }),
  ];
  for (const error of errors) {
    assert.ok(error instanceof ResponseException && error instanceof HttpClientException);
    assert.equal(error.name, error.constructor.name);
    assert.equal(error.response, response);
    assert.equal(error.request, response.request);
    assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(error))), [
      "name",
      "message",
      "stack",
      "request",
      "response",
    ]);
  }
  assert.ok(!(errors[0] instanceof ResponseParseException));
  assert.ok(!(errors[1] instanceof HttpStatusException));
});

Deno.test("HttpClient.get() then raiseForStatus().json() reads a success and throws on a 404", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  assert.deepEqual((await client.get("/status/200")).raiseForStatus().json(), { status: 200 });
  const response = await client.get("/status/404?token=t0ken");
  assert.throws(() => response.raiseForStatus().json(), (error: unknown) => {
    assert.ok(error instanceof HttpStatusException);
    assert.equal(
      error.message,
      `Client error (status 404): GET ${server.url}/status/404?token=***`,
    );
    assert.deepEqual(error.response.json(), { status: 404 });
    return true;
  });
});

Deno.test("raiseForStatus() on a streamed response leaves its body unread on the exception", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await using response = await client.stream("GET", "/status/503");
  assert.throws(() => response.raiseForStatus(), (error: unknown) => {
    assert.ok(error instanceof HttpStatusException);
    assert.equal(error.response, response);
    assert.ok(error.response.isStreamed);
    return true;
  });
  assert.deepEqual((await response.read()).json(), { status: 503 });
});

Deno.test("raiseForStatus() on a streamed 4xx quotes the server's reason, masked, as on a buffered one", async () => {
  await using server = startFixtureServer();
  server.route("/me", (request) =>
    Response.json({
      error: "invalid_token",
      error_description: `Token expired: ${request.headers.get("authorization")}`,
    }, { status: 401 }));
  await using client = singleAttemptClient(server.url);
  const headers = { Authorization: "Bearer s3cr3t-t0ken" };
  const buffered = await client.get("/me", { headers });
  await using streamed = await client.stream("GET", "/me", { headers });
  const messageOf = (response: { raiseForStatus(): unknown }) => {
    try {
      response.raiseForStatus();
    } catch (error) {
      assert.ok(error instanceof HttpStatusException);
      return error.message;
    }
    assert.fail("raiseForStatus() did not throw");
  };
  const message = messageOf(streamed);
  assert.equal(message, messageOf(buffered));
  assert.match(message, /^Client error \(status 401, "invalid_token: Token expired: Bearer \*+"\)/);
  assert.doesNotMatch(message, /s3cr3t/);
  // The body is still the caller's to read, once, as a streamed one's is.
  assert.ok(streamed.isStreamed);
  assert.throws(() => (streamed as HttpResponse).content, ResponseNotReadException);
  const text = await new Response(streamed.body).text();
  assert.deepEqual(JSON.parse(text).error, "invalid_token");
});

Deno.test("a streamed 4xx whose body has no length is returned at its head, unread, its message without a reason", async () => {
  await using server = startFixtureServer();
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => onCancel = resolve);
  server.route("/me", () =>
    new Response(
      new ReadableStream({
        start: (c) => c.enqueue(new TextEncoder().encode('{"error": "invalid_token"}')),
        cancel: () => onCancel(),
      }),
      { status: 401, headers: { "content-type": "application/json" } },
    ));
  await using client = singleAttemptClient(server.url);
  const response = await settles(client.stream("GET", "/me"));
  assert.throws(
    () => response.raiseForStatus(),
    (error: unknown) =>
      (error as Error).message === `Client error (status 401): GET ${server.url}/me`,
  );
  await response.cancel();
  await settles(cancelled);
});
