// The npm build on Node, from the packed tarball: scripts/test_npm.ts installs
// it into a temporary folder and runs `node --test` there, so
// `@fetchline/fetchline` is imported by its package name exactly as a user would.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import zlib from "node:zlib";
import {
  ConnectionException,
  createClient,
  HttpClient,
  HttpClientConfigBuilder,
  HttpClientException,
  HttpRequest,
  TimeoutException,
  TokenData,
  TokenManager,
} from "@fetchline/fetchline";
import { toCurl } from "@fetchline/fetchline/utils";
import { fixture, json } from "./server.mjs";

function client(t, server, configure = (builder) => builder) {
  const builder = new HttpClientConfigBuilder().withBaseUrl(server.url).withTimeout(5);
  const created = new HttpClient(configure(builder).build());
  t.after(() => created.close());
  return created;
}

function recordingLogger() {
  const lines = [];
  const at = (level) => (message) => void lines.push(`${level} ${message}`);
  return {
    lines,
    logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
  };
}

test("get() sends params and reads the JSON answer", async (t) => {
  const server = await fixture(t);
  const response = await client(t, server).get("/users", {
    params: { page: 2, q: "a b" },
    headers: { "X-Trace": "t-1" },
  });
  assert.equal(response.statusCode, 200);
  assert.equal(response.json().query, "page=2&q=a+b");
  assert.equal(server.requests[0].headers["x-trace"], "t-1");
  assert.equal(response.header("Content-Type"), "application/json");
});

test("post() sends the shared serializer's JSON text", async (t) => {
  const server = await fixture(t);
  const response = await client(t, server).post("/users", { jsonData: { name: "Ada", n: [1, 2] } });
  assert.ok(response.isSuccess);
  assert.equal(server.requests[0].body.toString(), '{"name": "Ada", "n": [1, 2]}');
  assert.equal(server.requests[0].headers["content-type"], "application/json");
});

test("a GET is retried after 503 with Retry-After, a POST is not", async (t) => {
  const server = await fixture(t);
  let calls = 0;
  server.route("/flaky", (_req, res) => {
    calls++;
    if (calls < 3) return json(res, 503, { calls }, { "retry-after": "0" });
    json(res, 200, { calls });
  });
  const http = client(t, server);
  const response = await http.get("/flaky");
  assert.equal(response.statusCode, 200);
  assert.equal(calls, 3);
  calls = 0;
  const post = await http.post("/flaky", { jsonData: {} });
  assert.equal(post.statusCode, 503);
  assert.equal(calls, 1);
});

test("token auth fetches a token, and refreshes it once after a 401", async (t) => {
  const server = await fixture(t);
  let issued = 0;
  const manager = new TokenManager([{
    name: "login",
    fetch: async () => {
      const answer = await fetch(`${server.url}/token`, { method: "POST" });
      return TokenData.fromOAuth2(await answer.json());
    },
  }]);
  server.route("/token", (_req, res) => json(res, 200, { access_token: `tok-${++issued}` }));
  server.route("/me", (req, res) => {
    if (req.headers.authorization !== "Bearer tok-2") return json(res, 401, { error: "expired" });
    json(res, 200, { user: "ada" });
  });
  const response = await client(t, server, (b) => b.withTokenAuth({ tokenManager: manager })).get(
    "/me",
  );
  assert.deepEqual(response.json(), { user: "ada" });
  assert.equal(issued, 2);
  assert.deepEqual(
    server.requests.filter((r) => r.path === "/me").map((r) => r.headers.authorization),
    ["Bearer tok-1", "Bearer tok-2"],
  );
});

test("logging masks credential headers", async (t) => {
  const server = await fixture(t);
  const { lines, logger } = recordingLogger();
  const http = client(t, server, (b) => b.withLogging({ logHeaders: true, logBody: true, logger }));
  await http.post("/login", {
    headers: { Authorization: "Bearer sekret-token", "X-API-Key": "sekret-key" },
    jsonData: { user: "ada" },
  });
  const text = lines.join("\n");
  assert.match(text, /HTTP POST \/login\n/);
  assert.match(text, /Headers: \{"Authorization":"\*\*\*","X-API-Key":"\*\*\*"\}/);
  assert.match(text, /Body: \{"user": "ada"\}/);
  assert.doesNotMatch(text, /sekret/);
});

