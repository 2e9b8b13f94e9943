import assert from "node:assert/strict";
import { FetchContext, HttpMethod, HttpRequest, HttpResponse, RequestContext } from "../models.ts";
import { ResponseParseException } from "../mod.ts";
import { TokenData } from "../config.ts";

const encode = (text: string) => new TextEncoder().encode(text);

function response(init: Partial<ConstructorParameters<typeof HttpResponse>[0]> = {}): HttpResponse {
  return new HttpResponse({
    statusCode: 200,
    headers: {},
    content: new Uint8Array(),
    elapsedMs: 1.5,
    url: "http://127.0.0.1/x",
    request: new HttpRequest("GET", "http://127.0.0.1/x"),
    ...init,
  });
}

function throwsTypeError(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof TypeError, `expected a TypeError, got ${error}`);
    assert.match(error.message, message);
    return true;
  });
}

Deno.test("HttpMethod members are their own values", () => {
  assert.deepEqual(Object.values(HttpMethod), [
    "GET",
    "POST",
    "PUT",
    "PATCH",
    "DELETE",
    "HEAD",
    "OPTIONS",
    "QUERY",
  ]);
  for (const [name, value] of Object.entries(HttpMethod)) assert.equal(name, value);
});

Deno.test("HttpRequest stores a method given in any case upper-case", () => {
  assert.equal(new HttpRequest("pAtCh", "/x").method, "PATCH");
  assert.equal(
    new HttpRequest(HttpMethod.DELETE, new URL("http://127.0.0.1/a")).url,
    "http://127.0.0.1/a",
  );
});

Deno.test("HttpRequest is frozen, with frozen headers, params, data, files and auth", () => {
  const request = new HttpRequest("POST", "/x", {
    headers: { A: "1" },
    params: { q: ["a", "b"] },
    data: { f: "v" },
    files: { up: new Uint8Array([1]) },
    auth: ["user", "pass"],
  });
  for (
    const value of [
      request,
      request.headers,
      request.params,
      request.data,
      request.files,
      request.auth,
    ]
  ) {
    assert.ok(Object.isFrozen(value));
  }
  assert.throws(() => {
    (request as { url: string }).url = "/y";
  }, TypeError);
  assert.throws(() => {
    (request.headers as Record<string, string>).B = "2";
  }, TypeError);
});

Deno.test("HttpRequest copies its inputs, so later changes to them do not leak in", () => {
  const headers: Record<string, string> = { A: "1" };
  const body = { n: 1 };
  const request = new HttpRequest("POST", "/x", { headers, jsonData: body });
  headers.A = "2";
  body.n = 2;
  assert.equal(request.headers?.A, "1");
  assert.equal(request.jsonText, '{"n": 1}');
});

Deno.test("HttpRequest.withHeaders() merges without regard to case and leaves the original alone", () => {
  const bare = new HttpRequest("GET", "/x");
  const withOne = bare.withHeaders({ Accept: "text/plain" });
  assert.equal(bare.headers, undefined);
  assert.deepEqual(withOne.headers, { Accept: "text/plain" });
  const merged = withOne.withHeaders({ accept: "application/json", "X-B": "2" });
  assert.deepEqual(merged.headers, { accept: "application/json", "X-B": "2" });
  assert.deepEqual(withOne.headers, { Accept: "text/plain" });
});

Deno.test("HttpRequest.with() replaces fields and removes those given as undefined", () => {
  const request = new HttpRequest("POST", "/x", { jsonData: { a: 1 }, timeout: 3 });
  const changed = request.with({ url: "/y", timeout: undefined });
  assert.equal(changed.url, "/y");
  assert.equal(changed.timeout, undefined);
  assert.equal(changed.jsonText, '{"a": 1}');
  assert.equal(request.timeout, 3);
  const get = request.with({ method: "GET", jsonData: undefined });
  assert.equal(get.method, "GET");
  assert.equal(get.jsonData, undefined);
});

Deno.test("HttpRequest.toObject() has exactly the keys of HttpRequestFields", () => {
  const request = new HttpRequest("GET", "/x", { params: { a: 1 } });
  const object = request.toObject();
  assert.deepEqual(Object.keys(object), [
    "method",
    "url",
    "headers",
    "params",
    "data",
    "jsonData",
    "files",
    "timeout",
    "auth",
  ]);
  assert.equal(object.method, HttpMethod.GET);
  assert.deepEqual(object.params, { a: 1 });
  assert.equal(object.headers, undefined);
});

