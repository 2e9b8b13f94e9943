import assert from "node:assert/strict";
import { HttpClientException } from "../mod.ts";
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