test("toCurl() renders a command that real curl replays byte for byte", async (t) => {
  const server = await fixture(t);
  const request = new HttpRequest("POST", `${server.url}/replay`, {
    params: { q: "it's" },
    headers: { "X-Trace": "a'b" },
    jsonData: { name: "Ada", quote: "'" },
  });
  const command = toCurl(request);
  assert.equal(command, request.toCurl());
  await client(t, server).request(request);
  await promisify(execFile)("sh", ["-c", `${command} --silent --output /dev/null`]);
  const [sent, replayed] = server.requests;
  assert.deepEqual(replayed.body, sent.body);
  assert.equal(replayed.query, sent.query);
  assert.equal(replayed.headers["x-trace"], "a'b");
});

test("a server that never answers fails with TimeoutException", async (t) => {
  const server = await fixture(t);
  server.route("/hang", () => {});
  const http = client(t, server, (b) => b.withRetry({ maxRetries: 0 }));
  await assert.rejects(http.get("/hang", { timeout: 0.2 }), TimeoutException);
});

test("the timeout covers the body: a trickling body fails with TimeoutException", async (t) => {
  const server = await fixture(t);
  server.route("/trickle", (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    const id = setInterval(() => res.write("x"), 50);
    res.on("close", () => clearInterval(id));
  });
  const http = client(t, server, (b) => b.withRetry({ maxRetries: 0 }));
  await assert.rejects(http.get("/trickle", { timeout: 0.3 }), TimeoutException);
});

test("close() fails calls in flight and later calls with HttpClientException", async (t) => {
  const server = await fixture(t);
  server.route("/hang", () => {});
  const http = client(t, server);
  const inFlight = http.get("/hang");
  await new Promise((resolve) => setTimeout(resolve, 50));
  http.close();
  await assert.rejects(inFlight, (error) => {
    return error instanceof HttpClientException && /closed/.test(error.message);
  });
  await assert.rejects(http.get("/"), /Client is closed/);
});

test("gzip, deflate (zlib and raw) and br bodies are decoded, as fetch does", async (t) => {
  const server = await fixture(t);
  const body = JSON.stringify({ text: "héllo ".repeat(1000) });
  const encoders = {
    gzip: zlib.gzipSync,
    deflate: zlib.deflateSync,
    "deflate-raw": zlib.deflateRawSync,
    br: zlib.brotliCompressSync,
  };
  for (const [name, encode] of Object.entries(encoders)) {
    server.route(`/${name}`, (_req, res) => {
      res.writeHead(200, { "content-encoding": name.replace("-raw", "") });
      res.end(encode(body));
    });
  }
  const http = client(t, server);
  for (const name of Object.keys(encoders)) {
    const response = await http.get(`/${name}`);
    assert.equal(response.text, body, name);
  }
  assert.match(server.requests[0].headers["accept-encoding"], /gzip/);
});

test("files are sent as multipart/form-data, paths read with node:fs", async (t) => {
  const server = await fixture(t);
  const path = join(tmpdir(), `fetchline-upload-${process.pid}.txt`);
  writeFileSync(path, "from disk");
  t.after(() => import("node:fs").then((fs) => fs.rmSync(path, { force: true })));
  await client(t, server).post("/upload", {
    data: { title: "report" },
    files: { doc: path, blob: new Blob(["in memory"]) },
  });
  const received = server.requests[0];
  const form = await new Response(received.body, {
    headers: { "content-type": received.headers["content-type"] },
  }).formData();
  assert.equal(form.get("title"), "report");
  assert.equal(await form.get("doc").text(), "from disk");
  assert.equal(form.get("doc").name, `fetchline-upload-${process.pid}.txt`);
  assert.equal(await form.get("blob").text(), "in memory");
});

