// Multipart uploads: the client writes the multipart body itself (a file
// path is streamed from disk, never read whole), byte for byte as `FormData`
// would have it; a path is opened anew on every attempt; a path that is not
// a readable file fails the call naming the field.

import assert from "node:assert/strict";
import { HttpClientException } from "../mod.ts";
import { type RecordedRequest, startFixtureServer } from "./fixture_server.ts";
import { countingClient, rejectsWith, singleAttemptClient } from "./helpers.ts";

const binary = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

function boundaryOf(recorded: RecordedRequest): string {
  const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(
    recorded.headers["content-type"] ?? "",
  )?.[1];
  assert.ok(boundary !== undefined, recorded.headers["content-type"]);
  return boundary;
}

Deno.test("HttpClient sends a multipart body byte for byte as FormData encodes it, escapes included", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/q"uo\rte\n.txt`;
    await Deno.writeTextFile(path, "from disk\r\n");
    const data = { 'na"me\r\nx\ny\rz': 'va"lue\r\na\nb\rc', plain: "ünïcode — ✓" };
    const files = {
      'f"\n\r': new File(["typed"], 'fi"le\r\n.csv', { type: "text/csv;charset=utf-8" }),
      blob: new Blob([new Uint8Array([0, 255, 13, 10])]),
      bytes: new Uint8Array([1, 2, 3]),
      disk: path,
    };
    await client.post("/upload", { data, files, headers: { "Content-Type": "text/plain" } });
    const form = new FormData();
    for (const [name, value] of Object.entries(data)) form.append(name, value);
    form.append('f"\n\r', files['f"\n\r']);
    form.append("blob", files.blob, "blob");
    form.append("bytes", new Blob([files.bytes]), "bytes");
    form.append("disk", new Blob(["from disk\r\n"]), path.split("/").pop());
    const reference = new Response(form);
    const theirs = /boundary=(.+)$/.exec(reference.headers.get("content-type") ?? "")?.[1] ?? "";
    const recorded = server.last();
    const expected = binary(await reference.bytes()).replaceAll(theirs, boundaryOf(recorded));
    // FormData ends without a line break after the closing boundary; curl and undici add one.
    assert.equal(binary(recorded.body), `${expected}\r\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HttpClient opens a file path anew on every attempt: a retry sends the file as it is then", async () => {
  await using server = startFixtureServer();
  const { client, attempts } = countingClient(server);
  using _ = client;
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(path, "first");
    server.route("/upload", async () => {
      if (server.requests.length > 1) return new Response("ok");
      await Deno.writeTextFile(path, "second, longer");
      return new Response(null, { status: 503 });
    });
    const response = await client.put("/upload", { files: { doc: path } });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(attempts, [0, 1]);
    const bodies = server.requests.map((recorded) => {
      const boundary = boundaryOf(recorded);
      const body = binary(recorded.body);
      return body.slice(body.indexOf("\r\n\r\n") + 4, body.indexOf(`\r\n--${boundary}--`));
    });
    assert.deepEqual(bodies, ["first", "second, longer"]);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("HttpClient fails a file path that is a directory with HttpClientException naming it", async () => {
  await using server = startFixtureServer();
  await using client = singleAttemptClient(server.url);
  const dir = await Deno.makeTempDir();
  try {
    await rejectsWith(
      client.post("/upload", { files: { doc: dir } }),
      HttpClientException,
      /^Cannot read files\.doc from ".*" \(IsADirectory\): POST /,
    );
    assert.equal(server.requests.length, 0);
  } finally {
    await Deno.remove(dir);
  }
});
