import assert from "node:assert/strict";
import {
  ConnectionException,
  createClient,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  TimeoutException,
} from "../mod.ts";
import { formDataOf, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith } from "./helpers.ts";

/**
 * A client that makes one attempt per call: these tests are about a single
 * exchange; retries have their own tests in retry_test.ts.
 */
function singleAttemptClient(baseUrl?: string): HttpClient {
  const builder = new HttpClientConfigBuilder().withRetry({ maxRetries: 0 });
  if (baseUrl !== undefined) builder.withBaseUrl(baseUrl);
  return new HttpClient(builder.build());
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("HttpClient joins relative URLs to the base URL with the spec's slash rules", async () => {
  await using server = startFixtureServer();
  for (const base of [`${server.url}/api`, `${server.url}/api/`]) {
    await using client = singleAttemptClient(base);
    for (const path of ["/users", "users", "/users/", "users/"]) {
      const response = await client.get(path);
      assert.equal(server.last().path, "/api/users", `${base} + ${path}`);
      assert.equal(response.url, `${server.url}/api/users`);
      assert.equal(response.request.url, `${server.url}/api/users`);
    }
    await client.get("/users/?a=1");
    assert.deepEqual([server.last().path, server.last().query], ["/api/users", "a=1"]);
  }
});

Deno.test("HttpClient sends an absolute URL as it is, ignoring the base URL", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient("http://127.0.0.1:9/ignored");
  const response = await client.get(`${server.url}/elsewhere/`);
  assert.equal(server.last().path, "/elsewhere/");
  assert.equal(response.url, `${server.url}/elsewhere/`);
});

Deno.test("HttpClient.get() encodes params in insertion order, repeating array keys", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.get("/search", {
    params: {
      q: "a b&c",
      page: 2,
      tag: ["x", "y"],
      on: true,
      skipped: null,
      gone: undefined,
      z: "é",
    },
  });
  assert.equal(server.last().query, "q=a+b%26c&page=2&tag=x&tag=y&on=true&z=%C3%A9");
  await client.get("/search?fixed=1", { params: { more: 2 } });
  assert.equal(server.last().query, "fixed=1&more=2");
});

Deno.test("HttpClient sends per-call headers merged over the client's default headers", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder()
    .withBaseUrl(server.url)
    .withHeaders({ "X-Default": "d", Accept: "text/plain" })
    .build();
  await using client = new HttpClient(config);
  await client.get("/h", { headers: { accept: "application/json", "X-Call": "c" } });
  const { headers } = server.last();
  assert.equal(headers["x-default"], "d");
  assert.equal(headers["accept"], "application/json");
  assert.equal(headers["x-call"], "c");
});

Deno.test("HttpClient.post() sends jsonData as JSON in the shared serializer's style", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const response = await client.post("/echo", { jsonData: { name: "Zoë", ids: [1, 2] } });
  const recorded = server.last();
  assert.equal(recorded.method, "POST");
  assert.equal(recorded.headers["content-type"], "application/json");
  assert.equal(decode(recorded.body), '{"name": "Zoë", "ids": [1, 2]}');
  assert.equal(response.json<{ body: string }>().body, '{"name": "Zoë", "ids": [1, 2]}');
});

Deno.test("HttpClient keeps a Content-Type the request sets for JSON", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.put("/echo", {
    jsonData: [1],
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(server.last().headers["content-type"], "application/merge-patch+json");
});

Deno.test("HttpClient.post() sends data form-encoded", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.post("/form", { data: { user: "a b", n: 3, ok: false, sym: "&=" } });
  const recorded = server.last();
  assert.equal(recorded.headers["content-type"], "application/x-www-form-urlencoded");
  assert.equal(decode(recorded.body), "user=a+b&n=3&ok=false&sym=%26%3D");
});

