// One measurement of the streams benchmark on Node, in a process of its own,
// the counterpart of bench/streams_deno.ts (same cases and flags, same JSON
// line, runtime "node"). undici and fetchline's npm build are loaded from
// --deps, where bench/streams.ts installs them:
//
//   node bench/node_streams.mjs --deps /tmp/fetchline-bench-node --case download \
//     --client fetchline --url http://127.0.0.1:8080 --bytes 1073741824
//
// Clients by case:
// - download: `undici` (undici.stream into a Writable that counts),
//   `undici-request` (undici.request, its body read with `for await`),
//   `fetch` (Node's fetch, `body.pipeTo`) or `fetchline` (`client.stream()`,
//   `body.pipeTo`), into a counting sink.
// - upload: `undici-raw` (undici.request, the file's fs.createReadStream),
//   `fetchline-raw` (`body`: the file's `fs.openAsBlob()` Blob),
//   `fetchline-raw-stream` (`body`: `Readable.toWeb(fs.createReadStream())`),
//   `fetchline-multipart` (the path in `files`).
// - buffered: `undici` (request + `body.arrayBuffer()`) or `fetchline` (`get()`).
// - lag: `fetch` (Node's fetch + TextDecoder, split by hand) or `fetchline`
//   (`events()` / `lines()`).
// - cpu: `undici` (request + `body.arrayBuffer()`), `undici-stream` (request,
//   the body read a chunk at a time), `fetchline` (`get()`) or
//   `fetchline-stream` (`client.stream()`, the body read a chunk at a time).

import { createReadStream, openAsBlob, statSync } from "node:fs";
import process from "node:process";
import { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
import { load } from "./_node_load.mjs";
import { clockOffset, lagRecorder, rssSampler, sink } from "./_streams_measure.mjs";

const { values } = parseArgs({
  options: {
    deps: { type: "string" },
    case: { type: "string" },
    client: { type: "string" },
    url: { type: "string" },
    bytes: { type: "string", default: String(2 ** 30) },
    file: { type: "string" },
    chunked: { type: "boolean", default: false },
    format: { type: "string", default: "sse" },
    count: { type: "string", default: "150" },
    every: { type: "string", default: "20" },
    calls: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "16" },
  },
});
const base = values.url;
const name = values.client;
const rss = () => process.memoryUsage.rss();
const undici = await load(values.deps, "undici");
const fl = await load(values.deps, "@fetchline/fetchline");
const agent = new undici.Agent({});
// No attempt deadline: a 1 GiB upload on a loaded machine may take longer than the default.
const client = new fl.HttpClient(new fl.HttpClientConfigBuilder().withTimeout(null).build());

async function download() {
  const once = async (url, counted) => {
    if (name === "undici") {
      await undici.stream(url, { dispatcher: agent }, () =>
        new Writable({
          write(chunk, _encoding, callback) {
            counted.add(chunk.byteLength);
            callback();
          },
        }));
    } else if (name === "undici-request") {
      const { body } = await undici.request(url, { dispatcher: agent });
      for await (const chunk of body) counted.add(chunk.byteLength);
    } else if (name === "fetch") {
      await (await fetch(url)).body.pipeTo(counted.stream);
    } else {
      const response = await client.stream("GET", url);
      await response.body.pipeTo(counted.stream);
    }
  };
  const counter = () => {
    const web = sink();
    let bytes = 0;
    return { stream: web.stream, add: (n) => bytes += n, bytes: () => bytes + web.bytes() };
  };
  await once(`${base}/bytes?n=${2 ** 20}`, counter());
  const counted = counter();
  const sampler = rssSampler(rss);
  const cpu = process.cpuUsage();
  const start = performance.now();
  await once(`${base}/bytes?n=${values.bytes}`, counted);
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  const memory = sampler.stop();
  if (counted.bytes() !== Number(values.bytes)) throw new Error(`Got ${counted.bytes()} bytes`);
  return { bytes: counted.bytes(), seconds, cpuSeconds: (user + system) / 1e6, ...memory };
}