test("a missing file fails with HttpClientException naming the field", async (t) => {
  const server = await fixture(t);
  await assert.rejects(
    client(t, server).post("/upload", { files: { doc: "/no/such/file.txt" } }),
    (error) => error instanceof HttpClientException && /files\.doc/.test(error.message),
  );
});

test("maxResponseBytes fails a longer body with HttpClientException", async (t) => {
  const server = await fixture(t);
  server.route("/big", (_req, res) => res.end("x".repeat(100_000)));
  const http = client(t, server, (b) => b.withMaxResponseBytes(1000).withRetry({ maxRetries: 0 }));
  await assert.rejects(http.get("/big"), /exceeds maxResponseBytes \(1000\)/);
  const small = client(t, server, (b) => b.withMaxResponseBytes(100_000));
  assert.equal((await small.get("/big")).content.byteLength, 100_000);
});

test("maxResponseBytes stops a chunked body with no Content-Length at the limit", async (t) => {
  const server = await fixture(t);
  let sent = 0;
  server.route("/endless", (_req, res) => {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    const chunk = "y".repeat(16 * 1024);
    const id = setInterval(() => {
      if (sent < 16 * 1024 * 1024) {
        res.write(chunk);
        sent += chunk.length;
      }
    }, 1);
    res.on("close", () => clearInterval(id));
  });
  const http = client(
    t,
    server,
    (b) => b.withMaxResponseBytes(64 * 1024).withRetry({ maxRetries: 0 }),
  );
  await assert.rejects(http.get("/endless"), /exceeds maxResponseBytes \(65536\)/);
  assert.ok(sent < 16 * 1024 * 1024, `the server sent ${sent} bytes before the client hung up`);
});

test("a redirect's body is discarded and the final response is read", async (t) => {
  const server = await fixture(t);
  server.route("/from", (_req, res) => {
    res.writeHead(302, { location: "/to", "content-type": "text/plain" });
    res.end("moved ".repeat(1000));
  });
  server.route("/to", (_req, res) => json(res, 200, { arrived: true }));
  const response = await client(t, server).get("/from");
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.json(), { arrived: true });
  assert.equal(response.url, `${server.url}/to`);
});

test("an informational 103 before the response is skipped", async (t) => {
  const server = await fixture(t);
  server.route("/hints", (_req, res) => {
    res.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" });
    json(res, 200, { final: true });
  });
  const response = await client(t, server).get("/hints");
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.json(), { final: true });
});

test("a call waiting for a free connection still times out on time", async (t) => {
  const server = await fixture(t);
  server.route("/hang", () => {});
  const http = client(
    t,
    server,
    (b) => b.withPool({ connections: 1 }).withRetry({ maxRetries: 0 }),
  );
  const first = http.get("/hang", { timeout: 5 });
  first.catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  await assert.rejects(http.get("/hang", { timeout: 0.2 }), TimeoutException);
  const waited = performance.now() - started;
  assert.ok(waited < 2000, `the queued call failed after ${waited.toFixed(0)} ms`);
});

test("the caller's signal aborts a call in flight", async (t) => {
  const server = await fixture(t);
  server.route("/hang", () => {});
  const http = client(t, server);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(
    http.get("/hang", { signal: controller.signal }),
    (error) => error instanceof HttpClientException && /aborted/.test(error.message),
  );
});

test("a refused connection is a ConnectionException, retried for GET", async (t) => {
  const server = await fixture(t);
  const url = server.url;
  await server.close();
  const http = createClient(url);
  t.after(() => http.close());
  await assert.rejects(http.get("/", { timeout: 5 }), ConnectionException);
});

test("bad headers get the same TypeError as on Deno", () => {
  const cases = JSON.parse(readFileSync(new URL("./bad_headers.json", import.meta.url), "utf8"));
  assert.ok(cases.length > 0);
  for (const { headers, message } of cases) {
    assert.throws(
      () => new HttpRequest("GET", "http://127.0.0.1/", { headers }),
      (error) => error instanceof TypeError && error.message === message,
    );
  }
});