Deno.test("HttpClient.post() sends files as multipart: Blob, File, bytes and a path on disk", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const path = await Deno.makeTempFile({ suffix: ".txt" });
  try {
    await Deno.writeTextFile(path, "from disk");
    await client.post("/upload", {
      data: { note: "@not-a-file" },
      files: {
        blob: new Blob(["blob bytes"], { type: "text/plain" }),
        file: new File(["file bytes"], "report.csv", { type: "text/csv" }),
        bytes: new Uint8Array([0, 1, 2, 255]),
        disk: path,
      },
      headers: { "Content-Type": "multipart/form-data" },
    });
  } finally {
    await Deno.remove(path);
  }
  const recorded = server.last();
  assert.match(recorded.headers["content-type"] ?? "", /^multipart\/form-data; boundary=/);
  const form = await formDataOf(recorded);
  assert.equal(form.get("note"), "@not-a-file");
  const part = (name: string) => form.get(name) as File;
  assert.equal(await part("blob").text(), "blob bytes");
  assert.equal(part("file").name, "report.csv");
  assert.equal(await part("file").text(), "file bytes");
  assert.deepEqual(
    new Uint8Array(await part("bytes").arrayBuffer()),
    new Uint8Array([0, 1, 2, 255]),
  );
  assert.equal(part("disk").name, path.split("/").pop());
  assert.equal(await part("disk").text(), "from disk");
});

Deno.test("HttpClient fails a file path that does not exist with HttpClientException naming it", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await rejectsWith(
    client.post("/upload", { files: { doc: "/no/such/file.txt" } }),
    HttpClientException,
    /files\.doc.*\/no\/such\/file\.txt.*NotFound.*POST/,
  );
  assert.equal(server.requests.length, 0);
});

Deno.test("HttpClient returns an HttpResponse for every received status", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  for (const status of [200, 201, 204, 299, 400, 401, 404, 418, 499, 500, 502, 503, 599]) {
    const response = await client.get(`/status/${status}`);
    assert.equal(response.statusCode, status);
    assert.equal(response.isSuccess, status < 300);
    assert.equal(response.isClientError, status >= 400 && status < 500);
    assert.equal(response.isServerError, status >= 500);
  }
});

Deno.test("HttpClient's responses read headers without regard to case, and keep them frozen", async () => {
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "X-Custom": "a" });
    headers.append("Set-Cookie", "one=1");
    headers.append("Set-Cookie", "two=2");
    return new Response("héllo", { headers });
  });
  const url = `http://127.0.0.1:${server.addr.port}/`;
  await using pooled = singleAttemptClient();
  await using custom = new HttpClient(
    new HttpClientConfigBuilder().withFetch((input, init) => fetch(input, init)).build(),
  );
  for (const client of [pooled, custom]) {
    const response = await client.get(url);
    // header() and text before the record is built, then the record itself.
    assert.equal(response.header("x-CUSTOM"), "a");
    assert.equal(response.header("set-cookie"), "one=1, two=2");
    assert.equal(response.header("absent"), undefined);
    assert.equal(response.text, "héllo");
    const headers = response.headers;
    assert.equal(headers["x-custom"], "a");
    assert.equal(headers["set-cookie"], "one=1, two=2");
    assert.equal(headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(Object.keys(headers).some((name) => name !== name.toLowerCase()), false);
    assert.ok(Object.isFrozen(headers));
    assert.equal(response.headers, headers, "one record, built once");
    assert.equal(response.header("X-Custom"), "a");
    assert.ok(Object.isFrozen(response));
    assert.throws(() => {
      (response as { headers: unknown }).headers = {};
    }, TypeError);
    assert.throws(() => {
      (headers as Record<string, string>)["x-custom"] = "b";
    }, TypeError);
  }
});

Deno.test("HttpClient has put, patch, delete, head and options methods", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.put("/r", { jsonData: { a: 1 } });
  await client.patch("/r", { jsonData: { b: 2 } });
  await client.delete("/r", { params: { soft: true } });
  const head = await client.head("/r");
  await client.options("/r");
  assert.deepEqual(server.requests.map((r) => r.method), [
    "PUT",
    "PATCH",
    "DELETE",
    "HEAD",
    "OPTIONS",
  ]);
  assert.equal(decode(server.requests[1]!.body), '{"b": 2}');
  assert.equal(server.requests[2]!.query, "soft=true");
  assert.equal(head.content.length, 0);
});

