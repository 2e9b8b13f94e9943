import assert from "node:assert/strict";
import { HttpClient, HttpClientConfigBuilder, HttpClientException } from "../mod.ts";
import { startFixtureServer } from "./fixture_server.ts";
import { rejectsWith } from "./helpers.ts";

const text = JSON.stringify({ text: "héllo ".repeat(1000) });

async function compressed(format: CompressionFormat): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function client(maxBytes = Infinity): HttpClient {
  return new HttpClient(
    new HttpClientConfigBuilder().withRetry({ maxRetries: 0 }).withMaxResponseBytes(maxBytes)
      .build(),
  );
}

Deno.test("HttpClient decodes gzip, zlib deflate and raw deflate bodies", async () => {
  await using server = startFixtureServer();
  const formats = { gzip: "gzip", deflate: "deflate", raw: "deflate-raw" } as const;
  for (const [path, format] of Object.entries(formats)) {
    const body = await compressed(format);
    const coding = format === "gzip" ? "gzip" : "deflate";
    server.route(`/${path}`, () => new Response(body, { headers: { "content-encoding": coding } }));
  }
  await using http = client();
  for (const path of Object.keys(formats)) {
    assert.equal((await http.get(`${server.url}/${path}`)).text, text, path);
  }
});

Deno.test("withMaxResponseBytes() counts the decoded bytes of a deflate body", async () => {
  await using server = startFixtureServer();
  const body = await compressed("deflate");
  assert.ok(body.byteLength < 1000);
  server.route(
    "/deflate",
    () => new Response(body, { headers: { "content-encoding": "deflate" } }),
  );
  const size = new TextEncoder().encode(text).byteLength;
  await using exact = client(size);
  assert.equal((await exact.get(`${server.url}/deflate`)).text, text);
  await using tight = client(size - 1);
  await rejectsWith(
    tight.get(`${server.url}/deflate`),
    HttpClientException,
    new RegExp(`exceeds maxResponseBytes \\(${size - 1}\\)`),
  );
});
