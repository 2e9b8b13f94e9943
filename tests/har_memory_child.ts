// A program run by har_test.ts in a process of its own, with
// `--v8-flags=--expose-gc`: it records 30 MiB bodies with `maxBodyBytes` of
// 64 KiB (a JSON upload, a text upload, a form upload, a streamed JSON
// response read to its end) and prints, for each, how many bytes of heap
// (array buffers too) the recorder grew by (the request built before, a
// collection first, none after, so what the recorder made and dropped
// counts too) and what its entry says of the body.

import { HttpClient, HttpClientConfigBuilder, HttpRequest, RequestContext } from "../mod.ts";
import { HarRecorder } from "../har.ts";
import { MockTransport } from "../testing.ts";
import type { Exchange } from "../interfaces.ts";

const MiB = 2 ** 20;
const SIZE = 30 * MiB;
const maxBodyBytes = 64 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("Run with --v8-flags=--expose-gc");

/**
 * A JSON body of about `SIZE` bytes: a credential and rows of text. (Rows as
 * strings, not objects: finding the credentials a call sent walks its
 * `jsonData`, which makes garbage of each object's entries, whatever the
 * recorder keeps of the body.)
 */
function jsonData() {
  const row = `${"x".repeat(1000)} row`;
  return { password: "pw-SECRET-4", rows: Array.from({ length: SIZE / 1024 }, () => row) };
}

/** The heap in use, array buffers' bytes too. */
function heap() {
  const { heapUsed, external } = Deno.memoryUsage();
  return heapUsed + external;
}

/** The heap growth of `record()`, and the recorder's HAR text after it. */
async function measure(record: (recorder: HarRecorder) => Promise<unknown>) {
  const recorder = new HarRecorder({ maxBodyBytes });
  gc!();
  const before = heap();
  await record(recorder);
  const text = JSON.stringify(recorder.toHar());
  const growth = heap() - before;
  return { growth, text };
}

/**
 * Records the request `init` builds, its exchange failing at once. Its body
 * text is made flat first, as sending it makes it: a string built by parts
 * is joined into one by whoever reads it first, once.
 */
function upload(init: ConstructorParameters<typeof HttpRequest>[2]) {
  const request = new HttpRequest("POST", "http://127.0.0.1/up", init);
  const text = request.jsonText ?? request.body;
  if (typeof text === "string") text.charCodeAt(0);
  return (recorder: HarRecorder) =>
    recorder.handle(
      request,
      () => Promise.reject(new Error("no network")),
      // The exchange is never read: its send fails before any response.
      { context: new RequestContext(request) } as unknown as Exchange,
    )
      .catch(() => undefined);
}

const results: Record<string, unknown> = {};
{
  const { growth, text } = await measure(upload({ jsonData: jsonData() }));
  results.json = { growth, postData: JSON.parse(text).log.entries[0].request.postData };
}
{
  const body = "y".repeat(SIZE);
  const { growth, text } = await measure(
    upload({ body, headers: { "content-type": "text/plain" } }),
  );
  results.text = { growth, postData: JSON.parse(text).log.entries[0].request.postData };
}
{
  const body = `password=pw-SECRET-4&note=${"z".repeat(SIZE)}`;
  const { growth, text } = await measure(
    upload({ body, headers: { "content-type": "application/x-www-form-urlencoded" } }),
  );
  results.form = { growth, postData: JSON.parse(text).log.entries[0].request.postData };
}
{
  const chunk = new TextEncoder().encode(`${JSON.stringify(jsonData().rows.slice(0, 60))},`);
  const mock = new MockTransport().route("GET", "/down", () => {
    let sent = 0;
    return {
      headers: { "content-type": "application/json" },
      body: new ReadableStream({
        pull(controller) {
          if (sent >= SIZE) return controller.close();
          controller.enqueue(chunk);
          sent += chunk.byteLength;
        },
      }, { highWaterMark: 0 }),
    };
  });
  const { growth, text } = await measure(async (recorder) => {
    await using http = new HttpClient(
      new HttpClientConfigBuilder().withFetch(mock.fetch).withMiddleware(recorder).build(),
    );
    const response = await http.stream("GET", "http://127.0.0.1/down");
    for await (const _ of response.body);
  });
  results.stream = { growth, content: JSON.parse(text).log.entries[0].response.content };
}
console.log(JSON.stringify(results));