Deno.test("HttpClient.request() sends an explicitly built HttpRequest", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const request = new HttpRequest("POST", "/explicit", {
    jsonData: { x: 1 },
    params: { v: 2 },
    headers: { "X-Explicit": "yes" },
  });
  const response = await client.request(request);
  const recorded = server.last();
  assert.deepEqual([recorded.method, recorded.path, recorded.query], ["POST", "/explicit", "v=2"]);
  assert.equal(recorded.headers["x-explicit"], "yes");
  assert.equal(response.request.url, `${server.url}/explicit`);
  assert.equal(response.url, `${server.url}/explicit?v=2`);
  assert.ok(response.elapsedMs > 0);
});

Deno.test("HttpClient sends auth as HTTP Basic and takes credentials from the URL", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.get("/basic", { auth: ["Zoë", "pä:ss"] });
  const expected = `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode("Zoë:pä:ss")))}`;
  assert.equal(server.last().headers["authorization"], expected);
  const withUser = server.url.replace("http://", "http://user:pw@");
  const response = await client.get(`${withUser}/in-url`);
  assert.equal(server.last().headers["authorization"], `Basic ${btoa("user:pw")}`);
  assert.ok(!response.url.includes("pw"));
});

Deno.test("HttpClient raises TimeoutException after the client's timeout", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(0.1).withRetry({
    maxRetries: 0,
  }).build();
  await using client = new HttpClient(config);
  const error = await rejectsWith(
    client.get("/delay/3000"),
    TimeoutException,
    /timed out after 0\.1 s: GET .*\/delay\/3000/,
  );
  assert.ok(error instanceof HttpClientException);
  assert.equal((error as TimeoutException).request?.method, "GET");
});

Deno.test("HttpClient lets a per-call timeout override the client's, both ways", async () => {
  await using server = startFixtureServer();
  const slowClient = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(0.05)
    .build();
  await using patient = new HttpClient(slowClient);
  const response = await patient.get("/delay/200", { timeout: 5 });
  assert.equal(response.statusCode, 200);
  await using client = singleAttemptClient(server.url);
  await rejectsWith(client.get("/delay/3000", { timeout: 0.1 }), TimeoutException, /0\.1 s/);
});

Deno.test("HttpClient's timeout covers the response body", async () => {
  await using server = startFixtureServer();
  server.route("/slow-body", () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        if (sent++ > 50) return stream.close();
        await new Promise((resolve) => setTimeout(resolve, 20));
        stream.enqueue(new Uint8Array([120]));
      },
    });
    return new Response(body);
  });
  await using client = singleAttemptClient(server.url);
  await rejectsWith(client.get("/slow-body", { timeout: 0.2 }), TimeoutException, /slow-body/);
});

Deno.test("HttpClient raises ConnectionException when the connection is refused", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await using client = singleAttemptClient(`http://127.0.0.1:${port}`);
  await rejectsWith(
    client.get("/x"),
    ConnectionException,
    new RegExp(`Connection failed: GET http://127\\.0\\.0\\.1:${port}/x`),
  );
});

Deno.test("HttpClient raises ConnectionException when the server drops the connection", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.dropUrl);
  await rejectsWith(client.get("/dropped"), ConnectionException, /GET .*\/dropped/);
  assert.equal(server.last().path, "/dropped");
});

Deno.test("HttpClient raises ConnectionException on a truncated body", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await rejectsWith(client.get("/truncate"), ConnectionException, /GET .*\/truncate/);
});

Deno.test("HttpClient follows 301, 302 and 303 as GET without a body", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  for (const status of [301, 302, 303]) {
    const response = await client.post(`/redirect/${status}`, {
      params: { to: "/landed" },
      jsonData: { a: 1 },
      headers: { "X-Keep": "k" },
    });
    const landed = server.last();
    assert.deepEqual(
      [landed.method, landed.path, landed.body.length],
      ["GET", "/landed", 0],
      `${status}`,
    );
    assert.equal(landed.headers["content-type"], undefined);
    assert.equal(landed.headers["x-keep"], "k");
    assert.equal(response.url, `${server.url}/landed`);
    assert.equal(response.request.method, "POST");
  }
});

