// withUnixSocket() on Deno: every request over a Unix domain socket (a
// Deno.serve on a path in a temporary folder), the URL giving the Host
// header and the path; a GET and a streamed body; what build() refuses.

import assert from "node:assert/strict";
import { HttpClientConfigBuilder } from "../mod.ts";
import { throwsAtOnce } from "./helpers.ts";
import { runDenoChild } from "./proxy_server.ts";

// Deno asks for net permission per socket path (`unix:<path>`) and for the
// URL's host: the client and the server run in a child Deno given exactly those.
Deno.test("withUnixSocket() sends a GET and streams a body over the socket, the URL giving Host and path", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fetchline-unix-" });
  const path = `${dir}/api.sock`;
  const mod = new URL("../mod.ts", import.meta.url).href;
  const code = `
    import { HttpClient, HttpClientConfigBuilder } from ${JSON.stringify(mod)};
    const path = ${JSON.stringify(path)};
    const seen = [];
    const server = Deno.serve({ path, onListen() {} }, (request) => {
      const url = new URL(request.url);
      seen.push(request.headers.get("host") + " " + url.pathname + url.search);
      if (url.pathname !== "/stream") return Response.json({ containers: [] });
      const chunks = ["one\\n", "two\\n", "three\\n"];
      return new Response(new ReadableStream({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(chunk));
        },
      }));
    });
    const client = new HttpClient(
      new HttpClientConfigBuilder().withUnixSocket(path).withBaseUrl("http://docker/").build(),
    );
    const response = await client.get("/v1.45/containers/json?all=1");
    const lines = [];
    {
      await using streamed = await client.stream("GET", "/stream");
      for await (const line of streamed.lines()) lines.push(line);
    }
    client.close();
    await server.shutdown();
    console.log(JSON.stringify({ json: response.json(), lines, seen }));
  `;
  try {
    const out = await runDenoChild(code, {}, [
      `--allow-net=unix:${path},docker`,
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
    ]);
    assert.deepEqual(JSON.parse(out), {
      json: { containers: [] },
      lines: ["one", "two", "three"],
      seen: ["docker /v1.45/containers/json?all=1", "docker /stream"],
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("build() refuses withUnixSocket() with a proxy, a network policy or a custom fetch, and a bad path", () => {
  const base = () => new HttpClientConfigBuilder().withUnixSocket("/tmp/x.sock");
  throwsAtOnce(
    () => base().withProxy("http://127.0.0.1:3128").build(),
    TypeError,
    /^Invalid unixSocket: every request goes over the socket, so a proxy would never apply/,
  );
  throwsAtOnce(
    () => base().withNetworkPolicy().build(),
    TypeError,
    /^Invalid networkPolicy: |^Invalid unixSocket: /,
  );
  throwsAtOnce(
    () => base().withFetch(fetch).build(),
    TypeError,
    /^Invalid unixSocket: a custom fetch/,
  );
  throwsAtOnce(
    () => new HttpClientConfigBuilder().withUnixSocket(""),
    TypeError,
    'Invalid unixSocket: expected the socket\'s file path, got ""',
  );
});
