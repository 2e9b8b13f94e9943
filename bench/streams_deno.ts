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
 * Cases and clients:
 * - `download`: `fetch` (raw fetch + `pipeTo`), `fetch-byob` (raw fetch read
 *   into one reused array: the floor) or `fetchline` (`client.stream()`,
 *   `body.pipeTo`), into a sink that counts the bytes and drops them.
 * - `upload`: `fetch-raw` (raw fetch, the file's `Deno.open().readable`),
 *   `fetchline-raw` (the same stream as `body`), `fetchline-multipart` (the
 *   path in `files`) of the file `--file`.
 * - `buffered`: `fetch` (`Response.bytes()`) or `fetchline` (`client.get()`),
 *   with a Content-Length or (`--chunked`) without.
 * - `lag`: `fetch` (raw fetch + TextDecoder, split by hand) or `fetchline`
 *   (`events()` / `lines()`), `--format=sse|ndjson`.
 * - `cpu`: `fetch` (`bytes()`), `fetch-stream` (the body read a chunk at a
 *   time), `fetchline` (buffered `get()`) or `fetchline-stream`
 *   (`client.stream()`, the body read a chunk at a time), `--calls` small bodies.
 *
 * @module
 */

import process from "node:process";
import { parseArgs } from "node:util";
import { HttpClient, HttpClientConfigBuilder } from "../mod.ts";
import { clockOffset, lagRecorder, rssSampler, sink } from "./_streams_measure.mjs";

const { values } = parseArgs({
  args: Deno.args,
  options: {
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
const base = values.url!;
const name = values.client!;
const rss = () => Deno.memoryUsage().rss;
const READ_SIZE = 64 * 1024;

function fetchline(): HttpClient {
  // No attempt deadline: a 1 GiB upload on a loaded machine may take longer than the default.
  const config = new HttpClientConfigBuilder().withTimeout(null).build();
  return new HttpClient(config);
}

async function download() {
  const url = `${base}/bytes?n=${values.bytes}`;
  const pool = Deno.createHttpClient({});
  const client = fetchline();
  const once = async (target: string, counter: WritableStream<Uint8Array>) => {
    if (name === "fetch") {
      const response = await fetch(target, { client: pool });
      await response.body!.pipeTo(counter);
    } else if (name === "fetch-byob") {
      // The floor: one array read into again and again, no chunk left to collect.
      const reader = (await fetch(target, { client: pool })).body!.getReader({ mode: "byob" });
      const writer = counter.getWriter();
      let view = new Uint8Array(READ_SIZE);
      for (;;) {
        const { done, value } = await reader.read(view);
        if (done) break;
        await writer.write(value);
        view = new Uint8Array(value.buffer);
      }
      await writer.close();
    } else {
      await using response = await client.stream("GET", target);
      await response.body.pipeTo(counter);
    }
  };
  // Warm-up: the connection is open and the code compiled before measuring.
  await once(`${base}/bytes?n=${2 ** 20}`, sink().stream);
  const counted = sink();
  const sampler = rssSampler(rss);
  const cpu = process.cpuUsage();
  const start = performance.now();
  await once(url, counted.stream);
  const seconds = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  const memory = sampler.stop();
  if (counted.bytes() !== Number(values.bytes)) throw new Error(`Got ${counted.bytes()} bytes`);
  client.close();
  pool.close();
  return { bytes: counted.bytes(), seconds, cpuSeconds: (user + system) / 1e6, ...memory };
}

async function upload() {
  const path = values.file!;
  const size = (await Deno.stat(path)).size;
  const client = fetchline();
  const pool = Deno.createHttpClient({});
  const sampler = rssSampler(rss);
  const start = performance.now();
  let received: number;
  if (name === "fetch-raw") {
    const file = await Deno.open(path);
    const response = await fetch(`${base}/upload`, {
      method: "POST",
      body: file.readable,
      client: pool,
    });
    received = (await response.json()).bytes;
  } else if (name === "fetchline-raw") {
    const file = await Deno.open(path);
    received =
      (await client.post(`${base}/upload`, { body: file.readable })).json<{ bytes: number }>()
        .bytes;
  } else {
    const response = await client.post(`${base}/upload`, { files: { file: path } });
    received = response.json<{ bytes: number }>().bytes;
  }
  const seconds = (performance.now() - start) / 1000;
  const memory = sampler.stop();
  if (received < size) throw new Error(`The server got ${received} of ${size} bytes`);
  client.close();
  pool.close();
  return { bytes: size, seconds, ...memory };
}

async function buffered() {
  const url = `${base}/bytes?n=${values.bytes}${values.chunked ? "&chunked" : ""}`;
  const client = fetchline();
  const pool = Deno.createHttpClient({});
  // Warm-up on a small body: the code is compiled and the connection open.
  if (name === "fetch") await (await fetch(`${base}/bytes?n=1000`, { client: pool })).bytes();
  else await client.get(`${base}/bytes?n=1000`);
  const sampler = rssSampler(rss);
  const start = performance.now();
  const body = name === "fetch"
    ? await (await fetch(url, { client: pool })).bytes()
    : (await client.get(url)).content;
  const seconds = (performance.now() - start) / 1000;
  const memory = sampler.stop();
  if (body.byteLength !== Number(values.bytes)) throw new Error(`Got ${body.byteLength} bytes`);
  client.close();
  pool.close();
  return { bytes: body.byteLength, seconds, ...memory };
}

async function lag() {
  const format = values.format as "sse" | "ndjson";
  const offset = await clockOffset(async () => (await (await fetch(`${base}/clock`)).json()).t);
  const url = `${base}/${format}?count=${values.count}&every=${values.every}`;
  const recorder = lagRecorder(offset.offsetMs);
  if (name === "fetch") {
    const response = await fetch(url);
    const decoder = new TextDecoder();
    const separator = format === "sse" ? "\n\n" : "\n";
    let text = "";
    for await (const chunk of response.body!) {
      text += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = text.indexOf(separator)) !== -1) {
        const record = text.slice(0, end);
        text = text.slice(end + separator.length);
        recorder.record(format === "sse" ? record.slice(record.indexOf("data: ") + 6) : record);
      }
    }
  } else {
    await using client = fetchline();
    await using response = await client.stream("GET", url);
    if (format === "sse") {
      for await (const event of response.events()) recorder.record(event.data);
    } else for await (const line of response.lines()) recorder.record(line);
  }
  return { ...recorder.summary(Number(values.count)), ...offset };
}

async function cpu() {
  const url = `${base}/bytes?n=100`;
  const client = fetchline();
  const pool = Deno.createHttpClient({});
  const call = name === "fetch"
    ? async () => (await (await fetch(url, { client: pool })).bytes()).byteLength
    : name === "fetch-stream"
    ? async () => {
      let size = 0;
      for await (const chunk of (await fetch(url, { client: pool })).body!) {size +=
          chunk.byteLength;}
      return size;
    }
    : name === "fetchline"
    ? async () => (await client.get(url)).content.byteLength
    : async () => {
      let size = 0;
      await using response = await client.stream("GET", url);
      for await (const chunk of response.body) size += chunk.byteLength;
      return size;
    };
  const drive = async (calls: number) => {
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
  client.close();
  pool.close();
  return { calls, seconds, cpuUsPerCall: (user + system) / calls };
}

const cases = { download, upload, buffered, lag, cpu } as const;
const run = cases[values.case as keyof typeof cases];
if (run === undefined) throw new TypeError(`Unknown --case: ${values.case}`);
const result = await run();
console.log(JSON.stringify({ runtime: "deno", case: values.case, client: name, ...result }));