Deno.test("HttpClient follows 307 and 308 keeping the method and body", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  for (const status of [307, 308]) {
    const response = await client.put(`/redirect/${status}`, {
      params: { to: "/kept" },
      jsonData: { b: 2 },
    });
    const landed = server.last();
    assert.deepEqual([landed.method, landed.path, decode(landed.body)], [
      "PUT",
      "/kept",
      '{"b": 2}',
    ]);
    assert.equal(landed.headers["content-type"], "application/json");
    assert.equal(response.url, `${server.url}/kept`);
  }
});

Deno.test("HttpClient follows up to 20 redirects and fails past the limit", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const response = await client.get("/redirect-chain/20");
  assert.equal(response.statusCode, 200);
  assert.equal(response.url, `${server.url}/redirect-chain/0`);
  assert.equal(server.requests.length, 21);
  await rejectsWith(
    client.get("/redirect-chain/21"),
    HttpClientException,
    /Too many redirects \(more than 20\)/,
  );
  await rejectsWith(client.get("/redirect-loop"), HttpClientException, /Too many redirects/);
});

Deno.test("HttpClient returns the 3xx response when redirects are off", async () => {
  await using server = startFixtureServer();
  const config = new HttpClientConfigBuilder().withBaseUrl(server.url).withMaxRedirects(0).build();
  await using client = new HttpClient(config);
  const response = await client.get("/redirect/302", { params: { to: "/x" } });
  assert.equal(response.statusCode, 302);
  assert.equal(response.header("location"), "/x");
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpClient drops credentials on a redirect to another origin", async () => {
  await using first = startFixtureServer();
  await using second = startFixtureServer();
  await using client = singleAttemptClient(first.url);
  await client.get("/redirect/302", {
    params: { to: `${second.url}/other` },
    headers: {
      Authorization: "Bearer secret",
      Cookie: "a=b",
      "Proxy-Authorization": "p",
      "X-Plain": "1",
    },
  });
  const landed = second.last();
  assert.equal(landed.headers["authorization"], undefined);
  assert.equal(landed.headers["cookie"], undefined);
  assert.equal(landed.headers["proxy-authorization"], undefined);
  assert.equal(landed.headers["x-plain"], "1");
  await client.get("/redirect/307", { params: { to: `${second.url}/other` }, auth: ["u", "p"] });
  assert.equal(second.last().headers["authorization"], undefined);
  await client.get("/redirect/302", {
    params: { to: "/same" },
    headers: { Authorization: "Bearer kept" },
  });
  assert.equal(first.last().headers["authorization"], "Bearer kept");
});

Deno.test("HttpClient creates one pool lazily and reuses its connections", async () => {
  await using server = startFixtureServer();
  const original = Deno.createHttpClient;
  let created = 0;
  Deno.createHttpClient = (options) => {
    created++;
    return original(options);
  };
  try {
    await using client = singleAttemptClient(server.url);
    assert.equal(created, 0);
    for (let i = 0; i < 3; i++) await client.get(`/n/${i}`);
    assert.equal(created, 1);
    const ports = new Set(server.requests.map((r) => r.remotePort));
    assert.equal(ports.size, 1, "one kept-alive connection served all three requests");
  } finally {
    Deno.createHttpClient = original;
  }
});

Deno.test("HttpClient.close() releases the pool and later calls fail clearly", async () => {
  await using server = startFixtureServer();
  const client = singleAttemptClient(server.url);
  await client.get("/before");
  client.close();
  client.close();
  assert.ok(client.closed);
  await rejectsWith(client.get("/after"), HttpClientException, /^Client is closed: GET \/after$/);
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpClient.close() fails requests in flight with HttpClientException", async () => {
  await using server = startFixtureServer();
  const client = singleAttemptClient(server.url);
  const pending = client.get("/delay/3000");
  await new Promise((resolve) => setTimeout(resolve, 50));
  client.close();
  await rejectsWith(pending, HttpClientException, /Client was closed during the request: GET/);
});