Deno.test("HttpRequest refuses bad input with a TypeError naming the field", () => {
  throwsTypeError(() => new HttpRequest("FETCH", "/x"), /method.*"FETCH"/);
  throwsTypeError(() => new HttpRequest(7 as unknown as string, "/x"), /method/);
  throwsTypeError(() => new HttpRequest("GET", 42 as unknown as string), /url/);
  throwsTypeError(
    () => new HttpRequest("POST", "/x", { data: { a: 1 }, jsonData: {} }),
    /data.*jsonData/,
  );
  for (const timeout of [-1, 0, NaN, Infinity]) {
    throwsTypeError(() => new HttpRequest("GET", "/x", { timeout }), /timeout/);
  }
  throwsTypeError(
    () => new HttpRequest("POST", "/x", { jsonData: { n: 1n } }),
    /jsonData\.n: BigInt/,
  );
  throwsTypeError(
    () => new HttpRequest("POST", "/x", { jsonData: { list: [1, NaN] } }),
    /jsonData\.list\[1\]: NaN/,
  );
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  throwsTypeError(
    () => new HttpRequest("POST", "/x", { jsonData: cycle }),
    /jsonData\.self: circular/,
  );
  throwsTypeError(
    () => new HttpRequest("GET", "/x", { headers: { "Bad Name": "v" } }),
    /header name/,
  );
  throwsTypeError(
    () => new HttpRequest("GET", "/x", { headers: { "X-A": "a\r\nb" } }),
    /"X-A".*CR/,
  );
  throwsTypeError(
    () => new HttpRequest("GET", "/x", { headers: { "X-A": 1 as unknown as string } }),
    /"X-A".*number/,
  );
  throwsTypeError(
    () => new HttpRequest("GET", "/x", { params: { p: { a: 1 } as unknown as string } }),
    /params\.p/,
  );
  throwsTypeError(
    () => new HttpRequest("POST", "/x", { data: { d: [] as unknown as string } }),
    /data\.d/,
  );
  throwsTypeError(
    () => new HttpRequest("POST", "/x", { files: { f: 3 as unknown as string } }),
    /files\.f/,
  );
  throwsTypeError(() => new HttpRequest("GET", "/x", { jsonData: {} }), /GET request cannot have/);
  throwsTypeError(() => new HttpRequest("GET", "/x", { auth: ["a:b", "p"] }), /auth/);
});

Deno.test("HttpRequest refuses each bad header of the shared list with the same TypeError as on Node", async () => {
  // tests/node/client.test.mjs checks the npm build against the same list.
  const cases: { headers: Record<string, unknown>; message: string }[] = JSON.parse(
    await Deno.readTextFile(new URL("./bad_headers.json", import.meta.url)),
  );
  const base = new HttpRequest("GET", "http://127.0.0.1/", { headers: { Accept: "*/*" } });
  for (const { headers, message } of cases) {
    const same = (error: unknown) => error instanceof TypeError && error.message === message;
    assert.throws(
      () => new HttpRequest("GET", "http://127.0.0.1/", { headers: headers as never }),
      same,
    );
    assert.throws(() => base.withHeaders(headers as never), same);
  }
});

Deno.test("HttpRequest never shows a credential in messages, toString() or console.log()", () => {
  const secret = "s3cr3t-value";
  const request = new HttpRequest("GET", `http://user:${secret}@127.0.0.1/x`, {
    headers: { Authorization: `Bearer ${secret}`, "X-Api-Key": secret, Accept: "a" },
    auth: ["user", secret],
  });
  assert.equal(request.toString(), "HttpRequest(GET http://user:***@127.0.0.1/x)");
  const shown = Deno.inspect(request);
  assert.ok(!shown.includes(secret), shown);
  assert.match(shown, /Accept: "a"/);
  assert.throws(
    () => new HttpRequest("GET", "/x", { headers: { "X-Token": `${secret}\n` } }),
    (e: Error) => {
      assert.ok(!e.message.includes(secret));
      return true;
    },
  );
});

Deno.test("HttpResponse derives text, status classes and headers", () => {
  const ok = response({
    headers: new Headers({ "Content-Type": "text/plain; charset=iso-8859-1", "X-A": "1" }),
    content: new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
  });
  assert.equal(ok.text, "café");
  assert.equal(ok.header("x-a"), "1");
  assert.equal(ok.header("X-A"), "1");
  assert.equal(ok.header("missing"), undefined);
  assert.deepEqual(Object.keys(ok.headers).sort(), ["content-type", "x-a"]);
  assert.ok(Object.isFrozen(ok));
  const cases: [number, boolean, boolean, boolean][] = [
    [199, false, false, false],
    [200, true, false, false],
    [299, true, false, false],
    [300, false, false, false],
    [400, false, true, false],
    [499, false, true, false],
    [500, false, false, true],
    [599, false, false, true],
  ];
  for (const [statusCode, success, client, server] of cases) {
    const r = response({ statusCode });
    assert.deepEqual(
      [r.isSuccess, r.isClientError, r.isServerError],
      [success, client, server],
      `${statusCode}`,
    );
  }
});

