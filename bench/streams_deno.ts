/**
 * One measurement of the streams benchmark on Deno, in a process of its own
 * (its RSS is this measurement's alone), printing one JSON line that
 * bench/streams.ts reads; bench/node_streams.mjs is its Node counterpart.
 *
 * ```sh
 * deno run --allow-net=127.0.0.1 --allow-read=/tmp bench/streams_deno.ts \
 *   --case=download --client=fetchline --url=http://127.0.0.1:8080 --bytes=1073741824
 * ```
 *
 * Cases and clients (the reference first):
 * - `download`: `fetch` (raw fetch, `body.pipeTo`) or `fetchline`
 *   (`client.stream()`, `body.pipeTo`), into a sink that counts and drops;
 * - `buffered`: `fetch` (`Response.bytes()`) or `fetchline` (`client.get()`);
 * - `upload` of the file `--file`: `fetch-raw` (raw fetch, the file's
 *   `Deno.open().readable` as body), `fetchline-raw` (the same stream as
 *   `body`) or `fetchline-multipart` (the path in `files`).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { rssSampler, sink } from "./_streams_measure.mjs";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    case: { type: "string" },
    client: { type: "string" },
    url: { type: "string" },
    bytes: { type: "string", default: String(2 ** 30) },
    file: { type: "string", default: "" },
  },
});
const [base, name, bytes] = [values.url!, values.client!, Number(values.bytes)];
const pool = Deno.createHttpClient({});
// No attempt deadline: a 1 GiB transfer on a loaded machine may take longer than the default.
const client = new HttpClient(new HttpClientConfigBuilder().withTimeout(null).build());

/** Gets `n` bytes the way of `--case` and `--client`; the bytes received. */
async function receive(n: number): Promise<number> {
  const url = `${base}/bytes?n=${n}`;
  if (values.case === "buffered") {
    return name === "fetch"
      ? (await (await fetch(url, { client: pool })).bytes()).byteLength
      : (await client.get(url)).content.byteLength;
  }
  const counted = sink();
  if (name === "fetch") await (await fetch(url, { client: pool })).body!.pipeTo(counted.stream);
  else await (await client.stream("GET", url)).body.pipeTo(counted.stream);
  return counted.bytes();
}

/** Sends the file `--file` the way of `--client`; the bytes the server counted. */
async function send(): Promise<number> {
  const url = `${base}/upload`;
  if (name === "fetchline-multipart") {
    return (await client.post(url, { files: { file: values.file } })).json<{ bytes: number }>()
      .bytes;
  }
  const body = (await Deno.open(values.file)).readable;
  if (name === "fetchline-raw") {
    return (await client.post(url, { body })).json<{ bytes: number }>().bytes;
  }
  const response = await fetch(url, { method: "POST", body, client: pool });
  return (await response.json()).bytes;
}

const upload = values.case === "upload";
// Warm-up on a small body: the code compiled and the connection open before measuring.
if (!upload) await receive(2 ** 20);
const size = upload ? (await Deno.stat(values.file)).size : bytes;
const sampler = rssSampler(() => Deno.memoryUsage().rss);
const start = performance.now();
const got = upload ? await send() : await receive(bytes);
const seconds = (performance.now() - start) / 1000;
const memory = sampler.stop();
// A multipart body is the file and its framing.
if (upload ? got < size : got !== size) throw new Error(`${got} bytes of ${size} went through`);
client.close();
pool.close();
console.log(JSON.stringify({ case: values.case, client: name, bytes: size, seconds, ...memory }));