Deno.test("HttpClient closes at the end of a using block, and await using lets requests finish", async () => {
  await using server = startFixtureServer();
  let kept: HttpClient;
  {
    using client = singleAttemptClient(server.url);
    kept = client;
    await client.get("/inside");
  }
  assert.ok(kept.closed);
  let pending: Promise<unknown>;
  {
    await using client = singleAttemptClient(server.url);
    kept = client;
    pending = client.get("/delay/100");
  }
  assert.ok(kept.closed);
  assert.equal(((await pending) as { statusCode: number }).statusCode, 200);
});

Deno.test("HttpClient aborts a call on the caller's signal", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const controller = new AbortController();
  const pending = client.get("/delay/3000", { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("user gave up")), 30);
  const error = await rejectsWith(pending, HttpClientException, /Request was aborted: GET/);
  assert.equal((error.cause as Error).message, "user gave up");
});

Deno.test("HttpClient refuses unresolvable and unsupported URLs with HttpClientException", async () => {
  await using client = singleAttemptClient();
  await rejectsWith(
    client.get("/relative"),
    HttpClientException,
    /^Cannot resolve a relative URL without a base URL: GET \/relative$/,
  );
  await rejectsWith(
    client.post("http://[bad", { data: { a: 1 } }),
    HttpClientException,
    /^Invalid URL: POST http:\/\/\[bad$/,
  );
  await rejectsWith(
    client.get("ftp://127.0.0.1/f"),
    HttpClientException,
    /Unsupported URL scheme "ftp:"/,
  );
  await rejectsWith(
    client.get("file:///etc/passwd"),
    HttpClientException,
    /Unsupported URL scheme "file:"/,
  );
});

Deno.test("HttpClient refuses bad request input with TypeError before sending", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await assert.rejects(client.get("/x", { timeout: -1 }), TypeError);
  await assert.rejects(client.post("/x", { jsonData: { n: NaN } }), /jsonData\.n/);
  await assert.rejects(client.request({} as HttpRequest), TypeError);
  assert.equal(server.requests.length, 0);
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

Deno.test("HttpClient uses a custom transport given with withFetch", async () => {
  const seen: Request[] = [];
  const config = new HttpClientConfigBuilder()
    .withBaseUrl("http://in-memory.test")
    .withFetch((input, init) => {
      seen.push(new Request(input, init));
      return Promise.resolve(Response.json({ fake: true }));
    })
    .build();
  await using client = new HttpClient(config);
  const response = await client.get("/x");
  assert.deepEqual(response.json(), { fake: true });
  assert.equal(seen[0]?.url, "http://in-memory.test/x");
});

Deno.test("createClient() builds a client with the defaults and the base URL", async () => {
  await using server = startFixtureServer();
  await using client = createClient(server.url);
  assert.equal(client.config.baseUrl, server.url);
  assert.equal(client.config.timeout, 30);
  assert.equal(client.config.maxRedirects, 20);
  assert.equal(client.config.retry.maxRetries, 2);
  assert.equal((await client.get("/plain")).statusCode, 200);
});

Deno.test("HttpClient follows a 301 keeping PUT, and turns PUT into GET on 302 and 303", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.put("/redirect/301", { params: { to: "/kept" }, jsonData: { a: 1 } });
  assert.deepEqual([server.last().method, decode(server.last().body)], ["PUT", '{"a": 1}']);
  for (const status of [302, 303]) {
    await client.put(`/redirect/${status}`, { params: { to: "/changed" }, jsonData: { a: 1 } });
    assert.deepEqual([server.last().method, server.last().body.length], ["GET", 0], `${status}`);
  }
  await client.head("/redirect/303", { params: { to: "/head" } });
  assert.equal(server.last().method, "HEAD");
});

Deno.test("HttpClient accepts a timeout longer than setTimeout's limit", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  assert.equal((await client.get("/long", { timeout: 40 * 24 * 3600 })).statusCode, 200);
});

Deno.test("HttpClient refuses a URL whose user-info is badly escaped with HttpClientException", async () => {
  await using client = singleAttemptClient();
  await rejectsWith(
    client.get("http://user:%E0%A4%A@127.0.0.1:9/x"),
    HttpClientException,
    /^Invalid URL: GET/,
  );
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