Deno.test("HttpResponse.text uses the given encoding, else UTF-8", () => {
  assert.equal(response({ content: encode("naïve") }).text, "naïve");
  assert.equal(response({ content: new Uint8Array([0xe9]), encoding: "latin1" }).text, "é");
  assert.equal(
    response({ content: encode("x"), headers: { "content-type": "text/plain; charset=bogus" } })
      .text,
    "x",
  );
});

Deno.test("HttpResponse.json() parses, and throws ResponseParseException carrying the response", () => {
  assert.deepEqual(response({ content: encode('{"a": [1]}') }).json(), { a: [1] });
  const bad = response({ content: encode("<html>") });
  assert.throws(() => bad.json(), (error: unknown) => {
    assert.ok(error instanceof ResponseParseException);
    assert.equal(error.response, bad);
    assert.equal(error.request, bad.request);
    assert.ok(error.cause instanceof SyntaxError);
    return true;
  });
  assert.equal(bad.jsonOrUndefined(), undefined);
  assert.equal(response().jsonOrUndefined(), undefined);
  assert.deepEqual(response({ content: encode("[2]") }).jsonOrUndefined(), [2]);
});

Deno.test("HttpResponse masks sensitive headers in console.log()", () => {
  const shown = Deno.inspect(response({ headers: { "set-cookie": "session=abc123" } }));
  assert.ok(!shown.includes("abc123"), shown);
});

Deno.test("RequestContext counts attempts and keeps metadata", () => {
  const request = new HttpRequest("GET", "/x");
  const context = new RequestContext(request);
  assert.equal(context.attempt, 0);
  assert.equal(context.maxRetries, 0);
  assert.deepEqual(context.metadata, {});
  assert.equal(context.isRetry, false);
  context.incrementAttempt();
  assert.equal(context.isRetry, true);
  const given = new RequestContext(request, {
    attempt: 2,
    maxRetries: 3,
    metadata: { requestId: "ab" },
  });
  assert.deepEqual([given.attempt, given.maxRetries, given.metadata.requestId], [2, 3, "ab"]);
});

Deno.test("FetchContext stores tokens by step name and tells valid from expired", () => {
  const expired = new TokenData({ accessToken: "old", expiresAt: Date.now() - 1000 });
  const context = new FetchContext({ tokens: { login: expired } });
  assert.ok(context.hasToken("login"));
  assert.equal(context.hasValidToken("login"), false);
  assert.equal(context.getTokenValue("login"), "old");
  context.addToken("exchange", new TokenData({ accessToken: "new" }));
  assert.ok(context.hasValidToken("exchange"));
  assert.equal(context.getToken("none"), undefined);
  assert.equal(context.getTokenValue("none"), undefined);
  assert.equal(new FetchContext({ tokens: new Map([["a", expired]]) }).getToken("a"), expired);
});

Deno.test("TokenData reads OAuth 2.0 responses, expires with skew, and hides its secrets", () => {
  const now = Date.now();
  const token = TokenData.fromOAuth2({
    access_token: "tok-123",
    token_type: "bearer",
    expires_in: 60,
    refresh_token: "ref-456",
    scope: "read",
  });
  assert.equal(token.tokenType, "bearer");
  assert.ok(token.expiresAt !== undefined && Math.abs(token.expiresAt - (now + 60_000)) < 1000);
  assert.equal(token.isExpired(now), false);
  assert.equal(token.isExpired(now, 61), true);
  assert.equal(new TokenData({ accessToken: "x" }).isExpired(now + 1e12), false);
  assert.equal(
    new TokenData({ accessToken: "x", expiresAt: new Date(now - 1) }).isExpired(now),
    true,
  );
  for (const shown of [String(token), Deno.inspect(token)]) {
    assert.ok(!shown.includes("tok-123") && !shown.includes("ref-456"), shown);
  }
  throwsTypeError(() => new TokenData({ accessToken: "" }), /accessToken/);
  throwsTypeError(() => TokenData.fromOAuth2({ token_type: "bearer" }), /accessToken/);
});
