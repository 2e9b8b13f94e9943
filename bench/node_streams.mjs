// One measurement of the streams benchmark on Node, in a process of its own,
// the counterpart of bench/streams_deno.ts (same cases, flags and JSON line).
// bench/streams.ts runs a copy of it in the folder npm installed undici and
// fetchline's npm build into, so it imports them by bare name.
//
// Clients by case (the reference first):
// - download: `undici` (undici.stream into a Writable that counts) or
//   `fetchline` (`client.stream()`, `body.pipeTo` a sink that counts);
// - buffered: `undici` (request + `body.arrayBuffer()`) or `fetchline` (`get()`);
// - upload: `undici-raw` (undici.request, the file's fs.createReadStream),
//   `fetchline-raw` (`body`: the file's `fs.openAsBlob()` Blob) or
//   `fetchline-multipart` (the path in `files`).

import { createReadStream, openAsBlob, statSync } from "node:fs";
import process from "node:process";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { rssSampler, sink } from "./_streams_measure.mjs";

const { values } = parseArgs({
  options: {
    case: { type: "string" },
    client: { type: "string" },
    url: { type: "string" },
    bytes: { type: "string", default: String(2 ** 30) },
    file: { type: "string", default: "" },
  },
});
const [base, name, bytes] = [values.url, values.client, Number(values.bytes)];
const [undici, fl] = await Promise.all(["undici", "@fetchline/fetchline"].map((p) => import(p)));
const agent = new undici.Agent({});
// No attempt deadline: a 1 GiB transfer on a loaded machine may take longer than the default.
const client = new fl.HttpClient(new fl.HttpClientConfigBuilder().withTimeout(null).build());

/** Gets `n` bytes the way of `--case` and `--client`; the bytes received. */
async function receive(n) {
  const url = `${base}/bytes?n=${n}`;
  if (values.case === "buffered") {
    return name === "undici"
      ? (await (await undici.request(url, { dispatcher: agent })).body.arrayBuffer()).byteLength
      : (await client.get(url)).content.byteLength;
  }
  if (name === "fetchline") {
    const counted = sink();
    await (await client.stream("GET", url)).body.pipeTo(counted.stream);
    return counted.bytes();
  }
  let count = 0;
  const counter = () =>
    new Writable({
      write(chunk, _encoding, callback) {
        count += chunk.byteLength;
        callback();
      },
    });
  await undici.stream(url, { dispatcher: agent }, counter);
  return count;
}

/** Sends the file `--file` the way of `--client`; the bytes the server counted. */
async function send() {
  const url = `${base}/upload`;
  if (name === "undici-raw") {
    const body = createReadStream(values.file);
    const answer = await undici.request(url, { dispatcher: agent, method: "POST", body });
    return (await answer.body.json()).bytes;
  }
  const options = name === "fetchline-raw"
    ? { body: await openAsBlob(values.file) }
    : { files: { file: values.file } };
  return (await client.post(url, options)).json().bytes;
}

const upload = values.case === "upload";
// Warm-up on a small body: the code compiled and the connection open before measuring.
if (!upload) await receive(2 ** 20);
const size = upload ? statSync(values.file).size : bytes;
const sampler = rssSampler(() => process.memoryUsage.rss());
const start = performance.now();
const got = upload ? await send() : await receive(bytes);
const seconds = (performance.now() - start) / 1000;
const memory = sampler.stop();
// A multipart body is the file and its framing.
if (upload ? got < size : got !== size) throw new Error(`${got} bytes of ${size} went through`);
client.close();
await agent.close();
console.log(JSON.stringify({ case: values.case, client: name, bytes: size, seconds, ...memory }));
