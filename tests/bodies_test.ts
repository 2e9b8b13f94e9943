import assert from "node:assert/strict";
import { HttpClientException, HttpRequest, type RequestBody } from "../mod.ts";
import { BYTES_TYPE } from "../src/http/raw_body.ts";
import { formDataOf, startFixtureServer } from "./fixture_server.ts";
import { rejectsWith, singleAttemptClient } from "./helpers.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

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

/** A stream of the given text chunks, one per pull, as a caller's upload would be. */
function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks.shift();
      if (chunk === undefined) controller.close();
      else controller.enqueue(encoder.encode(chunk));
    },
  });
}

const BINARY = Uint8Array.from({ length: 256 }, (_, i) => i);

Deno.test("HttpClient sends every kind of raw body byte for byte with its Content-Type", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const cases: [RequestBody, Uint8Array, string][] = [
    ["héllo ✓", new TextEncoder().encode("héllo ✓"), "text/plain;charset=UTF-8"],
    [BINARY, BINARY, "application/octet-stream"],
    [BINARY.slice(16, 32).buffer, BINARY.slice(16, 32), "application/octet-stream"],
    [new Blob([BINARY], { type: "image/png" }), BINARY, "image/png"],
    [new Blob([BINARY]), BINARY, "application/octet-stream"],
    [streamOf("one,", "two,", "three"), new TextEncoder().encode("one,two,three"), BYTES_TYPE],
    ["", new Uint8Array(), "text/plain;charset=UTF-8"],
  ];
  for (const [body, bytes, type] of cases) {
    const response = await client.put("/echo", { body });
    assert.equal(response.statusCode, 200);
    const recorded = server.last();
    assert.deepEqual(recorded.body, bytes, `${describe(body)} arrives byte for byte`);
    assert.equal(recorded.headers["content-type"], type, describe(body));
  }
});

function describe(body: RequestBody): string {
  return typeof body === "string" ? `string ${JSON.stringify(body)}` : body.constructor.name;
}

Deno.test("HttpClient keeps a Content-Type the request sets for a raw body, in any case", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  await client.post("/echo", { body: "<a/>", headers: { "content-TYPE": "application/xml" } });
  assert.equal(server.last().headers["content-type"], "application/xml");
  await client.post("/echo", {
    body: new Blob(["x"], { type: "text/csv" }),
    headers: { "Content-Type": "text/plain" },
  });
  assert.equal(server.last().headers["content-type"], "text/plain");
});

Deno.test("HttpRequest copies a bytes body when built: later changes to the caller's bytes are not sent", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const bytes = new Uint8Array([1, 2, 3]);
  const buffer = new Uint8Array([4, 5, 6]).buffer;
  const fromBytes = new HttpRequest("POST", `${server.url}/echo`, { body: bytes });
  const fromBuffer = new HttpRequest("POST", `${server.url}/echo`, { body: buffer });
  bytes[0] = 99;
  new Uint8Array(buffer)[0] = 99;
  await client.request(fromBytes);
  assert.deepEqual(server.last().body, new Uint8Array([1, 2, 3]));
  await client.request(fromBuffer.withHeaders({ "X-Copy": "1" }));
  assert.deepEqual(server.last().body, new Uint8Array([4, 5, 6]));
  assert.ok(fromBuffer.body instanceof ArrayBuffer, "an ArrayBuffer stays an ArrayBuffer");
  assert.notEqual(fromBytes.body, bytes);
});

Deno.test("HttpClient refuses to send a stream body twice with HttpClientException", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const request = new HttpRequest("POST", `${server.url}/echo`, { body: streamOf("once") });
  await client.request(request);
  await rejectsWith(
    client.request(request.withHeaders({ "X-Again": "1" })),
    HttpClientException,
    /^Cannot send a ReadableStream body twice .*: POST http:\/\/127\.0\.0\.1:\d+\/echo$/,
  );
  assert.equal(server.requests.length, 1);
});

Deno.test("HttpRequest.toObject() has body only on a request with one; views show its kind and size only", () => {
  const plain = new HttpRequest("POST", "/x", { jsonData: { a: 1 } });
  assert.equal("body" in plain.toObject(), false);
  const secret = "password=hunter2";
  const cases: [RequestBody, string][] = [
    [secret, "string(16)"],
    ["zoë ✓", "string(8)"],
    [new TextEncoder().encode(secret), "Uint8Array(16)"],
    [new TextEncoder().encode(secret).buffer, "ArrayBuffer(16)"],
    [new Blob([secret]), "Blob(16)"],
    [new File([secret], "f.txt"), "File(16)"],
    [streamOf(secret), "ReadableStream"],
  ];
  for (const [body, shown] of cases) {
    const request = new HttpRequest("PUT", "/x", { body });
    assert.equal(request.toObject().body, request.body);
    assert.deepEqual(JSON.parse(JSON.stringify(request)), {
      method: "PUT",
      url: "/x",
      body: shown,
    });
    const inspected = Deno.inspect(request, { depth: 10 });
    assert.match(inspected, new RegExp(`body: "${shown.replace(/[()]/g, "\\$&")}"`));
    assert.doesNotMatch(inspected, /hunter2|104, 117/);
    assert.equal(request.with({ timeout: 1 }).body, request.body);
  }
});