async function upload() {
  const path = values.file;
  const size = statSync(path).size;
  const url = `${base}/upload`;
  const sampler = rssSampler(rss);
  const start = performance.now();
  let received;
  if (name === "undici-raw") {
    const answer = await undici.request(url, {
      dispatcher: agent,
      method: "POST",
      body: createReadStream(path),
    });
    received = (await answer.body.json()).bytes;
  } else {
    const options = name === "fetchline-raw"
      ? { body: await openAsBlob(path) }
      : name === "fetchline-raw-stream"
      ? { body: Readable.toWeb(createReadStream(path)) }
      : { files: { file: path } };
    received = (await client.post(url, options)).json().bytes;
  }
  const seconds = (performance.now() - start) / 1000;
  const memory = sampler.stop();
  if (received < size) throw new Error(`The server got ${received} of ${size} bytes`);
  return { bytes: size, seconds, ...memory };
}

async function buffered() {
  const url = `${base}/bytes?n=${values.bytes}${values.chunked ? "&chunked" : ""}`;
  const read = name === "undici"
    ? async (target) =>
      new Uint8Array(await (await undici.request(target, { dispatcher: agent })).body.arrayBuffer())
    : async (target) => (await client.get(target)).content;
  await read(`${base}/bytes?n=1000`);
  const sampler = rssSampler(rss);
  const start = performance.now();
  const body = await read(url);
  const seconds = (performance.now() - start) / 1000;
  const memory = sampler.stop();
  if (body.byteLength !== Number(values.bytes)) throw new Error(`Got ${body.byteLength} bytes`);
  return { bytes: body.byteLength, seconds, ...memory };
}

async function lag() {
  const format = values.format;
  const offset = await clockOffset(async () => (await (await fetch(`${base}/clock`)).json()).t);
  const url = `${base}/${format}?count=${values.count}&every=${values.every}`;
  const recorder = lagRecorder(offset.offsetMs);
  if (name === "fetch") {
    const response = await fetch(url);
    const decoder = new TextDecoder();
    const separator = format === "sse" ? "\n\n" : "\n";
    let text = "";
    for await (const chunk of response.body) {
      text += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = text.indexOf(separator)) !== -1) {
        const record = text.slice(0, end);
        text = text.slice(end + separator.length);
        recorder.record(format === "sse" ? record.slice(record.indexOf("data: ") + 6) : record);
      }
    }
  } else {
    const response = await client.stream("GET", url);
    if (format === "sse") {
      for await (const event of response.events()) recorder.record(event.data);
    } else for await (const line of response.lines()) recorder.record(line);
  }
  return { ...recorder.summary(Number(values.count)), ...offset };
}

async function cpu() {
  const url = `${base}/bytes?n=100`;
  const call = name === "undici"
    ? async () =>
      (await (await undici.request(url, { dispatcher: agent })).body.arrayBuffer()).byteLength
    : name === "undici-stream"
    ? async () => {
      let size = 0;
      const { body } = await undici.request(url, { dispatcher: agent });
      for await (const chunk of body) size += chunk.byteLength;
      return size;
    }
    : name === "fetchline"
    ? async () => (await client.get(url)).content.byteLength
    : async () => {
      let size = 0;
      const response = await client.stream("GET", url);
      for await (const chunk of response.body) size += chunk.byteLength;
      return size;
    };
  const drive = async (calls) => {
    let next = 0;
    const lane = async () => {
      while (next++ < calls) if (await call() !== 100) throw new Error("Wrong body");
    };
    await Promise.all(Array.from({ length: Number(values.concurrency) }, lane));
  };
  const calls = Number(values.calls);
  await drive(Math.ceil(calls / 10));
  const usage = process.cpuUsage();
  const start = performance.now();
  await drive(calls);
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(usage);
  return { calls, seconds, cpuUsPerCall: (user + system) / calls };
}

const cases = { download, upload, buffered, lag, cpu };
const run = cases[values.case];
if (run === undefined) throw new TypeError(`Unknown --case: ${values.case}`);
const result = await run();
client.close();
await agent.close();
console.log(
  JSON.stringify({
    runtime: "node",
    node: process.version,
    case: values.case,
    client: name,
    ...result,
  }),
);
