/**
 * Records a small session against a local server to a `.har` file with
 * `HarRecorder` (secrets masked), then replays it with
 * `MockTransport.fromHar` and no server. Open the file in a browser's
 * developer tools (Network, Import HAR).
 *
 * Run with `deno task example:har` (writes /tmp/fetchline-session.har, or
 * the path given as the first argument).
 *
 * @module
 */

import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { HarRecorder } from "../har.ts";
import { MockTransport } from "../testing.ts";

const path = Deno.args[0] ?? "/tmp/fetchline-session.har";

/** Records the session to `path`; gives the HAR's text. */
export async function record(path: string): Promise<string> {
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === "/login") return Response.json({ accessToken: "abc123", expiresIn: 60 });
    return Response.json({ items: ["tea", "milk"] });
  });
  const recorder = new HarRecorder();
  {
    await using http = new HttpClient(
      new HttpClientConfigBuilder().withBaseUrl(`http://127.0.0.1:${server.addr.port}`)
        .withMiddleware(recorder).build(),
    );
    const login = await http.post("/login", { jsonData: { user: "ada", password: "hunter2" } });
    const { accessToken } = login.json<{ accessToken: string }>();
    await http.get("/items", { headers: { Authorization: `Bearer ${accessToken}` } });
  }
  const text = JSON.stringify(recorder.toHar(), null, 2);
  await Deno.writeTextFile(path, text);
  return text;
}

/** Replays the session in `text` with no server; gives the items. */
export async function replay(text: string): Promise<string[]> {
  const har = JSON.parse(text);
  const baseUrl = new URL(har.log.entries[0].request.url).origin;
  const mock = MockTransport.fromHar(har);
  await using http = new HttpClient(
    new HttpClientConfigBuilder().withBaseUrl(baseUrl).withFetch(mock.fetch).build(),
  );
  await http.post("/login", { jsonData: { user: "ada", password: "any" } });
  return (await http.get("/items")).json<{ items: string[] }>().items;
}

if (import.meta.main) {
  const text = await record(path);
  console.log(`Recorded ${JSON.parse(text).log.entries.length} exchanges to ${path}`);
  console.log(`Replayed with no server: ${(await replay(text)).join(", ")}`);
}
