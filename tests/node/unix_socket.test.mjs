// withUnixSocket() on the npm build under Node: a node:http server on a
// path in a temporary folder, a GET and a streamed body over it, the URL
// giving the Host header and the path.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpClient, HttpClientConfigBuilder } from "@fetchline/fetchline";

test("withUnixSocket() sends a GET and streams a body over the socket, the URL giving Host and path", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fetchline-unix-"));
  const path = join(dir, "api.sock");
  const seen = [];
  const server = createServer((request, response) => {
    seen.push(`${request.headers.host} ${request.url}`);
    if (request.url !== "/stream") return response.end(JSON.stringify({ containers: [] }));
    response.write("one\n");
    setTimeout(() => response.end("two\nthree\n"), 10);
  });
  await new Promise((resolve) => server.listen(path, resolve));
  const client = new HttpClient(
    new HttpClientConfigBuilder().withUnixSocket(path).withBaseUrl("http://docker/").build(),
  );
  try {
    const response = await client.get("/v1.45/containers/json?all=1");
    assert.deepEqual(response.json(), { containers: [] });
    const streamed = await client.stream("GET", "/stream");
    const lines = [];
    for await (const line of streamed.lines()) lines.push(line);
    assert.deepEqual(lines, ["one", "two", "three"]);
    assert.deepEqual(seen, ["docker /v1.45/containers/json?all=1", "docker /stream"]);
  } finally {
    client.close();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
});
