// Masking, the shapes a secret takes besides a request's own URL and
// headers: URL-valued response headers (Location, Link), pool options given
// as a `URL` or with a proxy user name alone, URLs in text the parser reads
// without a slash or a scheme, and query names with an array suffix.

import assert from "node:assert/strict";
import {
  ConnectionException,
  HttpClient,
  HttpClientConfigBuilder,
  HttpRequest,
  LoggingResponseHook,
} from "../mod.ts";
import { redactQuery, redactText } from "../src/masking/views.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { recordingLogger, rejectsWith, singleAttemptClient } from "./helpers.ts";

const SECRET = "s3cret-in-a-shape";

function assertHidden(texts: string[]): void {
  const leak = texts.find((text) => text.includes(SECRET));
  assert.equal(leak, undefined, `${SECRET} leaked`);
}

Deno.test("The URLs in Location and Link headers are masked in log lines, console.log() and JSON.stringify() of a response", async () => {
  await using server = startFixtureServer();
  server.route("/moved", () =>
    new Response(null, {
      status: 302,
      headers: {
        Location: `http://127.0.0.1:1/cb?access_token=${SECRET}&page=2`,
        Link: `<http://ada:${SECRET}@127.0.0.1/next?page=3>; rel="next"`,
      },
    }));
  const { logger, lines } = recordingLogger();
  await using client = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(server.url).withMaxRedirects(0)
      .withResponseHook(new LoggingResponseHook({ logger, logHeaders: true })).build(),
  );
  const response = await client.get("/moved");
  assert.equal(response.statusCode, 302);
  const texts = [
    ...lines.map(([, line]) => line),
    Deno.inspect(response),
    JSON.stringify(response),
  ];
  assertHidden(texts);
  assert.ok(texts.some((text) => text.includes("access_token=***&page=2")), texts.join("\n"));
  assert.equal(response.header("location"), `http://127.0.0.1:1/cb?access_token=${SECRET}&page=2`);
});

Deno.test("A proxy given as a URL, or with a user name alone, is masked in console.log() and JSON.stringify() of a client", () => {
  const proxies = [
    new URL(`http://ada:${SECRET}@127.0.0.1:3128`),
    `http://${SECRET}:@127.0.0.1:3128`,
    `http://${SECRET}@127.0.0.1:3128`,
  ];
  for (const proxy of proxies) {
    using client = new HttpClient(new HttpClientConfigBuilder().withProxy(proxy).build());
    assertHidden([Deno.inspect(client, { depth: 10 }), JSON.stringify(client)]);
  }
});

Deno.test("redactText() masks a URL the parser reads without a slash, or without a scheme", () => {
  assert.equal(
    redactText(`failed (http:ada:${SECRET}@h/x).`),
    "failed (http://ada:***@h/x).",
  );
  assert.equal(redactText(`failed (//ada:${SECRET}@h/x).`), "failed (//ada:***@h/x).");
  assert.equal(redactText(`HTTPS:${SECRET}@h/`), "https://***@h/");
  assert.equal(redactText("a:b no user-info"), "a:b no user-info");
});

Deno.test("Query masking stops a value at the fragment and reads array-style names", () => {
  assert.equal(redactQuery(`/p?a=1&token=${SECRET}#frag`), "/p?a=1&token=***#frag");
  assert.equal(
    redactQuery(`/p?token[]=${SECRET}&api_key[0]=${SECRET}&x[]=1`),
    "/p?token[]=***&api_key[0]=***&x[]=1",
  );
  const request = new HttpRequest("GET", "http://127.0.0.1/p", { params: { "token[]": SECRET } });
  assertHidden([String(request), Deno.inspect(request), JSON.stringify(request)]);
});

Deno.test("HttpClient errors never contain the credentials of a URL", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await using client = singleAttemptClient();
  const error = await rejectsWith(
    client.get(`http://admin:hunter2@127.0.0.1:${port}/x`),
    ConnectionException,
    /Connection failed/,
  );
  assert.ok(!error.message.includes("hunter2"), error.message);
  assert.ok(!String(error).includes("hunter2"));
});

Deno.test("console.log() of requests, responses and clients masks credential-like headers", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withHeaders({ Authorization: "Bearer d3fault", "X-Token": "t0ken", "X-Session-Key": "s3ss" })
    .build();
  await using client = new HttpClient(config);
  const response = await client.get("/x");
  for (
    const shown of [Deno.inspect(client), Deno.inspect(response), Deno.inspect(response.request)]
  ) {
    for (const secret of ["d3fault", "t0ken", "s3ss"]) {
      assert.ok(!shown.includes(secret), `${secret} in ${shown}`);
    }
  }
  assert.equal(
    new HttpRequest("GET", "http://u:p@ss@127.0.0.1/").toString(),
    "HttpRequest(GET http://u:***@127.0.0.1/)",
  );
});

Deno.test("A runtime error's string fields down the cause chain are masked in place, its other fields kept", () => {
  // Bun's fetch names the URL, query included, in a `path` field of its error.
  const url = `http://127.0.0.1:9/x?access_token=${SECRET}&page=2`;
  const inner = Object.assign(new Error("connect failed"), { path: url, errno: 0 });
  const runtime = Object.assign(new TypeError("fetch failed", { cause: inner }), {
    path: url,
    code: "ECONNREFUSED",
  });
  const error = new ConnectionException("Connection failed: GET /x", { cause: runtime });
  assert.equal(error.cause, runtime, "the runtime's error stays the cause");
  assert.equal(runtime.code, "ECONNREFUSED");
  assert.equal(inner.errno, 0);
  assert.equal(runtime.path, "http://127.0.0.1:9/x?access_token=***&page=2");
  assertHidden([
    JSON.stringify(runtime),
    JSON.stringify(inner),
    JSON.stringify(error),
    Deno.inspect(runtime, { depth: 10 }),
  ]);
});
